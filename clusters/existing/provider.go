package existing

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/framework"
)

// ProviderName is how runs select this provider: a cluster that already runs.
const ProviderName = "existing"

// ErrNoKubeconfig is a spec for this provider that does not say how to reach the cluster.
var ErrNoKubeconfig = errors.New("an existing cluster is reached through its kubeconfig, and none is given")

// ErrServersChosen is a spec that chooses servers, which an existing cluster has already.
var ErrServersChosen = errors.New("an existing cluster's apiservers are found, not chosen: give no versions or server flags")

// Registration is the provider of clusters that already run: nothing is made but the
// run's own footprint (Footprint), and it declares no capability: it restarts, fronts and
// names nothing.
func Registration() clusters.Provider {
	return clusters.Provider{Name: ProviderName,
		Description: "a cluster that already runs, reached through its kubeconfig: its apiservers are found, and a run makes only its own namespace and what it lists",
		New:         newCluster}
}

// cluster is a found cluster with the run's footprint in it.
type cluster struct {
	target *framework.Target
	admin  *rest.Config
	// listing reads the EndpointSlices for Listed, which an observer polls many times a
	// second: one client, its connections kept.
	listing kubernetes.Interface
	fp      Footprint
	out     io.Writer
	// found is what Discover read at the start: the leases matched to the servers.
	found *Found
	// byAddress names the servers found, by the address the EndpointSlice lists.
	byAddress map[string]string
}

func newCluster(ctx context.Context, spec clusters.Spec) (clusters.Cluster, error) {
	if spec.Kubeconfig == "" && !spec.InCluster {
		return nil, ErrNoKubeconfig
	}
	if len(spec.Servers) > 0 {
		return nil, ErrServersChosen
	}
	out := cmp.Or[io.Writer](spec.Progress, io.Discard)
	admin, err := adminConfig(spec)
	if err != nil {
		return nil, err
	}
	found, err := Discover(ctx, admin)
	if err != nil {
		return nil, fmt.Errorf("finding the apiservers of %s (kubeconfig %s): %w", admin.Host, spec.Kubeconfig, err)
	}
	listing, err := kubernetes.NewForConfig(admin)
	if err != nil {
		return nil, fmt.Errorf("a client for %s (kubeconfig %s): %w", admin.Host, spec.Kubeconfig, err)
	}
	c := &cluster{admin: admin, listing: listing, fp: runFootprint(spec), out: out, found: found}
	fmt.Fprintf(out, "making %s\n", c.fp)
	user, err := c.fp.Make(ctx, admin)
	if err != nil {
		// Only what this run recorded goes: a namespace that already existed is another's.
		return nil, errors.Join(err, c.Delete())
	}
	t, err := found.Target(ctx, admin, user)
	if err != nil {
		return nil, errors.Join(err, c.Delete())
	}
	// Before any test: every object a test makes through an endpoint is the run's to remove.
	c.fp.Recorder.WrapTarget(t)
	t.Namespace, t.Run, t.Unowned = c.fp.Namespace(), c.fp.Run, true
	c.target, c.byAddress = t, map[string]string{}
	for i, s := range found.Servers {
		c.byAddress[s.Address] = t.Endpoints[i].Name
	}
	found.print(out, admin.Host, t)
	return c, nil
}

// runFootprint is the run's footprint: inside the cluster, under the ID certify gave it
// (RunEnv), so certify knows the run's name and can sweep it should the pod die before
// its own clean-up; elsewhere, a new ID.
func runFootprint(spec clusters.Spec) Footprint {
	fp := NewFootprint(time.Now())
	if id := os.Getenv(RunEnv); spec.InCluster && id != "" {
		fp.Run = id
	}
	return fp
}

// adminConfig is how the run reaches the cluster: the kubeconfig's context, or the pod's
// own ServiceAccount in the cluster it runs in.
func adminConfig(spec clusters.Spec) (*rest.Config, error) {
	if spec.Kubeconfig != "" {
		return framework.RestConfig(spec.Kubeconfig, spec.Context)
	}
	cfg, err := rest.InClusterConfig()
	if err != nil {
		return nil, fmt.Errorf("the cluster this runs in (in-cluster config): %w", err)
	}
	cfg.QPS, cfg.Burst = 1000, 1000 // the suites' requests are the measurement
	return cfg, nil
}

// Target is the found apiservers, each pinned to its address.
func (c *cluster) Target(context.Context) (*framework.Target, error) { return c.target, nil }

// Listed are the found servers the default/kubernetes EndpointSlices list now, and the
// addresses listed that were not found at the start: each apiserver takes its address out
// as it shuts down and puts it back as it starts (the lease endpoint reconciler), so an
// observer sees an upgrade's steps in the list.
func (c *cluster) Listed(ctx context.Context) (names, joined []string, err error) {
	addresses, err := listedAddresses(ctx, c.listing)
	if err != nil {
		return nil, nil, err
	}
	for _, a := range addresses {
		if n, ok := c.byAddress[a]; ok {
			names = append(names, n)
		} else {
			joined = append(joined, a)
		}
	}
	return names, joined, nil
}

// WaitConverged has nothing to wait for: the cluster was running before the run, and what
// each server serves was read from it.
func (c *cluster) WaitConverged(context.Context) error { return nil }

// Delete removes the run's footprint, never the cluster.
func (c *cluster) Delete() error {
	fmt.Fprintf(c.out, "removing %s\n", c.fp)
	return c.fp.Remove(c.admin)
}

// print lists the servers found, with what each is and the skew they make.
func (f *Found) print(out io.Writer, host string, t *framework.Target) {
	fmt.Fprintf(out, "found %d apiservers behind %s (default/kubernetes), each asked at its own address as %s:\n", len(t.Endpoints), host, ServingName)
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "  NAME\tADDRESS\tVERSION\tIDENTITY LEASE")
	for i, s := range f.Servers {
		fmt.Fprintf(w, "  %s\t%s\t%s\t%s\n", t.Endpoints[i].Name, s.Address, t.Endpoints[i].Version, cmp.Or(s.Lease, "(not matched)"))
	}
	w.Flush()
	if len(f.UnmatchedLeases) > 0 {
		fmt.Fprintf(out, "  identity leases no address was matched to (no peer-advertise address): %s\n", strings.Join(f.UnmatchedLeases, ", "))
	}
	if f.LeasesUnreadable != "" {
		fmt.Fprintf(out, "  %s: the servers go by their addresses\n", f.LeasesUnreadable)
	}
	if len(t.Endpoints) > 0 {
		fmt.Fprintf(out, "  the unprivileged user is %s (a ServiceAccount of the run)\n", t.Endpoints[0].UserName)
	}
	fmt.Fprintln(out, Skew(t))
}
