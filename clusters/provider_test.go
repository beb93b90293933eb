package clusters

import (
	"context"
	"errors"
	"testing"

	"github.com/skewcheck/skewcheck/framework"
)

// fake is a cluster of a provider made up for the tests.
type fake struct{}

func (fake) Target(context.Context) (*framework.Target, error) { return &framework.Target{}, nil }
func (fake) WaitConverged(context.Context) error               { return nil }
func (fake) Members() []Member                                 { return nil }
func (fake) Delete() error                                     { return nil }

func TestProviders(t *testing.T) {
	made := 0
	Register(Provider{Name: "fake-plain", New: func(context.Context, Spec) (Cluster, error) { made++; return fake{}, nil }})
	Register(Provider{Name: "fake-rich", Capabilities: []Capability{NodeImages, ServersWithoutPeerProxy},
		New: func(context.Context, Spec) (Cluster, error) { made++; return fake{}, nil }})

	var unknown ErrUnknownProvider
	if err := Require("kvm"); !errors.As(err, &unknown) || unknown.Provider != "kvm" || len(unknown.Known) < 2 {
		t.Errorf("an unknown provider: %v, want ErrUnknownProvider listing the registered ones", err)
	}
	var ns ErrNotSupported
	if err := Require("fake-plain", NodeImages); !errors.As(err, &ns) || ns.Provider != "fake-plain" || ns.Capability != NodeImages {
		t.Errorf("a capability the provider lacks: %v, want ErrNotSupported naming both", err)
	}
	if err := Require("fake-rich", NodeImages, ServersWithoutPeerProxy); err != nil {
		t.Errorf("capabilities the provider declares: %v", err)
	}

	// What a spec asks is checked before the provider makes anything.
	spec := Spec{Servers: []ServerSpec{{Version: "v1.36.3", DisablePeerProxy: true}}, NodeImages: []string{"img"}}
	if _, err := New(context.Background(), "fake-plain", spec); !errors.As(err, &ns) || made != 0 {
		t.Errorf("a spec the provider cannot honour: %v (made %d), want ErrNotSupported and nothing made", err, made)
	}
	if _, err := New(context.Background(), "fake-rich", spec); err != nil || made != 1 {
		t.Errorf("a spec the provider honours: %v (made %d)", err, made)
	}

	// So is what the provider asks of this machine.
	refused := errors.New("this machine cannot")
	Register(Provider{Name: "fake-refused", Preflight: func() error { return refused },
		New: func(context.Context, Spec) (Cluster, error) { made++; return fake{}, nil }})
	if _, err := New(context.Background(), "fake-refused", Spec{}); !errors.Is(err, refused) || made != 1 {
		t.Errorf("a machine the provider refuses: %v (made %d more), want its Preflight's error and nothing made", err, made-1)
	}

	defer func() {
		if recover() == nil {
			t.Error("a second registration of a name must panic")
		}
	}()
	Register(Provider{Name: "fake-plain"})
}

func TestSpecNeeds(t *testing.T) {
	s := Spec{Servers: []ServerSpec{{PeerAdvertise: "127.0.0.9:6443"}, {PeerAdvertise: "127.0.0.10:6443", DisablePeerProxy: true},
		{EmulatedVersion: "1.35"}, {EmulatedVersion: "1.34"}}}
	got := s.Needs()
	if len(got) != 3 || got[0] != PeerAdvertise || got[1] != ServersWithoutPeerProxy || got[2] != EmulatedVersions {
		t.Errorf("Needs = %v, want each capability once, in the order the servers ask", got)
	}
	if n := (Spec{Servers: SpecsFor([]string{" v1.35.4", "v1.36.3"})}).Needs(); len(n) != 0 {
		t.Errorf("default servers need nothing: %v", n)
	}
}
