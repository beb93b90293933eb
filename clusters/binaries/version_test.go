package binaries

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// sampleVersions looks like the proxy's list: unordered, with prereleases
// that must not win "latest" or a minor.
var sampleVersions = []string{
	"v1.36.3", "v1.13.0", "v1.35.4", "v1.36.0", "v1.36.1", "v1.36.4-rc.0",
	"v1.37.0-alpha.1", "v1.37.0-rc.1", "v1.34.4", "v1.35.0",
}

func fakeResolver(t *testing.T, versions ...string) resolver {
	return resolver{list: func(context.Context) ([]string, error) {
		t.Helper()
		return versions, nil
	}}
}

func TestResolve(t *testing.T) {
	r := fakeResolver(t, sampleVersions...)
	for _, tc := range []struct{ in, want string }{
		{"v1.35.4", "v1.35.4"},
		{"1.35.4", "v1.35.4"},
		{" 1.35.4 ", "v1.35.4"},
		{"1.36", "v1.36.3"},
		{"v1.36", "v1.36.3"},
		{"1.35", "v1.35.4"},
		{"latest", "v1.36.3"},
		{"LATEST", "v1.36.3"},
		{"v1", "v1.36.3"},
		{"v1.37.0-rc.1", "v1.37.0-rc.1"},
		{"1.37.0-rc.1", "v1.37.0-rc.1"},
	} {
		got, err := r.resolve(context.Background(), tc.in, "Kubernetes")
		if err != nil || got != tc.want {
			t.Errorf("resolve(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestResolveErrors(t *testing.T) {
	r := fakeResolver(t, sampleVersions...)
	for _, tc := range []struct {
		in   string
		want []string // substrings of the error
	}{
		{"v1.36.2", []string{"no kube-apiserver v1.36.2", "no such version on the Go module proxy", "releases of 1.36: v1.36.0, v1.36.1, v1.36.3", "latest"}},
		{"v1.99.0", []string{"no kube-apiserver v1.99.0", "no release of 1.99", "newest releases: v1.36.3, v1.36.1, v1.36.0, v1.35.4, v1.35.0"}},
		// A minor with prereleases only names them, and never picks one.
		{"1.37", []string{"no kube-apiserver 1.37", "no release of 1.37", "only prereleases: v1.37.0-alpha.1, v1.37.0-rc.1", "name one exactly (v1.37.0-rc.1)"}},
		{"1.99", []string{"no kube-apiserver 1.99", "no release of 1.99", "newest releases: v1.36.3"}},
		{"v1.37.0-rc.9", []string{"releases of 1.37: v1.37.0-alpha.1, v1.37.0-rc.1"}},
		{"", []string{"no Kubernetes version given"}},
		{"banana", []string{`"banana" is not a Kubernetes version`, "v1.36.3"}},
		{"1.37-rc.1", []string{"is not a Kubernetes version"}},
		{"v1.36.3+build", []string{"is not a Kubernetes version"}},
	} {
		_, err := r.resolve(context.Background(), tc.in, "kube-apiserver")
		if err == nil {
			t.Errorf("resolve(%q): no error", tc.in)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("resolve(%q) error %q does not contain %q", tc.in, err, w)
			}
		}
	}
}

func TestResolveListError(t *testing.T) {
	boom := errors.New("proxy down")
	r := resolver{list: func(context.Context) ([]string, error) { return nil, boom }}
	if _, err := r.resolve(context.Background(), "latest", "Kubernetes"); !errors.Is(err, boom) {
		t.Fatalf("got %v, want %v", err, boom)
	}
	// An exact version needs no listing, so it survives a proxy outage.
	if got, err := r.resolve(context.Background(), "1.36.3", "Kubernetes"); err != nil || got != "v1.36.3" {
		t.Fatalf("exact version offline: %q, %v", got, err)
	}
}

func TestExactVersionNeedsNoList(t *testing.T) {
	for in, want := range map[string]string{"1.35.4": "v1.35.4", "v1.36.3": "v1.36.3", "v1.37.0-rc.1": "v1.37.0-rc.1"} {
		if got, ok := exactVersion(in); !ok || got != want {
			t.Errorf("exactVersion(%q) = %q, %v", in, got, ok)
		}
	}
	for _, in := range []string{"1.36", "latest", "v1", "x"} {
		if got, ok := exactVersion(in); ok {
			t.Errorf("exactVersion(%q) = %q, true", in, got)
		}
	}
}

// A mirror's list can leave out versions it serves: an exact version missing from the
// list is looked up by name, and refused only when the look-up says no.
func TestResolveExactVersionMissingFromAPartialList(t *testing.T) {
	r := fakeResolver(t, sampleVersions...)
	served := map[string]bool{"v1.29.15": true}
	var asked []string
	r.exists = func(_ context.Context, v string) (bool, error) {
		asked = append(asked, v)
		return served[v], nil
	}
	if got, err := r.resolve(context.Background(), "1.29.15", "Kubernetes"); err != nil || got != "v1.29.15" {
		t.Errorf("resolve(1.29.15) = %q, %v; want v1.29.15, which the proxy serves but does not list", got, err)
	}
	if _, err := r.resolve(context.Background(), "v1.29.99", "Kubernetes"); err == nil || !strings.Contains(err.Error(), "no such version") {
		t.Errorf("resolve(v1.29.99) error %v, want no such version", err)
	}
	if _, err := r.resolve(context.Background(), "v1.36.3", "Kubernetes"); err != nil || len(asked) != 2 {
		t.Errorf("a listed version was looked up again (asked %v, %v)", asked, err)
	}
	r.exists = func(context.Context, string) (bool, error) { return false, errors.New("proxy down") }
	if _, err := r.resolve(context.Background(), "v1.29.15", "Kubernetes"); err == nil || !strings.Contains(err.Error(), "proxy down") {
		t.Errorf("a failed look-up must say so, got %v", err)
	}
}
