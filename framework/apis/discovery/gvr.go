// Package discovery reads which group/version/resources a single kube-apiserver serves
// itself, from its aggregated discovery with profile=nopeer, and compares servers.
//
// It is a leaf: clusters/ uses it to decide convergence, framework/ to build targets, the
// CLI to print skew, and the reference proxies to learn what each upstream serves; so it
// lives under framework/apis, which every layer may import and which imports nothing of
// the module (this package: the standard library, k8s.io/api and client-go's rest). It
// never follows a peer: the whole point is each server's own view.
package discovery

import (
	"fmt"
	"sort"
	"strings"
)

// GVR is one resource a server serves, with what the suites need to know about it.
type GVR struct {
	Group      string   `json:"group"`
	Version    string   `json:"version"`
	Resource   string   `json:"resource"`
	Kind       string   `json:"kind"`
	Namespaced bool     `json:"namespaced"`
	Verbs      []string `json:"verbs"`
	// Subresources are the names under this resource, such as "status" or "scale".
	Subresources []string `json:"subresources,omitempty"`
}

// Key is the canonical "group/version/resource" string ("core" stands in for the empty group).
func (g GVR) Key() string {
	group := g.Group
	if group == "" {
		group = "core"
	}
	return group + "/" + g.Version + "/" + g.Resource
}

// GroupVersion is "group/version", or "v1" for the core group, as in apiVersion fields.
func (g GVR) GroupVersion() string {
	if g.Group == "" {
		return g.Version
	}
	return g.Group + "/" + g.Version
}

// Path is the URL path that lists this resource across all namespaces.
func (g GVR) Path() string { return g.CollectionPath("") }

// CollectionPath is where objects of this resource live in namespace (ignored for a
// cluster-scoped resource; "" lists across all namespaces).
func (g GVR) CollectionPath(namespace string) string {
	prefix := "/apis/" + g.Group + "/" + g.Version
	if g.Group == "" {
		prefix = "/api/" + g.Version
	}
	if g.Namespaced && namespace != "" {
		prefix += "/namespaces/" + namespace
	}
	return prefix + "/" + g.Resource
}

// Can reports whether the resource supports verb.
func (g GVR) Can(verb string) bool {
	for _, v := range g.Verbs {
		if v == verb {
			return true
		}
	}
	return false
}

func (g GVR) String() string { return g.Key() }

// Set is the GVRs one server serves, keyed by GVR.Key.
type Set map[string]GVR

// Has reports whether the set contains the resource with key (see GVR.Key).
func (s Set) Has(key string) bool { _, ok := s[key]; return ok }

// HasGroupVersion reports whether any resource of "group/version" is in the set.
func (s Set) HasGroupVersion(group, version string) bool {
	for _, g := range s {
		if g.Group == group && g.Version == version {
			return true
		}
	}
	return false
}

// Sorted returns the GVRs ordered by key, so output and test order are stable.
func (s Set) Sorted() []GVR {
	out := make([]GVR, 0, len(s))
	for _, g := range s {
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key() < out[j].Key() })
	return out
}

// Union is every GVR served by at least one of the sets.
func Union(sets ...Set) Set {
	u := Set{}
	for _, s := range sets {
		for k, g := range s {
			u[k] = g
		}
	}
	return u
}

// Missing is what other serves that s does not.
func (s Set) Missing(other Set) Set {
	m := Set{}
	for k, g := range other {
		if !s.Has(k) {
			m[k] = g
		}
	}
	return m
}

// Skew describes, for every GVR that not all servers serve, which servers serve it.
type Skew struct {
	GVR      GVR      `json:"gvr"`
	ServedBy []string `json:"servedBy"`
	Missing  []string `json:"missingFrom"`
}

// Compare lists the GVRs that some servers serve and others do not, by server name.
func Compare(byServer map[string]Set) []Skew {
	names := make([]string, 0, len(byServer))
	sets := make([]Set, 0, len(byServer))
	for n := range byServer {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		sets = append(sets, byServer[n])
	}
	var out []Skew
	for _, g := range Union(sets...).Sorted() {
		sk := Skew{GVR: g}
		for _, n := range names {
			if byServer[n].Has(g.Key()) {
				sk.ServedBy = append(sk.ServedBy, n)
			} else {
				sk.Missing = append(sk.Missing, n)
			}
		}
		if len(sk.Missing) > 0 {
			out = append(out, sk)
		}
	}
	return out
}

// ParseKey turns "group/version/resource" (or "core/v1/pods") back into its parts.
func ParseKey(key string) (group, version, resource string, err error) {
	parts := strings.Split(key, "/")
	if len(parts) != 3 || parts[1] == "" || parts[2] == "" {
		return "", "", "", fmt.Errorf("%q is not a group/version/resource such as apps/v1/deployments or core/v1/pods", key)
	}
	if parts[0] == "core" {
		parts[0] = ""
	}
	return parts[0], parts[1], parts[2], nil
}
