package app

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

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
//   - skewcheck certify: every report between two marker lines of its log, so it needs no
//     exec into the pod (a FROM scratch image has no tar).
const (
	hydrophoneResults = "/tmp/results"
	resultsBegin      = "=== skewcheck results (tar.gz, base64) ==="
	resultsEnd        = "=== end of skewcheck results ==="
)

func newInClusterCommand(streams IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "in-cluster",
		Short: "The entrypoint of skewcheck's image: run the conformance profiles from inside the cluster under test",
		Long: `Runs skewcheck conformance --in-cluster: the pod's ServiceAccount finds every apiserver of the
cluster it runs in (default/kubernetes), and the run keeps to its own namespace as with
--kubeconfig. The environment chooses the run:

  SKEWCHECK_PROFILES   profiles (default: ` + strings.Join(suites.DefaultProfiles, ",") + `)
  E2E_FOCUS, E2E_SKIP  --focus and --skip (hydrophone's names)
  E2E_EXTRA_ARGS       more conformance flags, space-separated (e.g. --upstream)
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
	archive, err := tarGz(results)
	if err != nil {
		return err
	}
	tarball := filepath.Join(results, "results.tar.gz")
	if err := os.WriteFile(tarball, archive, 0o644); err != nil {
		return err
	}
	if os.Getenv("SONOBUOY_RESULTS_DIR") != "" {
		if err := os.WriteFile(filepath.Join(results, "done"), []byte(tarball), 0o644); err != nil {
			return err
		}
	}
	fmt.Fprint(streams.Out, resultsBegin+"\n"+encodeLines(archive)+resultsEnd+"\n")
	if code != 0 {
		return exitError{code: code, err: fmt.Errorf("conformance exited %d (the reports above say why)", code)}
	}
	return nil
}

// encodeLines is b in base64, in lines of 76 characters, each ending in a newline.
func encodeLines(b []byte) string {
	var out strings.Builder
	for s := base64.StdEncoding.EncodeToString(b); len(s) > 0; {
		n := min(len(s), 76)
		out.WriteString(s[:n] + "\n")
		s = s[n:]
	}
	return out.String()
}

// tarGz packs the regular files of dir (not below it) into a gzipped tar.
func tarGz(dir string) ([]byte, error) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || e.Name() == "results.tar.gz" || e.Name() == "done" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		if err := tw.WriteHeader(&tar.Header{Name: e.Name(), Mode: 0o644, Size: int64(len(b))}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(b); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// untarResults finds the results between the markers of a pod's log and unpacks them
// into dir, returning the names written.
func untarResults(log []byte, dir string) ([]string, error) {
	s := string(log)
	i := strings.LastIndex(s, resultsBegin)
	j := strings.LastIndex(s, resultsEnd)
	if i < 0 || j < i {
		return nil, fmt.Errorf("the pod's log holds no results (no %q line): the run did not finish", resultsBegin)
	}
	archive, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(s[i+len(resultsBegin):j]), ""))
	if err != nil {
		return nil, fmt.Errorf("decoding the results in the pod's log: %w", err)
	}
	gz, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(gz)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names, nil
		}
		if err != nil {
			return nil, err
		}
		name := filepath.Base(h.Name) // never outside dir
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		_, err = io.Copy(f, io.LimitReader(tr, 64<<20))
		f.Close()
		if err != nil {
			return nil, err
		}
		names = append(names, name)
	}
}
