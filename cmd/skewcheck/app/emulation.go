//go:build !incluster

package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/mod/semver"

	"github.com/skewcheck/skewcheck/clusters/binaries"
	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/cmd/skewcheck/campaign"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/matrix"
	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/suites"
)

// emulationOptions say which pair to compare with its emulation, and how to run both.
type emulationOptions struct {
	versions    []string
	profiles    []string
	focus, skip string
	seed        int64
	hold        time.Duration
	reportDir   string
	bin         binaries.Options
}

func newEmulationCommand(streams IOStreams) *cobra.Command {
	var o emulationOptions
	cmd := &cobra.Command{
		Use:   "emulation",
		Short: "Does a CI that emulates the older release (--emulated-version) predict real skew? Both pairs side by side",
		Long: `Runs the conformance profiles twice, each as its own skewcheck conformance process on a local
cluster of its own, one after the other:
  - real:     the older and the newer kube-apiserver of --versions;
  - emulated: the newer binary twice, the first started with --emulated-version of the
              older release (KEP-4330: its APIs and feature-gate defaults, the binary's code).
Both get the same skew as a default conformance run (batch/v1 off on the first server,
autoscaling/v2 on the second) and the same seed, so the tests run in the same order.
Then it prints one row per test with both results, and for each row that differs, why:
what each run saw, whether a test's or known deviation's version range parts the older
release from the newer binary (an emulating server runs, and is judged by, its binary's
code), and which GVRs the two pairs served differently. Written to --report-dir as
emulation.md and emulation.json, beside each run's own report (real/, emulated/).

Exit code: 0 when every test agrees and both runs passed; 1 when a test's result differs
between the pairs (emulation did not predict real skew), a run failed a test, or a run
could not be made; 2 when the pairs agree and nothing failed but tests that apply could
not run in either (incomplete, as for conformance).`,
		Example: "  skewcheck emulation --versions v1.35.4,v1.36.3\n" +
			"  skewcheck emulation --versions v1.35.4,v1.36.3 --profiles mvp,discovery,chaos --fault-hold 20s --report-dir _reports/emulation",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runEmulation(ctx, streams, o)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&o.versions, "versions", []string{"v1.35.4", "v1.36.3"}, "the real pair, older first; the newer binary emulates the older's minor release (at most three minors back, 1.31 or later)")
	f.StringSliceVar(&o.profiles, "profiles", suites.PeerProfiles, "profiles both pairs run (default: every profile about what apiservers do for one another)")
	f.StringVar(&o.focus, "focus", "", "run only tests whose \"[ID] description\" matches this regular expression, on both pairs")
	f.StringVar(&o.skip, "skip", "", "skip tests whose \"[ID] description\" matches this regular expression, on both pairs")
	f.Int64Var(&o.seed, "seed", 0, "random seed of both runs (0: from the clock); in both reports")
	f.DurationVar(&o.hold, "fault-hold", 0, "how long the chaos profile holds a silent fault past its first 503 (0: conformance's default)")
	f.StringVar(&o.reportDir, "report-dir", "_reports/emulation", "where both runs' reports and the comparison go")
	addBinaryFlags(cmd, &o.bin)
	return cmd
}

func runEmulation(ctx context.Context, streams IOStreams, o emulationOptions) error {
	if len(o.versions) != 2 {
		return fmt.Errorf("--versions %s: want the real pair, older first, e.g. v1.35.4,v1.36.3", strings.Join(o.versions, ","))
	}
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding skewcheck's own binary to run each pair: %w", err)
	}
	older, newer, err := resolvePair(ctx, o.versions)
	if err != nil {
		return err
	}
	emulate := strings.TrimPrefix(semver.MajorMinor(older), "v")
	if err := local.CheckEmulation(newer, emulate); err != nil {
		return fmt.Errorf("--versions %s: %w; choose a newer binary at most three minor releases after the older", strings.Join(o.versions, ","), err)
	}
	// Both binaries first, one at a time: a build already uses both cores, and a failed
	// build should end the command before any cluster starts.
	o.bin.Progress = streams.ErrOut
	for _, v := range []string{older, newer} {
		if _, err := binaries.Ensure(ctx, binaries.KubeAPIServer, v, o.bin); err != nil {
			return err
		}
	}
	o.seed = framework.SeedOrClock(o.seed)
	if err := os.MkdirAll(o.reportDir, 0o755); err != nil {
		return err
	}
	runs := []struct{ name, versions, emulation string }{
		{matrix.RealPair, older + "," + newer, ""},
		{matrix.EmulatedPair, newer + "," + newer, emulate},
	}
	reports := map[string]*report.Conformance{}
	for _, r := range runs {
		rep, err := runEmulationPair(ctx, streams.ErrOut, self, o, r.name, r.versions, r.emulation)
		if err != nil {
			return err
		}
		reports[r.name] = rep
	}
	e := matrix.CompareEmulation(suites.All(), reports[matrix.RealPair], reports[matrix.EmulatedPair])
	md := e.Markdown()
	fmt.Fprint(streams.Out, md)
	if err := writeEmulation(o.reportDir, e, md); err != nil {
		return err
	}
	fmt.Fprintf(streams.Out, "comparison: %s; reports: %s, %s\n", filepath.Join(o.reportDir, matrix.EmulationFile),
		filepath.Join(o.reportDir, matrix.RealPair), filepath.Join(o.reportDir, matrix.EmulatedPair))
	return emulationVerdict(e, reports[matrix.RealPair], reports[matrix.EmulatedPair], o.seed)
}

// resolvePair resolves the pair's versions (a minor means its newest patch release), older first.
func resolvePair(ctx context.Context, versions []string) (older, newer string, err error) {
	if older, err = binaries.Resolve(ctx, versions[0]); err != nil {
		return "", "", err
	}
	if newer, err = binaries.Resolve(ctx, versions[1]); err != nil {
		return "", "", err
	}
	if semver.Compare(semver.MajorMinor(older), semver.MajorMinor(newer)) >= 0 {
		return "", "", fmt.Errorf("--versions %s: want an older release, then a newer one (%s is not older than %s)", strings.Join(versions, ","), older, newer)
	}
	return older, newer, nil
}

// runEmulationPair runs the conformance profiles against one pair as a child skewcheck,
// and reads back its report. A child that fails a test still leaves a report: only a run
// that left none is an error here.
func runEmulationPair(ctx context.Context, log io.Writer, self string, o emulationOptions, name, versions, emulation string) (*report.Conformance, error) {
	dir := filepath.Join(o.reportDir, name)
	os.Remove(filepath.Join(dir, report.JSONFile)) // an earlier run's report must not stand in for this one's
	args := []string{"conformance", "--versions", versions, "--profiles", strings.Join(o.profiles, ","),
		"--seed", strconv.FormatInt(o.seed, 10), "--report-dir", dir}
	if emulation != "" {
		// conformance still gives the pair its default skew: an emulated version is no skew of one's own.
		args = append(args, "--server-flag", "1=--emulated-version="+emulation)
	}
	if o.focus != "" {
		args = append(args, "--focus", o.focus)
	}
	if o.skip != "" {
		args = append(args, "--skip", o.skip)
	}
	if o.hold > 0 {
		args = append(args, "--fault-hold", o.hold.String())
	}
	args = append(args, campaign.ChildBinaryFlags(o.bin)...)
	fmt.Fprintf(log, "== emulation: %s pair (%s%s): conformance %s\n", name, versions, emulatedNote(emulation), strings.Join(o.profiles, ","))
	_, err := campaign.RunChild(ctx, log, self, "["+name+"] ", strings.Split(versions, ","), args)
	rep, rerr := report.Read(filepath.Join(dir, report.JSONFile))
	if rerr != nil {
		return nil, fmt.Errorf("the %s pair's run left no report (%v): %v", name, err, rerr)
	}
	return rep, nil
}

func emulatedNote(emulation string) string {
	if emulation == "" {
		return ""
	}
	return ", the first emulating " + emulation
}

func writeEmulation(dir string, e matrix.Emulation, md string) error {
	b, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, matrix.EmulationJSONFile), b, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, matrix.EmulationFile), []byte(md), 0o644)
}

// emulationVerdict is the command's outcome, as conformance's: a difference or a failure
// exits 1, an incomplete run 2.
func emulationVerdict(e matrix.Emulation, real, emulated *report.Conformance, seed int64) error {
	if d := e.Differing(); len(d) > 0 {
		return fmt.Errorf("emulation did not predict the real skew: %d of %d tests differ, %s (the table says why; replay with --seed %d)", len(d), len(e.Rows), strings.Join(d, ", "), seed)
	}
	if real.Verdict() == report.VerdictFailed || emulated.Verdict() == report.VerdictFailed {
		return fmt.Errorf("both pairs agree, but a test failed on both: %s (emulation predicted the failure; see each run's report)", failingProfiles(real))
	}
	if real.Verdict() == report.VerdictIncomplete || emulated.Verdict() == report.VerdictIncomplete {
		return exitError{code: exitIncomplete, err: fmt.Errorf("incomplete: the pairs agree and nothing failed, but tests that apply could not run (NOT TESTED in each run's output)")}
	}
	return nil
}
