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
	"k8s.io/client-go/rest"

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
hydrophone runs the conformance image: it makes a namespace skewcheck-certify-<run> (enforcing
Pod Security restricted, which the pod meets unless --host-network or --audit-log-dir), a
ServiceAccount, a ClusterRole for the run and its binding, a PodDisruptionBudget, and a Job
that tolerates every taint, whose pod runs "skewcheck in-cluster" as run
certify-<run>-in (SKEWCHECK_RUN): it finds every apiserver and keeps to a namespace of its
own, as conformance --kubeconfig does. certify follows the pod's log, writes the reports,
JUnit and e2e.log to --report-dir (also of a run that failed), and exits with the run's
code (0, 1 or 2). On every exit, Ctrl-C included, it stops the pod first and waits for the
run inside to remove what it made, sweeps what that run left, and only then removes its
own objects (--keep leaves it all for a look); a second Ctrl-C does not cut that short (it
is bounded: the pod's grace period, then a minute).
With --observe 30m the Job runs "skewcheck observe --in-cluster" instead: it watches the
rolling upgrade someone else drives meanwhile, under load, and its upgrade.json and
timeline.svg come out the same way; its PodDisruptionBudget keeps a drain from evicting it
(a drain of its node waits for it).`,
		Example: "  skewcheck certify --kubeconfig cluster.kubeconfig --image registry.example/skewcheck:v0.1 --conformance-flag=--upstream\n" +
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
	fl.StringVar(&f.kubeconfig, "kubeconfig", "", "the kubeconfig that reaches the cluster under test (default: as kubectl finds it, $KUBECONFIG or ~/.kube/config)")
	fl.StringVar(&f.context, "context", "", "its context (default: the current one)")
	fl.StringVar(&f.image, "image", DefaultSkewcheckImage, "skewcheck's image, on the nodes or pullable by them (skewcheck images skewcheck builds it)")
	fl.StringSliceVar(&f.profiles, "profiles", suites.DefaultProfiles, "the profiles the run runs")
	fl.StringVar(&f.focus, "focus", "", "run only tests whose \"[ID] description\" matches this regular expression")
	fl.StringVar(&f.skip, "skip", "", "skip tests whose \"[ID] description\" matches this regular expression")
	fl.StringArrayVar(&f.extra, "conformance-flag", nil, "a flag of conformance for the run inside, kept whole (commas and all), e.g. --conformance-flag=--upstream (repeat it, one flag each)")
	fl.BoolVar(&f.hostNetwork, "host-network", false, "run the pod on its node's network and reach the apiserver on that node: for a cluster with no pod network or Service proxy (a kind cluster skewcheck makes); the pod then meets no Pod Security level but privileged")
	fl.StringVar(&f.auditLogDir, "audit-log-dir", "", "a directory of every node holding the apiservers' audit logs, mounted read-only into the pod at the same path (then name each log with --conformance-flag=--audit-logs=NAME=PATH); the pod then reads them as root, with no capability, and meets no Pod Security level but privileged")
	fl.BoolVar(&f.keep, "keep", false, "leave the namespace, Job, ServiceAccount and ClusterRole(Binding) in the cluster, for a look (skewcheck cleanup --run removes them)")
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

// runCertify runs the Job, and removes what it made on every exit.
func runCertify(ctx context.Context, streams IOStreams, f certifyFlags) error {
	if err := checkConformanceFlags(f.extra); err != nil {
		return err
	}
	if f.sonobuoy {
		manifest, err := existing.SonobuoyPlugin(f.image, f.env())
		if err != nil {
			return err
		}
		_, err = streams.Out.Write(manifest)
		return err
	}
	src, err := findKubeconfig(f.kubeconfig)
	if err != nil {
		return err
	}
	if f.observeUntil, err = wholeVersion("--observe-until", f.observeUntil); err != nil {
		return err
	}
	if f.observe < 0 {
		return fmt.Errorf("--observe %s: say how long at most to watch, e.g. --observe 30m", f.observe)
	}
	if err := existing.CheckRunLength("--observe", f.observe); err != nil {
		return err
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
	admin, err := src.restConfig(f.context)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(f.reportDir, 0o755); err != nil {
		return err
	}
	c := existing.NewCertify(time.Now())
	c.Image, c.Env, c.HostNetwork, c.AuditLogDir, c.MemoryLimit = f.image, f.env(), f.hostNetwork, f.auditLogDir, limit
	fmt.Fprintf(streams.ErrOut, "making namespace %s, a ServiceAccount, a ClusterRole and a Job whose pod runs %s as run %s\n", c.Namespace(), f.image, c.InnerRun())
	if why := c.Unrestricted(); why != "" {
		fmt.Fprintf(streams.ErrOut, "the namespace is given no Pod Security level, since %s, which neither baseline nor restricted admits: where the cluster's default level is one of them, the pod is refused (and certify says so at once)\n", why)
	} else {
		fmt.Fprintln(streams.ErrOut, "the namespace enforces Pod Security restricted, which the pod meets")
	}
	defer removeCertify(streams, f, c, admin)
	if err := c.Make(ctx, admin); err != nil {
		return err
	}
	log, code, err := c.Follow(ctx, admin, streams.ErrOut, f.startBound)
	if err != nil {
		return err
	}
	return certifyResults(streams, f.reportDir, log, code)
}

// certifyResults writes the results out of the pod's log whatever the run's exit code (a
// run that failed or was incomplete has its reports too), and ends with that code.
func certifyResults(streams IOStreams, dir string, log []byte, code int) error {
	exit := func(err error) error {
		if code != 0 {
			return exitError{code: code, err: err}
		}
		return err
	}
	names, err := existing.UnpackResults(log, dir)
	if err != nil {
		where := filepath.Join(dir, "pod.log")
		if werr := os.WriteFile(where, log, 0o644); werr != nil {
			where = "the lines above (writing it to " + where + " failed: " + werr.Error() + ")"
		}
		return exit(fmt.Errorf("the run inside the cluster exited %d, and its results could not be read from its log (%w): the log is in %s", code, err, where))
	}
	fmt.Fprintf(streams.Out, "the run inside the cluster exited %d; its results: %s\n", code, filepath.Join(dir, "{"+strings.Join(names, ",")+"}"))
	if code != 0 {
		return exit(fmt.Errorf("the run inside the cluster exited %d (its report in %s)", code, dir))
	}
	return nil
}

// removeCertify removes what this certify made, and nothing when it made nothing, on every
// exit. A Ctrl-C or SIGTERM during it does not end it: the clean-up is bounded (the pod's
// grace, then a minute for the rest), and ended half-way it would leave the run's rights
// or the pod's footprint behind, which only a later `skewcheck cleanup` could find.
func removeCertify(streams IOStreams, f certifyFlags, c *existing.Certify, admin *rest.Config) {
	held := make(chan os.Signal, 1)
	signal.Notify(held, os.Interrupt, syscall.SIGTERM)
	defer func() { signal.Stop(held); close(held) }()
	go func() {
		for range held {
			fmt.Fprintln(streams.ErrOut, "still cleaning up (bounded by the pod's grace period and a minute); it ends by itself")
		}
	}()
	// Without --kubeconfig, cleanup finds the kubeconfig certify found, as kubectl does.
	cleanup := "skewcheck cleanup"
	if f.kubeconfig != "" {
		cleanup += " --kubeconfig " + f.kubeconfig
	}
	if f.context != "" {
		cleanup += " --context " + f.context
	}
	cleanup = fmt.Sprintf("`%s --run %s --yes`, then `%s --run %s --yes`", cleanup, c.Run, cleanup, c.InnerRun())
	made := c.Made()
	if f.keep {
		if len(made) > 0 {
			fmt.Fprintf(streams.ErrOut, "kept run %s's objects (--keep); once its pod has ended, remove them with %s\n", c.Run, cleanup)
		}
		return
	}
	if len(made) > 0 {
		fmt.Fprintln(streams.ErrOut, "cleaning up: the pod first, then the run's rights and namespace")
	}
	if err := c.Remove(admin, streams.ErrOut); err != nil {
		fmt.Fprintf(streams.ErrOut, "warning: %v\nremove what is left with %s\n", err, cleanup)
	}
}
