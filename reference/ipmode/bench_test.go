package ipmode

import (
	"context"
	"fmt"
	"testing"

	"sigs.k8s.io/knftables"
)

// BenchmarkRuleset measures one full rewrite of the table for a node with many Services
// (the reference rewrites everything on each sync): the transaction built and checked by
// knftables' fake, without the nft command.
func BenchmarkRuleset(b *testing.B) {
	for _, n := range []int{100, 1000} {
		ports := make([]ServicePort, n)
		for i := range ports {
			ports[i] = ServicePort{Namespace: "default", Name: fmt.Sprintf("svc-%d", i), Port: "http", PortNumber: 80,
				NodePort: int32(30000 + i%2000), ShortCircuit: []string{fmt.Sprintf("198.18.%d.%d", 1+i/250, i%250)},
				Endpoints: []Endpoint{{IP: fmt.Sprintf("10.0.%d.%d", i/250, i%250), Port: 8080}}}
		}
		b.Run(fmt.Sprintf("services=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				fake := knftables.NewFake(knftables.IPv4Family, Table)
				tx := fake.NewTransaction()
				Ruleset(tx, "198.18.0.2", ports)
				if err := fake.Run(context.Background(), tx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
