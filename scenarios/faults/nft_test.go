package faults

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/skewcheck/skewcheck/clusters/local"
)

func server(name, ip, advertise string, cg *local.Cgroup) *local.Server {
	return &local.Server{Name: name, IP: ip, Port: 6443, Cgroup: cg, Spec: local.ServerSpec{PeerAdvertise: advertise}}
}

// An exact partition matches each side's sockets by cgroup, and the other side's own and
// advertised addresses; one way has only the first rule.
func TestPartitionPairRules(t *testing.T) {
	a := server("apiserver-1", "127.77.1.11", "127.77.1.41:6443", &local.Cgroup{Rel: "unified/skewcheck-1-a", Level: 1})
	b := server("apiserver-2", "127.77.1.12", "", &local.Cgroup{Rel: "unified/skewcheck-1-b", Level: 1})
	both := PartitionPair(a, b, false).(*packets)
	want := []string{
		`socket cgroupv2 level 1 "unified/skewcheck-1-a" ip daddr { 127.77.1.12 } tcp dport 6443 drop`,
		`socket cgroupv2 level 1 "unified/skewcheck-1-b" ip daddr { 127.77.1.11, 127.77.1.41 } tcp dport 6443 drop`,
	}
	if !slices.Equal(both.rules, want) {
		t.Errorf("rules:\n%q\nwant\n%q", both.rules, want)
	}
	if one := PartitionPair(a, b, true).(*packets); !slices.Equal(one.rules, want[:1]) || one.Name() != "partition-pair-one-way" {
		t.Errorf("one way: %s %q", one.Name(), one.rules)
	}
}

// Without cgroups the fault says why it cannot be injected, and callers skip it.
func TestPartitionPairWithoutCgroupsIsUnsupported(t *testing.T) {
	f := PartitionPair(server("a", "127.0.0.1", "", nil), server("b", "127.0.0.2", "", nil), false)
	var u Unsupported
	if err := f.Inject(context.Background()); !errors.As(err, &u) {
		t.Errorf("want Unsupported, got %v", err)
	}
}

// The reference's proxies live in skewcheck's process: an exact partition refuses them.
func TestPartitionPairNeedsServers(t *testing.T) {
	if _, err := ByName("partition-pair", Subject{}); err == nil {
		t.Error("partition-pair without servers must be refused")
	}
}
