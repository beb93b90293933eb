package app

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/skewcheck/skewcheck/clusters/existing"
	"github.com/skewcheck/skewcheck/framework/report"
)

// Whatever the run did, its results directory ends as each reader expects it: hydrophone
// copies e2e.log and junit_01.xml out of it and fails without them; sonobuoy reads
// junit_01.xml from the tarball the done file names, and its worker waits out the plugin's
// timeout when no done file comes; certify unpacks the block in the log. A run that ended
// before its report (its flags refused, no cluster reached) gets a report in which each
// test that would have run failed, not run, saying why: sonobuoy takes a JUnit file with
// no failure for a pass.

// exitCodeFile holds the run's exit code, for a reader of the results alone.
const exitCodeFile = "exitcode"

// completeResults writes what the run left unwritten, the exit code and the JUnit copy.
// cause is why the run ended without a report, if it did.
func completeResults(p *inClusterPlan, code int, cause string) error {
	if !p.observe {
		if err := completeJUnit(p, code, cause); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(p.results, exitCodeFile), []byte(strconv.Itoa(code)+"\n"), 0o644)
}

func completeJUnit(p *inClusterPlan, code int, cause string) error {
	junit := filepath.Join(p.results, report.JUnitFile)
	_, err := os.Stat(junit)
	switch {
	case p.dryRun || errors.Is(err, fs.ErrNotExist) && code == 0: // listed (--list in E2E_EXTRA_ARGS), not run
		b, err := report.JUnit(listedReport(p))
		if err == nil {
			err = os.WriteFile(junit, b, 0o644)
		}
		if err != nil {
			return err
		}
	case errors.Is(err, fs.ErrNotExist):
		if _, err := report.Write(p.results, notRunReport(p, cause)); err != nil {
			return err
		}
	case err != nil:
		return err
	}
	b, err := os.ReadFile(junit)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(p.results, existing.JUnitCopy), b, 0o644)
}

// notRunReport is the report of a run that ended before its first test: each test it would
// have run failed, not run, or, with none known, the run itself.
func notRunReport(p *inClusterPlan, cause string) *report.Conformance {
	rep := &report.Conformance{APIVersion: "skewcheck.io/v1alpha1", Kind: "ConformanceReport", Date: time.Now().UTC(),
		SkewcheckVersion: version, Target: existing.ProviderName, ProfilesRequested: p.profiles}
	for _, t := range p.willRun {
		rep.Tests = append(rep.Tests, report.Test{ID: t.ID, Profile: t.Profile, Description: t.Description,
			Result: report.Failed, Failure: "not run: " + cause})
	}
	if len(rep.Tests) == 0 {
		rep.Tests = []report.Test{{ID: "IN-CLUSTER", Profile: "in-cluster", Description: "the run inside the cluster",
			Result: report.Failed, Failure: cause}}
	}
	report.Summarize(rep)
	return rep
}

// listedReport is the report of a run that listed its tests and ran none (E2E_DRYRUN):
// each, skipped.
func listedReport(p *inClusterPlan) *report.Conformance {
	rep := &report.Conformance{Date: time.Now().UTC(), ProfilesRequested: p.profiles}
	for _, t := range p.willRun {
		rep.Tests = append(rep.Tests, report.Test{ID: t.ID, Profile: t.Profile, Description: t.Description,
			Result: report.Skipped, SkipReason: "listed, not run (E2E_DRYRUN)", SkipKind: report.Deselected})
	}
	return rep
}

// writeDone writes sonobuoy's done file naming the tarball: its worker looks for it every
// second and sends the file it names 5 s after it appears (pkg/worker/worker.go,
// GatherResults), so it comes last, after the tarball, and whole (renamed into place).
func writeDone(dir, tarball string) error {
	tmp := filepath.Join(dir, ".done")
	if err := os.WriteFile(tmp, []byte(tarball), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, "done"))
}

// lastError remembers the last "error: ..." line written through it: why a run ended
// before its report, for the report that says so.
type lastError struct{ line string }

func (l *lastError) Write(p []byte) (int, error) {
	for line := range strings.Lines(string(p)) {
		if s, ok := strings.CutPrefix(line, "error: "); ok {
			l.line = strings.TrimSpace(s)
		}
	}
	return len(p), nil
}
