package campaign

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/framework/matrix"
	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/scenarios/upgrade"
)

// A pair's conformance run and its rolling upgrade fill in the pair's row of the page
// (made when the pair's first job runs).
func init() {
	registerJobKind(matrix.JobConformance, func(ctx context.Context, n *night, j matrix.Job) {
		pairConformance(ctx, n, n.page.PairRow(j.From, j.To))
	})
	registerJobKind(matrix.JobUpgrade, func(ctx context.Context, n *night, j matrix.Job) {
		pairUpgrade(ctx, n, n.page.PairRow(j.From, j.To))
	})
}

// pairConformance runs the conformance profiles against one pair as a child skewcheck,
// so one pair's crash cannot take the night down with it.
func pairConformance(ctx context.Context, n *night, p *matrix.NightlyPair) {
	began := time.Now()
	name := p.From + "-" + p.To
	fmt.Fprintf(n.log, "== nightly: %s + %s: conformance %s\n", p.From, p.To, strings.Join(n.Profiles, ","))
	cdir := filepath.Join(n.ReportDir, p.ConformanceDir)
	args := append(append([]string{"conformance"}, serverArgs(clusters.HighlyAvailable(p.From, p.To))...), "--profiles", strings.Join(n.Profiles, ","),
		"--seed", strconv.FormatInt(n.Seed, 10), "--report-dir", cdir)
	if n.ControllerManager != "" {
		args = append(args, "--controller-manager", n.ControllerManager)
	}
	defect, err := runChild(ctx, n.log, n.Self, "["+name+" conformance] ", []string{p.From, p.To}, append(args, childBinaryFlags(n.Binaries)...))
	p.ConformanceElsewhere = false
	if c, rerr := report.Read(filepath.Join(cdir, report.JSONFile)); rerr == nil {
		p.Conformance = c
	} else {
		p.ConformanceError = fmt.Sprintf("%v; %v", err, rerr)
		p.ConformanceKnownDefect = defect
	}
	p.Seconds += time.Since(began).Seconds()
}

// pairUpgrade runs one pair's rolling upgrade and downgrade as a child skewcheck.
func pairUpgrade(ctx context.Context, n *night, p *matrix.NightlyPair) {
	began := time.Now()
	name := p.From + "-" + p.To
	fmt.Fprintf(n.log, "== nightly: %s -> %s -> %s: rolling upgrade and downgrade of %d servers\n", p.From, p.To, p.From, n.Servers)
	p.Upgrade = matrix.UpgradeRun{Dir: p.Upgrade.Dir, Servers: n.Servers, Fault: n.Fault}
	udir := filepath.Join(n.ReportDir, p.Upgrade.Dir)
	os.Remove(filepath.Join(udir, "upgrade.json")) // an earlier night's run must not stand in for this one's
	args := []string{"upgrade", "--path", strings.Join([]string{p.From, p.To, p.From}, ","), "--servers", strconv.Itoa(n.Servers),
		"--seed", strconv.FormatInt(n.Seed, 10), "--report-dir", udir}
	if n.Fault != "" {
		args = append(args, "--fault", n.Fault)
	}
	defect, err := runChild(ctx, n.log, n.Self, "["+name+" upgrade] ", []string{p.From, p.To}, append(args, childBinaryFlags(n.Binaries)...))
	p.Upgrade = readUpgrade(p.Upgrade, udir, err)
	if !p.Upgrade.Ran {
		p.Upgrade.KnownDefect = defect
	}
	p.Seconds += time.Since(began).Seconds()
}

// readUpgrade fills in what the index shows of a rolling upgrade from its upgrade.json.
func readUpgrade(u matrix.UpgradeRun, dir string, runErr error) matrix.UpgradeRun {
	b, err := os.ReadFile(filepath.Join(dir, "upgrade.json"))
	if err != nil {
		u.Error = fmt.Sprintf("no upgrade.json (%v)", runErr)
		return u
	}
	var r upgrade.Result
	if err := json.Unmarshal(b, &r); err != nil {
		u.Error = fmt.Sprintf("upgrade.json: %v", err)
		return u
	}
	u.Ran, u.Passed, u.Violations, u.Seconds = true, r.Passed(), r.Violations, r.Duration
	for _, h := range r.Hops {
		u.Hops = append(u.Hops, matrix.UpgradeHop{From: h.From, To: h.To, Direction: h.Direction,
			Violations: len(h.Violations), Mixed: h.End - h.Start, Gone: h.Gone})
	}
	if svg, err := os.ReadFile(filepath.Join(dir, "timeline.svg")); err == nil {
		u.Timeline = string(svg)
	}
	return u
}
