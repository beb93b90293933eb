package layers

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"
)

// A vendor imports the suites as a library (as Gateway API's conformance suite is
// imported), and with them the scenarios, the framework and the abstract clusters
// package. What it gets must be the contract, not skewcheck's machinery: no reference
// implementation, no provider, no Docker. The direct-import rule (check) cannot see this:
// each import can be allowed while a chain of them brings a provider in, so this rule is
// on `go list -deps`, the transitive closure.

// libraryRoots are the packages a library user imports.
var libraryRoots = []string{"./suites/...", "./scenarios/...", "./framework/...", "./clusters"}

// libraryClusters are the packages under clusters/ a library may depend on: the abstract
// package and the neutral ones it and the faults are made of. Every other package under
// clusters/ is a provider, a front, a dataplane or their machinery.
var libraryClusters = map[string]bool{
	"clusters": true, "clusters/binaries": true, "clusters/pki": true, "clusters/node": true, "clusters/process": true,
}

// libraryForbiddenModules are the outside modules that bring a container engine or a
// cluster provider with them.
var libraryForbiddenModules = []string{
	"github.com/moby/moby/client", "github.com/docker/docker", "github.com/testcontainers/testcontainers-go", "sigs.k8s.io/kind",
}

// knownLibraryDeps are the dependencies that break the rule today, each with what removes
// it: the list only shrinks (none since issue 35 moved the fault capabilities to
// clusters/node and the dataplane machines out of package clusters).
var knownLibraryDeps = map[edge]string{}

// forbiddenForLibrary says why a library may not depend on dep (a path inside the module,
// or an outside import path), or "".
func forbiddenForLibrary(dep string, inModule bool) string {
	if inModule {
		top, _, _ := strings.Cut(dep, "/")
		switch {
		case top == "reference":
			return "a reference implementation"
		case top == "clusters" && !libraryClusters[dep]:
			return "a provider, front or dataplane (only " + strings.Join(slices.Sorted(maps.Keys(libraryClusters)), ", ") + " of clusters/ are the library's)"
		}
		return ""
	}
	for _, m := range libraryForbiddenModules {
		if dep == m || strings.HasPrefix(dep, m+"/") {
			return "a container engine or cluster provider (" + m + ")"
		}
	}
	return ""
}

// checkLibrary returns every dependency of deps (a library package's path inside the
// module, to its transitive imports, full paths) the rule forbids and known does not list,
// and every listed one that is gone.
func checkLibrary(prefix string, deps map[string][]string, known map[edge]string) []string {
	var problems []string
	present := map[edge]bool{}
	for from, all := range deps {
		for _, d := range all {
			rel, inModule := strings.CutPrefix(d, prefix)
			why := forbiddenForLibrary(rel, inModule)
			if why == "" {
				continue
			}
			e := edge{from, rel}
			present[e] = true
			if _, ok := known[e]; !ok {
				problems = append(problems, fmt.Sprintf("%s depends on %s, %s: a library user importing it would get that too. "+
					"Give what it needs a neutral home (clusters/node, framework) or have the caller pass it in", from, rel, why))
			}
		}
	}
	for e, why := range known {
		if !present[e] {
			problems = append(problems, fmt.Sprintf("%s no longer depends on %s (%s): delete its line from knownLibraryDeps", e.from, e.to, why))
		}
	}
	sort.Strings(problems)
	return problems
}

// TestLibraryBringsNoMachinery is the rule on the module as it is.
func TestLibraryBringsNoMachinery(t *testing.T) {
	root, prefix, err := module()
	if err != nil {
		t.Fatal(err)
	}
	out, err := run(root, "go", append([]string{"list", "-f", `{{.ImportPath}} {{join .Deps " "}}`}, libraryRoots...)...)
	if err != nil {
		t.Fatal(err)
	}
	deps := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		deps[strings.TrimPrefix(f[0], prefix)] = f[1:]
	}
	if len(deps) < 10 || len(deps["suites"]) == 0 {
		t.Fatalf("go list found %d library packages (suites with %d dependencies); the check would pass on nothing", len(deps), len(deps["suites"]))
	}
	for _, p := range checkLibrary(prefix, deps, knownLibraryDeps) {
		t.Error(p)
	}
}

// TestCheckLibrary shows the rule catches what it is for, on made-up dependencies.
func TestCheckLibrary(t *testing.T) {
	const m = "example.com/sc/"
	deps := map[string][]string{
		"suites/chaos":     {m + "scenarios/faults", m + "clusters/node", m + "clusters/local", "github.com/moby/moby/client", "k8s.io/client-go/rest"},
		"scenarios/faults": {m + "clusters/node", m + "clusters/pki"},
		"framework":        {m + "reference/ipmode"},
	}
	got := strings.Join(checkLibrary(m, deps, map[edge]string{{"framework", "reference/ipmode"}: "being moved", {"suites", "clusters/kind"}: "gone"}), "\n")
	for _, want := range []string{
		"suites/chaos depends on clusters/local, a provider, front or dataplane",
		"suites/chaos depends on github.com/moby/moby/client, a container engine or cluster provider",
		"suites no longer depends on clusters/kind (gone): delete its line",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q:\n%s", want, got)
		}
	}
	for _, never := range []string{"scenarios/faults depends", "depends on clusters/node", "client-go", "framework depends"} {
		if strings.Contains(got, never) {
			t.Errorf("problems name %q, which the rule allows or the known list covers:\n%s", never, got)
		}
	}
}
