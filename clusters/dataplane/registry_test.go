package dataplane

import (
	"errors"
	"slices"
	"testing"
)

// Every dataplane skewcheck ships is registered once, in the order help texts list them;
// a kind is made from a Choice, says which field it lacks, and an unknown name lists the
// known ones.
func TestRegistry(t *testing.T) {
	want := []string{"kube-proxy-nftables", "kube-proxy-iptables", "kube-proxy-ipvs", "reference", "reference-ignoring-ipmode",
		"reference-never-short-circuiting", "reference-closing-nodeport", "reference-resolving-hostnames", "exec", "image"}
	if got := Names(); !slices.Equal(got, want) {
		t.Errorf("names %v, want %v", got, want)
	}
	s, err := Make("kube-proxy-iptables", Choice{WatchedVersion: "v1.36.3+build"})
	if kp, ok := s.(KubeProxy); err != nil || !ok || kp.Mode != "iptables" || kp.Version != "v1.36.3" {
		t.Errorf("kube-proxy-iptables watching v1.36.3: %#v, %v", s, err)
	}
	if s, _ := Make("kube-proxy-nftables", Choice{Version: "v1.35.4", WatchedVersion: "v1.36.3"}); s.Release() != "v1.35.4" {
		t.Errorf("a chosen kube-proxy version is kept: %s", s.Release())
	}
	var needs ErrNeeds
	if _, err := Make("exec", Choice{}); !errors.As(err, &needs) || needs.Field != "Command" {
		t.Errorf("exec without a command: %v", err)
	}
	if s, err := Make("image", Choice{Image: "acme/dp:1", Label: "acme"}); err != nil || s.Name() != "acme" {
		t.Errorf("image: %v, %v", s, err)
	}
	var unknown ErrUnknown
	if _, err := Make("bogus", Choice{}); !errors.As(err, &unknown) || !slices.Equal(unknown.Known, want) {
		t.Errorf("bogus: %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("a second registration of reference did not panic")
		}
	}()
	Register(Kind{Name: "reference"})
}
