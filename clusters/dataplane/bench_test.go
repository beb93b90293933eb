package dataplane

import (
	"testing"

	"github.com/skewcheck/skewcheck/internal/integration"
)

// BenchmarkTopology measures building and deleting the ipmode network: five namespaces, a
// bridge, four veth pairs, addresses and routes.
func BenchmarkTopology(b *testing.B) {
	integration.Require(b)
	b.ReportAllocs()
	for b.Loop() {
		t, err := newTopology(nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := t.close(); err != nil {
			b.Fatal(err)
		}
	}
}
