package app

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/mod/semver"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/existing"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/scenarios/upgrade"
)

type observeFlags struct {
	kubeconfig, context, reportDir string
	inCluster                      bool
	o                              upgrade.ObserveOptions
}

func newObserveCommand(streams IOStreams) *cobra.Command {
	var f observeFlags
	cmd := &cobra.Command{
		Use:   "observe",
		Short: "Watch a rolling upgrade someone else drives (kubeadm, a managed service, an operator) under load, and judge it as skewcheck upgrade does",
		Long: `Finds every apiserver of the cluster the kubeconfig reaches (as conformance --kubeconfig does),
makes a namespace of its own, and runs the rolling upgrade's load through each apiserver at
its own address: reads of configmaps and of every GVR not all servers serve, writes of
configmaps, and a watch of them. It never restarts or faults a server: someone else
upgrades the cluster meanwhile. Each apiserver is asked /readyz and /version every
--poll, and the default/kubernetes EndpointSlices are followed: a server that stops being
ready or leaves the list starts a step, its return (at the version it then answers) and
the cluster's convergence end it; steps to one version in a row are a hop. A step is a
restart only when something shows the process changed: its version, its identity lease's
holder (when the cluster reads them) or its process_start_time_seconds (/metrics); any
other is a readiness gap, reported, never a window or a hop.
Asserted as skewcheck upgrade asserts: every failed answer outside the steps and their
--window, and any inside one that no upgrade gives there, is a violation; every hop has
acknowledged writes and every server enough successful reads outside the windows; every
acknowledged write there at the end; every watch resumed after its server's restart.
With --owners, owners of the namespaced resources only some servers serve and configmaps
they own are made in its namespace for the cluster's own kube-controller-manager (it must
lead): every dependent whose owner stands must be there at the end.
Writes upgrade.json and timeline.svg (the steps named by the versions seen); removes its
namespace at the end. Exit 1 on a violation; 2 when nothing could be judged (no restart
confirmed, a server never came back, --until not reached).`,
		Example: "  skewcheck observe --kubeconfig cluster.kubeconfig --for 30m --until v1.36.3\n" +
			"  skewcheck certify --kubeconfig cluster.kubeconfig --observe 30m --observe-until v1.36.3   # the same, as a Job",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.kubeconfig != "" && f.inCluster {
				return fmt.Errorf("--in-cluster reaches the cluster the pod runs in: drop --kubeconfig, or --in-cluster")
			}
			spec := clusters.Spec{InCluster: f.inCluster, Progress: streams.ErrOut}
			if !f.inCluster {
				src, err := findKubeconfig(f.kubeconfig)
				if err != nil {
					return fmt.Errorf("%w, or --in-cluster from a pod", err)
				}
				// The existing provider takes a path, and reads that one file.
				if spec.Kubeconfig, spec.Context, err = src.file(f.context); err != nil {
					return err
				}
			}
			if f.o.For <= 0 {
				return fmt.Errorf("--for %s: say how long at most to watch, e.g. --for 30m", f.o.For)
			}
			if err := existing.CheckRunLength("--for", f.o.For); err != nil {
				return err
			}
			for flag, d := range map[string]time.Duration{"--poll": f.o.Poll, "--interval": f.o.Interval, "--window": f.o.Window, "--settle": f.o.Settle} {
				if d < 0 || (d == 0 && flag != "--settle") {
					return fmt.Errorf("%s %s: give a positive duration", flag, d)
				}
			}
			var err error
			if f.o.Until, err = wholeVersion("--until", f.o.Until); err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			f.o.Seed = framework.SeedOrClock(f.o.Seed)
			f.o.Progress = streams.ErrOut
			c, err := clusters.New(ctx, existing.ProviderName, spec)
			if err != nil {
				return wordError(err)
			}
			defer c.Delete()
			t, err := c.Target(ctx)
			if err != nil {
				return err
			}
			readProxyState(ctx, streams, t) // an inert proxy is the 404s the watch will count
			f.o.Namespace = t.Namespace
			r, err := upgrade.Observe(ctx, c, f.o)
			if err != nil {
				return err
			}
			return writeObserved(streams, r, f.reportDir)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.kubeconfig, "kubeconfig", "", "the kubeconfig that reaches the cluster being upgraded (default: as kubectl finds it, $KUBECONFIG or ~/.kube/config)")
	fl.StringVar(&f.context, "context", "", "its context (default: the current one)")
	fl.BoolVar(&f.inCluster, "in-cluster", false, "watch the cluster this pod runs in, as its ServiceAccount (certify --observe's Job does)")
	fl.DurationVar(&f.o.For, "for", 30*time.Minute, "watch at most this long")
	fl.StringVar(&f.o.Until, "until", "", "stop sooner, once every apiserver runs this version and --settle has passed since the last step")
	fl.Int64Var(&f.o.Seed, "seed", 0, "seed of the load (0: from the clock)")
	fl.DurationVar(&f.o.Interval, "interval", 100*time.Millisecond, "pause between a server's requests")
	fl.DurationVar(&f.o.Settle, "settle", 8*time.Second, "load after the last step before --until ends the watch")
	fl.DurationVar(&f.o.Window, "window", 5*time.Second, "declared convergence window after each step")
	fl.DurationVar(&f.o.Poll, "poll", 250*time.Millisecond, "how often each apiserver is asked /readyz and /version")
	fl.BoolVar(&f.o.Owners, "owners", false, "carry owners of the resources only some servers serve, and configmaps they own, in the run's namespace through the upgrade for the cluster's "+
		"kube-controller-manager (it must lead), and fail when a dependent is gone at the end while its owner stands")
	fl.StringVar(&f.reportDir, "report-dir", "_reports/observe", "where upgrade.json and timeline.svg go")
	return cmd
}

// writeObserved prints and writes a watched upgrade like a driven one, and exits 2 with the
// reason when nothing failed but not all could be judged (no restart confirmed, a server
// not back, --until not reached).
func writeObserved(streams IOStreams, r *upgrade.Result, reportDir string) error {
	headline := fmt.Sprintf("watched %s, %d servers, seed %d, %.0fs", strings.Join(r.Path, " -> "), r.Servers, r.Seed, r.Duration)
	if err := writeUpgrade(streams, r, reportDir, headline); err != nil || r.Unobserved == "" {
		return err
	}
	return exitError{code: exitIncomplete, err: fmt.Errorf("incomplete: nothing seen failed, but %s", r.Unobserved)}
}

// wholeVersion is v as /version gives it (v1.36.3; "1.36.3" gets its v), "" for "", or an
// error naming flag. It is compared by release (upgrade.SameRelease).
func wholeVersion(flag, v string) (string, error) {
	if v == "" {
		return "", nil
	}
	if !strings.HasPrefix(v, "v") {
		v = "v" + v
	}
	// A distribution's suffix (v1.30.2-eks-..., v1.30.2+k3s1) may stay: the release counts.
	if !semver.IsValid(v) || strings.Count(upgrade.Release(v), ".") != 2 {
		return "", fmt.Errorf("%s %q: the whole version the apiservers will answer /version with, such as v1.36.3", flag, v)
	}
	return v, nil
}
