//go:build !incluster

package app

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/skewcheck/skewcheck/clusters/existing"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/suites"
)

type certifyFlags struct {
	kubeconfig, context, image, reportDir string
	focus, skip                           string
	profiles, extra                       []string
	hostNetwork, keep, sonobuoy           bool
	auditLogDir                           string
	startBound                            time.Duration
	// observe, when set, makes the Job watch a rolling upgrade for that long instead
	// (skewcheck observe), ending sooner once every apiserver runs observeUntil.
	memoryLimit    string
	observe        time.Duration
	observeUntil   string
	profilesChosen bool
}

func newCertifyCommand(streams IOStreams) *cobra.Command {
	var f certifyFlags
	cmd := &cobra.Command{
		Use:   "certify",
		Short: "Run the conformance profiles inside the cluster under test, as a Job, and copy the reports out",
		Long: `Runs skewcheck's image (skewcheck images skewcheck) in the cluster the kubeconfig reaches, as
hydrophone runs the conformance image: it makes a namespace skewcheck-certify-<time>, a
ServiceAccount, a ClusterRole for the run and its binding, and a Job that tolerates every
taint, whose pod runs "skewcheck in-cluster" (it finds every apiserver and keeps to a
namespace of its own, as conformance --kubeconfig does). certify follows the pod's log,
writes the reports, JUnit and e2e.log to --report-dir, removes everything it made (also on
Ctrl-C; --keep leaves it for a look) and exits with the run's code (0, 1 or 2).
With --observe 30m the Job runs "skewcheck observe --in-cluster" instead: it watches the
rolling upgrade someone else drives meanwhile, under load, and its upgrade.json and
timeline.svg come out the same way.`,
		Example: "  skewcheck certify --kubeconfig cluster.kubeconfig --image registry.example/skewcheck:v0.1 --upstream\n" +
			"  skewcheck certify --kubeconfig kind.kubeconfig --image " + DefaultSkewcheckImage + " --host-network --profiles mvp\n" +
			"  skewcheck certify --kubeconfig cluster.kubeconfig --observe 30m --observe-until v1.36.3",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			f.profilesChosen = cmd.Flags().Changed("profiles")
			return runCertify(ctx, streams, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.kubeconfig, "kubeconfig", "", "the kubeconfig that reaches the cluster under test (required)")
	fl.StringVar(&f.context, "context", "", "its context (default: the current one)")
	fl.StringVar(&f.image, "image", DefaultSkewcheckImage, "skewcheck's image, on the nodes or pullable by them (skewcheck images skewcheck builds it)")
	fl.StringSliceVar(&f.profiles, "profiles", suites.DefaultProfiles, "the profiles the run runs")
	fl.StringVar(&f.focus, "focus", "", "run only tests whose \"[ID] description\" matches this regular expression")
	fl.StringVar(&f.skip, "skip", "", "skip tests whose \"[ID] description\" matches this regular expression")
	fl.StringSliceVar(&f.extra, "conformance-flag", nil, "a flag of conformance for the run inside, e.g. --conformance-flag=--upstream (repeat it)")
	fl.BoolVar(&f.hostNetwork, "host-network", false, "run the pod on its node's network and reach the apiserver on that node: for a cluster with no pod network or Service proxy (a kind cluster skewcheck makes)")
	fl.StringVar(&f.auditLogDir, "audit-log-dir", "", "a directory of every node holding the apiservers' audit logs, mounted read-only into the pod at the same path (then name each log with --conformance-flag=--audit-logs=NAME=PATH)")
	fl.BoolVar(&f.keep, "keep", false, "leave the namespace, Job, ServiceAccount and ClusterRole in the cluster, for a look")
	fl.StringVar(&f.reportDir, "report-dir", "_reports/certify", "where the reports, JUnit and the run's log are written")
	fl.BoolVar(&f.sonobuoy, "sonobuoy-plugin", false, "print a sonobuoy plugin manifest that runs --image with these profiles and flags (sonobuoy run -p FILE), and exit")
	fl.DurationVar(&f.startBound, "start-timeout", 3*time.Minute, "how long the Job's pod may take to start")
	fl.StringVar(&f.memoryLimit, "memory-limit", "512Mi", "the memory limit of the Job's pod (a Kubernetes quantity; \"\" for none)")
	fl.DurationVar(&f.observe, "observe", 0, "instead of the profiles, watch a rolling upgrade for at most this long (skewcheck observe, as the Job)")
	fl.StringVar(&f.observeUntil, "observe-until", "", "with --observe: stop once every apiserver runs this version")
	return cmd
}

// env is the in-cluster run's environment (skewcheck in-cluster's contract).
func (f certifyFlags) env() map[string]string {
	if f.observe > 0 {
		env := map[string]string{"SKEWCHECK_OBSERVE": f.observe.String()}
		if f.observeUntil != "" {
			env["SKEWCHECK_OBSERVE_UNTIL"] = f.observeUntil
		}
		return env
	}
	env := map[string]string{"SKEWCHECK_PROFILES": strings.Join(f.profiles, ",")}
	if len(f.extra) > 0 {
		env["E2E_EXTRA_ARGS"] = strings.Join(f.extra, " ")
	}
	if f.focus != "" {
		env["E2E_FOCUS"] = f.focus
	}
	if f.skip != "" {
		env["E2E_SKIP"] = f.skip
	}
	return env
}

func runCertify(ctx context.Context, streams IOStreams, f certifyFlags) error {
	if f.sonobuoy {
		manifest, err := existing.SonobuoyPlugin(f.image, f.env())
		if err != nil {
			return err
		}
		_, err = streams.Out.Write(manifest)
		return err
	}
	if f.kubeconfig == "" {
		return fmt.Errorf("--kubeconfig is required: the kubeconfig that reaches the cluster under test")
	}
	var err error
	if f.observeUntil, err = wholeVersion("--observe-until", f.observeUntil); err != nil {
		return err
	}
	if f.observe < 0 {
		return fmt.Errorf("--observe %s: say how long at most to watch, e.g. --observe 30m", f.observe)
	}
	if f.observeUntil != "" && f.observe <= 0 {
		return fmt.Errorf("--observe-until goes with --observe: say how long at most to watch, e.g. --observe 30m")
	}
	if f.observe > 0 && (f.focus != "" || f.skip != "" || len(f.extra) > 0 || f.profilesChosen) {
		return fmt.Errorf("--observe watches an upgrade and runs no profile: drop --profiles, --focus, --skip and --conformance-flag, or --observe")
	}
	var limit resource.Quantity
	if f.memoryLimit != "" {
		if limit, err = resource.ParseQuantity(f.memoryLimit); err != nil {
			return fmt.Errorf("--memory-limit %q: a Kubernetes quantity such as 512Mi: %w", f.memoryLimit, err)
		}
	}
	for _, p := range f.profiles {
		if _, err := framework.Select(suites.All(), []string{p}); err != nil {
			return fmt.Errorf("--profiles: %w", err)
		}
	}
	admin, err := framework.RestConfig(f.kubeconfig, f.context)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(f.reportDir, 0o755); err != nil {
		return err
	}
	c := existing.Certify{Footprint: existing.Footprint{Run: "certify-" + time.Now().UTC().Format("20060102-150405")},
		Image: f.image, Env: f.env(), HostNetwork: f.hostNetwork, AuditLogDir: f.auditLogDir, MemoryLimit: limit}
	remove := func() {
		if f.keep {
			fmt.Fprintf(streams.ErrOut, "kept namespace %s and ClusterRole(Binding) %s (--keep); remove them with kubectl delete ns %s; kubectl delete clusterrole,clusterrolebinding %s\n",
				c.Namespace(), c.Namespace(), c.Namespace(), c.Namespace())
			return
		}
		rctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		fmt.Fprintf(streams.ErrOut, "removing namespace %s, its Job, and ClusterRole(Binding) %s\n", c.Namespace(), c.Namespace())
		if err := c.Remove(rctx, admin); err != nil {
			fmt.Fprintln(streams.ErrOut, "warning:", err)
		}
	}
	fmt.Fprintf(streams.ErrOut, "making namespace %s, a ServiceAccount, a ClusterRole and a Job running %s\n", c.Namespace(), f.image)
	defer remove()
	if err := c.Make(ctx, admin); err != nil {
		return err
	}
	log, code, err := c.Follow(ctx, admin, streams.ErrOut, f.startBound)
	if err != nil {
		return err
	}
	names, err := existing.UnpackResults(log, f.reportDir)
	if err != nil {
		return err
	}
	fmt.Fprintf(streams.Out, "the run inside the cluster exited %d; its results: %s\n", code, filepath.Join(f.reportDir, "{"+strings.Join(names, ",")+"}"))
	if code != 0 {
		return exitError{code: code, err: fmt.Errorf("the run inside the cluster exited %d (its report in %s)", code, f.reportDir)}
	}
	return nil
}
