package registry

import (
	"encoding/json"
	"os"
	"slices"
	"strings"

	"github.com/skewcheck/skewcheck/clusters"
)

// Entry is one named cluster as `cluster list` shows it.
type Entry struct {
	Name, Provider, Status, Kubeconfig string
	Versions                           []string
}

// List is every named cluster: those with a directory, and those a lasting provider still
// has without one (their record was removed; `cluster delete` still removes them).
func List() ([]Entry, error) {
	names, err := Names()
	if err != nil {
		return nil, err
	}
	// What each lasting provider has now; one that cannot be asked (no Docker) has none.
	alive, unreachable := map[string][]string{}, map[string]error{}
	for _, p := range clusters.Providers() {
		if p.Lasting != nil {
			alive[p.Name], unreachable[p.Name] = p.Lasting.Names()
		}
	}
	var out []Entry
	for _, n := range names {
		e := Entry{Name: n, Status: "starting"}
		if Supervisor(n) == 0 {
			e.Status = "dead (delete it)"
		}
		r, err := Read(n)
		if err == nil {
			e.Provider, e.Kubeconfig = r.Provider, r.Kubeconfig
			if e.Status == "starting" {
				e.Status = "running"
			}
			if l := lasting(r.Provider); l != nil {
				switch {
				case unreachable[r.Provider] != nil:
					e.Status = "unknown (" + unreachable[r.Provider].Error() + ")"
				case slices.Contains(alive[r.Provider], n):
					e.Status = "running"
				default:
					e.Status = "gone (delete it)"
				}
			}
			for _, s := range r.Servers {
				e.Versions = append(e.Versions, s.Version)
			}
		}
		if e.Provider == "" {
			e.Provider = plannedProvider(n)
		}
		out = append(out, e)
	}
	for p, ns := range alive {
		for _, n := range ns {
			if !slices.Contains(names, n) {
				out = append(out, Entry{Name: n, Provider: p, Status: "nodes without a record (delete it)"})
			}
		}
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// plannedProvider is the provider of a cluster that has no record yet, from its plan.
// Records and plans written before providers were named said nothing: only the local
// provider's clusters had supervisors then.
func plannedProvider(name string) string {
	var p Plan
	if b, err := os.ReadFile(planPath(name)); err == nil && json.Unmarshal(b, &p) == nil && p.Provider != "" {
		return p.Provider
	}
	return "local"
}
