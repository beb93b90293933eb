package faults

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/clusters/node"
	"github.com/skewcheck/skewcheck/framework"
)

// pathNode is a node behind a peer path, or without one (path nil).
type pathNode struct{ path *node.PeerPath }

func (n pathNode) IncomingPeerPath() *node.PeerPath { return n.path }
func (pathNode) Stop(time.Duration) error           { return nil }
func (pathNode) Kill() error                        { return nil }
func (pathNode) Freeze() error                      { return nil }
func (pathNode) Thaw() error                        { return nil }
func (pathNode) Start(context.Context) error        { return nil }

// PeerPath, as a test's feature, is had exactly where the network faults have somewhere
// to act: a peer path into every server, or a network namespace of each node's own; a
// cluster skewcheck does not own never has it.
func TestPeerPathFeature(t *testing.T) {
	test := framework.Test{Features: []framework.Feature{PeerPath}}
	withPath := pathNode{&node.PeerPath{}}
	for _, tc := range []struct {
		name   string
		target framework.Target
		want   string // the reason's start; "" for had
	}{
		{"peer paths", framework.Target{Endpoints: []*framework.Endpoint{{Name: "a", Node: withPath}, {Name: "b", Node: withPath}}}, ""},
		{"network namespaces", framework.Target{Endpoints: threeNetNodes()}, ""},
		{"a server without a path", framework.Target{Endpoints: []*framework.Endpoint{{Name: "a", Node: withPath}, {Name: "b", Node: pathNode{}}}},
			"missing PeerPath: the network path into b cannot be faulted"},
		{"no node", framework.Target{Endpoints: []*framework.Endpoint{{Name: "a"}}}, "missing PeerPath: the network path into a"},
		{"not ours", framework.Target{Unowned: true, Kind: "existing", Endpoints: threeNetNodes()}, "not applicable: needs PeerPath"},
	} {
		got := test.SkipReason(&tc.target)
		if (tc.want == "") != (got == "") || !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: SkipReason = %q, want it to start with %q", tc.name, got, tc.want)
		}
	}
}
