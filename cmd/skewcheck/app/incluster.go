package app

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/clusters/existing"
	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/suites"
)

// The image of skewcheck (skewcheck images skewcheck) runs `skewcheck in-cluster` as a pod
// of the cluster under test, under the contracts of the tools that already run conformance
// from inside a cluster:
//   - hydrophone's conformance image: E2E_FOCUS, E2E_SKIP and E2E_EXTRA_ARGS in the
//     environment; e2e.log and junit_01.xml written under /tmp/results; the run's exit code;
//   - sonobuoy's plugin worker: the results under $SONOBUOY_RESULTS_DIR, and a file named
//     done there holding the path of the results tarball (result-format junit);
//   - skewcheck certify: every report in its log (existing.PackResults), so it needs no
//     exec into the pod (a FROM scratch image has no tar).
const hydrophoneResults = "/tmp/results"

func newInClusterCommand(streams IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "in-cluster",
		Short: "The entrypoint of skewcheck's image: run the conformance profiles from inside the cluster under test",
		Long: `Runs skewcheck conformance --in-cluster: the pod's ServiceAccount finds every apiserver of the
cluster it runs in (default/kubernetes), and the run keeps to its own namespace as with
--kubeconfig. The environment chooses the run:

  SKEWCHECK_PROFILES   profiles (default: ` + strings.Join(suites.DefaultProfiles, ",") + `)
  E2E_FOCUS, E2E_SKIP  --focus and --skip (hydrophone's names)
  E2E_EXTRA_ARGS       more flags of the command run, space-separated (e.g. --upstream)
  SKEWCHECK_OBSERVE    a duration: run "observe --for" it instead, watching a rolling
                       upgrade of the cluster (SKEWCHECK_OBSERVE_UNTIL: its --until)
  SONOBUOY_RESULTS_DIR where sonobuoy's worker waits for the results and the done file

The reports, JUnit (also as junit_01.xml) and the log (e2e.log) go to /tmp/results, or
$SONOBUOY_RESULTS_DIR; the exit code is conformance's.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runInCluster(cmd, streams)
		},
	}
}

// inClusterArgs are the conformance arguments the environment asks for, and where the
// results go.
func inClusterArgs(getenv func(string) string) (args []string, results string) {
	results = hydrophoneResults
	if d := getenv("SONOBUOY_RESULTS_DIR"); d != "" {
		results = d
	}
	if d := getenv("SKEWCHECK_OBSERVE"); d != "" {
		args = []string{"observe", "--in-cluster", "--for", d, "--report-dir", results}
		if v := getenv("SKEWCHECK_OBSERVE_UNTIL"); v != "" {
			args = append(args, "--until", v)
		}
		return append(args, strings.Fields(getenv("E2E_EXTRA_ARGS"))...), results
	}
	profiles := getenv("SKEWCHECK_PROFILES")
	if profiles == "" {
		profiles = strings.Join(suites.DefaultProfiles, ",")
	}
	args = []string{"conformance", "--in-cluster", "--profiles", profiles, "--report-dir", results}
	if v := getenv("E2E_FOCUS"); v != "" {
		args = append(args, "--focus", v)
	}
	if v := getenv("E2E_SKIP"); v != "" {
		args = append(args, "--skip", v)
	}
	return append(args, strings.Fields(getenv("E2E_EXTRA_ARGS"))...), results
}

func runInCluster(cmd *cobra.Command, streams IOStreams) error {
	args, results := inClusterArgs(os.Getenv)
	if err := os.MkdirAll(results, 0o755); err != nil {
		return fmt.Errorf("making the results directory %s (mount a writable volume there): %w", results, err)
	}
	logFile, err := os.Create(filepath.Join(results, "e2e.log"))
	if err != nil {
		return err
	}
	defer logFile.Close()
	run := IOStreams{In: streams.In, Out: io.MultiWriter(streams.Out, logFile), ErrOut: io.MultiWriter(streams.ErrOut, logFile)}
	fmt.Fprintf(run.ErrOut, "skewcheck %s in-cluster: %s\n", version, strings.Join(args, " "))
	code := Run(args, run)
	// hydrophone and sonobuoy read JUnit by these names.
	if b, err := os.ReadFile(filepath.Join(results, report.JUnitFile)); err == nil {
		_ = os.WriteFile(filepath.Join(results, "junit_01.xml"), b, 0o644)
	}
	tarball, err := existing.PackResults(results, streams.Out)
	if err != nil {
		return err
	}
	if os.Getenv("SONOBUOY_RESULTS_DIR") != "" {
		if err := os.WriteFile(filepath.Join(results, "done"), []byte(tarball), 0o644); err != nil {
			return err
		}
	}
	if code != 0 {
		return exitError{code: code, err: fmt.Errorf("%s exited %d (the reports above say why)", args[0], code)}
	}
	return nil
}
