package existing

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/fixtures"
)

// Plan is what a run of some tests does on a cluster skewcheck does not own, in kubectl's
// words, derived from what the tests declare they write (framework.Test.Makes):
// `skewcheck conformance --dry-run` prints it, and the user grants the rights it lists,
// before anything is made.
type Plan struct {
	Footprint Footprint
	// Writes are the writes of the tests that run there, one per resource and scope.
	Writes []PlannedWrite
	// NotRun are the tests that never run there, each with the features it needs that
	// such a cluster never has: they skip as not applicable, and write nothing.
	NotRun []string
}

// PlannedWrite is what the tests write of one resource in one scope.
type PlannedWrite struct {
	framework.Write
	// Tests are the IDs of the tests that make it; Why says, once each, what for.
	Tests []string
	Why   []string
}

// NewPlan is the plan of a run of tests (those the run selects: its profiles, --focus and
// --skip) in f.
func NewPlan(f Footprint, tests []framework.Test) Plan {
	p := Plan{Footprint: f}
	for _, t := range tests {
		if never := t.NeverOnUnowned(); len(never) > 0 {
			p.NotRun = append(p.NotRun, fmt.Sprintf("%s (needs %s)", t.ID, joinFeatures(never)))
			continue
		}
		for _, w := range t.Makes {
			p.add(t.ID, w)
		}
	}
	return p
}

// add puts w, made by test id, with the writes of its resource and scope.
func (p *Plan) add(id string, w framework.Write) {
	i := slices.IndexFunc(p.Writes, func(pw PlannedWrite) bool { return pw.Resource == w.Resource && pw.Scope == w.Scope })
	if i < 0 {
		p.Writes = append(p.Writes, PlannedWrite{Write: framework.Write{Resource: w.Resource, Scope: w.Scope}})
		i = len(p.Writes) - 1
	}
	pw := &p.Writes[i]
	for _, v := range w.Verbs {
		if !slices.Contains(pw.Verbs, v) {
			pw.Verbs = append(pw.Verbs, v)
		}
	}
	slices.SortStableFunc(pw.Verbs, func(a, b string) int {
		return slices.Index(framework.WriteVerbs, a) - slices.Index(framework.WriteVerbs, b)
	})
	if !slices.Contains(pw.Tests, id) {
		pw.Tests = append(pw.Tests, id)
	}
	if !slices.Contains(pw.Why, w.Why) {
		pw.Why = append(pw.Why, w.Why)
	}
}

// Print writes the plan for a reader about to grant its rights.
func (p Plan) Print(out io.Writer) {
	f, sel := p.Footprint, framework.RunLabel+"="+p.Footprint.Run
	section := func(title string, lines ...string) {
		fmt.Fprintln(out, "  "+title)
		for _, l := range lines {
			fmt.Fprintln(out, "    - "+l)
		}
	}
	section("makes, for itself:",
		"namespace "+f.Namespace()+" (label "+sel+"), where every namespaced object of the tests is made",
		"serviceaccount "+userAccount+" -n "+f.Namespace()+", the unprivileged user: RBAC grants it nothing",
		fmt.Sprintf("serviceaccounts/token for it (the TokenRequest API, lasting %gh)", tokenLifetime.Hours()))
	var writes []string
	for _, w := range p.Writes {
		writes = append(writes, fmt.Sprintf("%s %s, %s (%s): %s", strings.Join(w.Verbs, ", "), p.resource(w.Resource), p.scope(w.Scope),
			strings.Join(w.Tests, ", "), strings.Join(w.Why, "; ")))
	}
	if len(writes) == 0 {
		writes = []string{"nothing: no selected test that runs here writes"}
	}
	if slices.ContainsFunc(p.Writes, func(w PlannedWrite) bool { return w.Resource == framework.SkewedResources }) {
		writes = append(writes, "the skewed resources are those of "+strings.Join(skewable(), ", ")+
			" that one apiserver serves and another does not, found as the run starts; a cluster whose apiservers all serve the same has none, and the tests of them skip")
	}
	section("writes, for the selected tests:", writes...)
	section("removes at the end, on success, failure and interrupt:",
		"every object the run made, each recorded by name and UID as the server made it, the namespace last; "+
			"what a run that was killed left is found by its label, "+sel)
	section("so the kubeconfig's user needs the rights (kubectl auth can-i <verb> <resource> [-n <namespace>]):", p.rights()...)
	section("reads:",
		"endpointslices -n default, the kubernetes Service's: where the apiservers are",
		"leases -n kube-system labelled "+identityLabel+": which apiserver is which (read only); nodes, when those name no address (the proxy inert, as kubeadm leaves it): each server by the address of the node its identity names",
		"/version, /api and /apis (with and without profile=nopeer) of each apiserver, at its own address; selfsubjectreviews: who each identity is",
		"/metrics and /readyz?verbose of each apiserver, and configmap kubeadm-config -n kube-system: the Mixed Version Proxy's state (framework/proxystate; each may be refused, and is then inferred or said unknown)",
		"what the tests write, and lists of the resources they write, in "+f.Namespace()+" and, for cluster-scoped ones, cluster-wide")
	never := []string{
		"writes outside namespace " + f.Namespace() + " and the cluster-scoped objects labelled " + sel + " above",
		"stops, kills or freezes a server, faults its network, loads it past its use, touches a registration or programs a load-balancer IP",
	}
	if len(p.NotRun) > 0 {
		never = append(never, "runs the selected tests that would (they skip as not applicable, writing nothing): "+strings.Join(p.NotRun, ", "))
	}
	section("never:", never...)
}

// rights are the verbs each write needs, and the run's own, in `kubectl auth can-i`'s words.
func (p Plan) rights() []string {
	ns := " -n " + p.Footprint.Namespace()
	out := []string{"create, delete namespaces", "create serviceaccounts" + ns, "create serviceaccounts/token" + ns}
	for _, w := range p.Writes {
		verbs := strings.Join(w.Verbs, ", ")
		switch w.Scope {
		case framework.RunNamespace:
			out = append(out, verbs+" "+p.resource(w.Resource)+ns)
		case framework.RunNamespaceOrClusterLabelled:
			out = append(out, verbs+" "+p.resource(w.Resource)+ns+", and cluster-wide for the cluster-scoped ones")
		case framework.ClusterLabelled, framework.StoresNothing:
			out = append(out, verbs+" "+w.Resource)
		default: // no test that runs here writes elsewhere (suites' TestEveryTestDeclaresItsWrites)
			out = append(out, verbs+" "+w.Resource+" "+string(w.Scope))
		}
	}
	return out
}

// resource is a write's resource for a reader.
func (p Plan) resource(r string) string {
	if r == framework.SkewedResources {
		return "objects of " + r
	}
	return r
}

// skewable are, in kubectl's words, the resources a test may write as SkewedResources:
// those skewcheck has a fixture of.
func skewable() []string {
	var names []string
	for _, k := range fixtures.Keys() {
		if n := kubectlName(k); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

// scope is where a write lands, named for this run.
func (p Plan) scope(s framework.Scope) string {
	sel := framework.RunLabel + "=" + p.Footprint.Run
	switch s {
	case framework.RunNamespace:
		return "in namespace " + p.Footprint.Namespace()
	case framework.ClusterLabelled:
		return "cluster-scoped, labelled " + sel
	case framework.RunNamespaceOrClusterLabelled:
		return "in namespace " + p.Footprint.Namespace() + " when namespaced, else cluster-scoped and labelled " + sel
	}
	return string(s)
}

// kubectlName is kubectl's name of a fixture's resource ("core/v1/configmaps" is
// configmaps, "batch/v1/jobs" jobs.batch).
func kubectlName(key string) string {
	parts := strings.SplitN(key, "/", 3)
	if len(parts) != 3 || parts[0] == "core" {
		return parts[len(parts)-1]
	}
	return parts[2] + "." + parts[0]
}

func joinFeatures(fs []framework.Feature) string {
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = string(f)
	}
	return strings.Join(names, ", ")
}
