package campaign

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/semver"

	"github.com/skewcheck/skewcheck/clusters/binaries"
	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/matrix"
	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/suites"
)

// EmulationOptions say which pair to compare with its emulation, and how to run both.
type EmulationOptions struct {
	// Versions are the real pair, older first.
	Versions    []string
	Profiles    []string
	Focus, Skip string
	Seed        int64 // 0: from the clock
	// Hold is how long the chaos profile holds a silent fault past its first 503 (0:
	// conformance's default).
	Hold      time.Duration
	ReportDir string
	Binaries  binaries.Options
	// Self is the skewcheck binary each pair's run is.
	Self string
}

// Emulation runs the conformance profiles against the real pair, then against the newer
// binary twice, the first emulating the older release, each as a child skewcheck; writes
// the comparison to out and o.ReportDir, the runs' progress to log; and ends with the
// verdict (EmulationVerdict).
func Emulation(ctx context.Context, o EmulationOptions, out, log io.Writer) error {
	if len(o.Versions) != 2 {
		return fmt.Errorf("--versions %s: want the real pair, older first, e.g. v1.35.4,v1.36.3", strings.Join(o.Versions, ","))
	}
	older, newer, err := resolvePair(ctx, o.Versions)
	if err != nil {
		return err
	}
	emulate := strings.TrimPrefix(semver.MajorMinor(older), "v")
	if err := local.CheckEmulation(newer, emulate); err != nil {
		return fmt.Errorf("--versions %s: %w; choose a newer binary at most three minor releases after the older", strings.Join(o.Versions, ","), err)
	}
	// Both binaries first, one at a time: a build already uses both cores, and a failed
	// build should end the command before any cluster starts.
	o.Binaries.Progress = log
	for _, v := range []string{older, newer} {
		if _, err := binaries.Ensure(ctx, binaries.KubeAPIServer, v, o.Binaries); err != nil {
			return err
		}
	}
	o.Seed = framework.SeedOrClock(o.Seed)
	if err := os.MkdirAll(o.ReportDir, 0o755); err != nil {
		return err
	}
	runs := []struct{ name, versions, emulation string }{
		{matrix.RealPair, older + "," + newer, ""},
		{matrix.EmulatedPair, newer + "," + newer, emulate},
	}
	reports := map[string]*report.Conformance{}
	for _, r := range runs {
		rep, err := runEmulationPair(ctx, log, o, r.name, r.versions, r.emulation)
		if err != nil {
			return err
		}
		reports[r.name] = rep
	}
	e := matrix.CompareEmulation(suites.All(), reports[matrix.RealPair], reports[matrix.EmulatedPair])
	md := e.Markdown()
	fmt.Fprint(out, md)
	if err := WriteEmulation(o.ReportDir, e, md); err != nil {
		return err
	}
	fmt.Fprintf(out, "comparison: %s; reports: %s, %s\n", filepath.Join(o.ReportDir, matrix.EmulationFile),
		filepath.Join(o.ReportDir, matrix.RealPair), filepath.Join(o.ReportDir, matrix.EmulatedPair))
	return EmulationVerdict(e, reports[matrix.RealPair], reports[matrix.EmulatedPair], o.Seed)
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
func runEmulationPair(ctx context.Context, log io.Writer, o EmulationOptions, name, versions, emulation string) (*report.Conformance, error) {
	dir := filepath.Join(o.ReportDir, name)
	os.Remove(filepath.Join(dir, report.JSONFile)) // an earlier run's report must not stand in for this one's
	args := []string{"conformance", "--versions", versions, "--profiles", strings.Join(o.Profiles, ","),
		"--seed", strconv.FormatInt(o.Seed, 10), "--report-dir", dir}
	if emulation != "" {
		// conformance still gives the pair its default skew: an emulated version is no skew of one's own.
		args = append(args, "--server-flag", "1=--emulated-version="+emulation)
	}
	if o.Focus != "" {
		args = append(args, "--focus", o.Focus)
	}
	if o.Skip != "" {
		args = append(args, "--skip", o.Skip)
	}
	if o.Hold > 0 {
		args = append(args, "--fault-hold", o.Hold.String())
	}
	args = append(args, childBinaryFlags(o.Binaries)...)
	fmt.Fprintf(log, "== emulation: %s pair (%s%s): conformance %s\n", name, versions, emulatedNote(emulation), strings.Join(o.Profiles, ","))
	_, err := runChild(ctx, log, o.Self, "["+name+"] ", strings.Split(versions, ","), args)
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
