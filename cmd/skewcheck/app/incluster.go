package app

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/clusters/existing"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/suites"
)

// The image of skewcheck (skewcheck images skewcheck) runs `skewcheck in-cluster` as a pod
// of the cluster under test, under the contracts of the tools that already run conformance
// from inside a cluster:
//   - hydrophone's conformance image: its environment (inclusterenv.go); e2e.log under
//     /tmp/results, which it reads every few seconds with `sh -c "cat
//     /tmp/results/e2e.log"` (the image has busybox's sh and cat for it) and counts the
//     progress in (pkg/conformance/client/logs.go, watchStatus: "Will run N of M specs"
//     first, then one "•" per finished spec; an e2e.log with lines but not that one ends
//     hydrophone with an error); "Ginkgo ran 1 suite" among the log's last 30 lines
//     once the run has ended (testsAreStillRunning: without it hydrophone follows the log
//     again, for ever); e2e.log and junit_01.xml, which it copies out at the end
//     (download.go); the run's exit code, read off the container (exitcode.go);
//   - sonobuoy's plugin worker: the results under $SONOBUOY_RESULTS_DIR, and a file named
//     done there holding the path of the results tarball (result-format junit, of
//     junit_01.xml alone);
//   - skewcheck certify: every result in its log (existing.PackResults), so it needs no
//     exec into the pod.
// Everything the run writes goes under the results directory: the in-cluster run makes no
// cache, state or temporary file (certify's pod sets TMPDIR and HOME to an emptyDir all the
// same; hydrophone's has no writable directory but its results volume).

func newInClusterCommand(streams IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "in-cluster",
		Short: "The entrypoint of skewcheck's image: run the conformance profiles from inside the cluster under test",
		Long: `Runs skewcheck conformance --in-cluster: the pod's ServiceAccount finds every apiserver of the
cluster it runs in (default/kubernetes), and the run keeps to its own namespace as with
--kubeconfig. The environment chooses the run:

  SKEWCHECK_PROFILES   profiles (default: ` + strings.Join(suites.DefaultProfiles, ",") + `)
  E2E_FOCUS, E2E_SKIP  --focus and --skip (hydrophone's names); E2E_FOCUS=` + hydrophoneFocus + `,
                       hydrophone's default, runs the profiles whole
  E2E_EXTRA_ARGS       more flags of the command run, space-separated (e.g. --upstream)
  E2E_DRYRUN=true      list the tests that would run, and make nothing in the cluster
  E2E_VERBOSITY        6 or more: -v=1 (so does -v in E2E_EXTRA_GINKGO_ARGS)
  E2E_PARALLEL, E2E_EXTRA_GINKGO_ARGS --procs, E2E_PROVIDER, E2E_USE_GO_RUNNER,
  KUBE_TEST_REPO(_LIST)  taken when they ask what skewcheck does anyway (one test at a
                       time, no cloud provider, no test image), else refused
  SKEWCHECK_RUN        the run's ID (certify gives one): its namespace is skewcheck-<ID>
  SKEWCHECK_OBSERVE    a duration: run "observe --for" it instead, watching a rolling
                       upgrade of the cluster (SKEWCHECK_OBSERVE_UNTIL: its --until)
  SONOBUOY_RESULTS_DIR where sonobuoy's worker waits for the results and the done file

The reports, JUnit (also as junit_01.xml), the log (e2e.log), the exit code (exitcode) and
the evidence of failures (artifacts/) go to /tmp/results, or $SONOBUOY_RESULTS_DIR, and
into the pod's log as a framed block certify unpacks; the exit code is the command's.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runInCluster(streams, os.Getenv)
		},
	}
}

func runInCluster(streams IOStreams, getenv func(string) string) error {
	start := time.Now()
	// On every exit, after the results block and before the error line: what hydrophone
	// waits for to know the run has ended.
	defer func() {
		fmt.Fprintf(streams.Out, "Ginkgo ran 1 suite in %s (the line hydrophone waits for: the run has ended)\n", time.Since(start).Round(time.Millisecond))
	}()
	p, planErr := planInCluster(getenv)
	if err := os.MkdirAll(p.results, 0o755); err != nil {
		return fmt.Errorf("making the results directory %s (mount a writable volume there): %w", p.results, err)
	}
	logFile, err := os.Create(filepath.Join(p.results, "e2e.log"))
	if err != nil {
		return fmt.Errorf("writing the run's log into the results directory (mount a writable volume there): %w", err)
	}
	var cause lastError
	run := IOStreams{In: streams.In, Out: io.MultiWriter(streams.Out, logFile), ErrOut: io.MultiWriter(streams.ErrOut, logFile, &cause)}
	code := runPlan(run, p, planErr)
	if err := logFile.Close(); err != nil {
		return err
	}
	why := cmp.Or(cause.line, "e2e.log says why")
	if planErr != nil {
		why = planErr.Error()
	}
	if err := completeResults(p, code, fmt.Sprintf("skewcheck %s exited %d before its first test: %s", p.args[0], code, why)); err != nil {
		return fmt.Errorf("completing the results in %s: %w", p.results, err)
	}
	tarball, err := existing.PackResults(p.results, streams.Out)
	if err != nil {
		return err
	}
	if getenv("SONOBUOY_RESULTS_DIR") != "" {
		if err := writeDone(p.results, tarball); err != nil {
			return err
		}
	}
	switch {
	case planErr != nil:
		return exitError{code: code, err: planErr}
	case code != 0:
		return exitError{code: code, err: fmt.Errorf("%s exited %d (the reports above say why)", p.args[0], code)}
	}
	return nil
}

// runPlan runs what the plan says with streams that go to e2e.log too, and returns the
// exit code. hydrophone reads e2e.log as a ginkgo run's: its first line is the count of
// tests that will run, and each test that ends adds a line starting "•"
// (framework.Progress).
func runPlan(run IOStreams, p *inClusterPlan, planErr error) int {
	if !p.observe {
		fmt.Fprintf(run.Out, "Will run %d of %d specs\n", len(p.willRun), len(p.selected))
	}
	fmt.Fprintf(run.ErrOut, "skewcheck %s in-cluster: %s\n", version, strings.Join(p.args, " "))
	for _, n := range p.notes {
		fmt.Fprintln(run.ErrOut, "in-cluster:", n)
	}
	switch {
	case planErr != nil:
		fmt.Fprintln(run.ErrOut, "error: the environment:", planErr)
		return 1
	case p.dryRun:
		if err := printTests(run.Out, p.willRun, "text"); err != nil {
			fmt.Fprintln(run.ErrOut, "error: printing the tests:", err)
			return 1
		}
		return 0
	}
	framework.Progress = run.Out
	defer func() { framework.Progress = nil }()
	return Run(p.args, run)
}
