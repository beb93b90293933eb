package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/skewcheck/skewcheck/cmd/skewcheck/campaign"
	"github.com/skewcheck/skewcheck/framework/matrix"
	"github.com/skewcheck/skewcheck/framework/report"
	"github.com/skewcheck/skewcheck/internal/integration"
	"github.com/skewcheck/skewcheck/scenarios/upgrade"
)

// browserReportDir is where TestMorningPagesInChromium leaves the pages it opened and their
// screenshots: make's REPORT_DIR default, seen from this package's directory.
var browserReportDir = filepath.Join("..", "..", "_reports", "browser")

// TestMorningPagesInChromium opens what people look at after a night, as they do, in
// headless Chromium (Debian's chromium package): the night's index.html, a rolling
// upgrade's timeline.svg and a comparison of two runs (comparison.md, which a browser
// shows as text), each written by the report writers' own code from a small night. For
// each it takes a screenshot into _reports/browser/ and fails on a console error (a
// resource that did not load is one), an image that did not load or draws nothing, and a
// table without rows; and it checks that every job's row, with its verdict, is visible:
// each pair's profiles and upgrade, each other job, each compared test's verdict per run.
// The writers' tests check the markup; this checks what a browser makes of it. It runs in
// make soak only: it needs Chromium, and a browser's start is seconds make test keeps for
// clusters.
func TestMorningPagesInChromium(t *testing.T) {
	if !integration.Soak() {
		t.Skip("SKIPPED: make soak runs this, not make test (headless Chromium on the night's index.html, an upgrade's timeline.svg and a comparison; Chromium is a prerequisite of make soak only): run make soak, or set " + integration.HoldEnv)
	}
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("no chromium on PATH (%v): install Debian's package, as root: apt-get install -y chromium", err)
	}
	if err := os.RemoveAll(browserReportDir); err != nil {
		t.Fatal(err)
	}
	night, timeline, comparison := writeMorningPages(t, browserReportDir)

	alloc, cancel := chromedp.NewExecAllocator(context.Background(),
		append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.NoSandbox,
			chromedp.WindowSize(1400, 1000))...)
	defer cancel()

	t.Run("index.html", func(t *testing.T) {
		page := open(t, alloc, filepath.Join(browserReportDir, "night", "index.html"), "index.png")
		for _, p := range night.Pairs {
			cells := page.row(t, p.From+" + "+p.To)
			var want []string
			for _, pr := range p.Conformance.Profiles {
				want = append(want, fmt.Sprintf("%d passed, %d failed, %d skipped", pr.Passed, pr.Failed, pr.Skipped))
			}
			for _, h := range p.Upgrade.Hops {
				want = append(want, h.Verdict())
			}
			if !p.Upgrade.Ran {
				want = append(want, "not run: "+p.Upgrade.Error)
			}
			for _, w := range want {
				if !strings.Contains(strings.Join(cells, "\n"), w) {
					t.Errorf("the row of %s + %s shows %q: no verdict %q", p.From, p.To, cells, w)
				}
			}
		}
		for _, o := range night.Others {
			verdict := "passed"
			if !o.Passed {
				verdict = "failed: " + o.Error
			}
			if cells := page.row(t, o.ID); len(cells) < 2 || !strings.HasPrefix(cells[1], verdict) {
				t.Errorf("the row of %s shows %q: want the verdict %q", o.ID, cells, verdict)
			}
		}
		if page.SVGs == 0 {
			t.Error("the index shows no timeline: the upgrade's SVG is not inlined")
		}
	})
	t.Run("timeline.svg", func(t *testing.T) {
		page := open(t, alloc, filepath.Join(browserReportDir, "upgrade", "timeline.svg"), "timeline.png")
		if page.Root != "svg" || page.SVGs == 0 {
			t.Errorf("the timeline opens as %q with %d SVG drawn: want an SVG document (an XML error shows as a page of its own)", page.Root, page.SVGs)
		}
		for _, w := range []string{"hop 1, upgrade " + timeline.Hops[0].From + " → " + timeline.Hops[0].To, "Rolling restarts"} {
			if !strings.Contains(page.Text, w) {
				t.Errorf("the timeline shows no %q:\n%s", w, page.Text)
			}
		}
	})
	t.Run("comparison.md", func(t *testing.T) {
		page := open(t, alloc, filepath.Join(browserReportDir, "comparison.md"), "comparison.png")
		for _, r := range comparison.Rows {
			line := "| " + r.ID
			for _, run := range comparison.Runs {
				line += " | " + r.Results[run]
			}
			if !strings.Contains(page.Text, line+" |") {
				t.Errorf("the comparison shows no row %q:\n%s", line, page.Text)
			}
		}
	})
}

// shownPage is what the browser showed of a page, as a script in it read it.
type shownPage struct {
	Root string `json:"root"` // the document element's name: html, svg
	Text string `json:"text"` // what is visible as text
	// Rows are the visible rows of the page's tables, cell by cell.
	Rows [][]string `json:"rows"`
	// Hidden are rows of a table that take no room, or are hidden.
	Hidden []string `json:"hidden"`
	// EmptyTables are tables with a header and no row under it.
	EmptyTables int `json:"emptyTables"`
	// Broken are the images that did not load, or that draw nothing.
	Broken []string `json:"broken"`
	SVGs   int      `json:"svgs"` // the SVG drawings that take room
}

// row is the cells of the visible table row whose first cell is first.
func (p shownPage) row(t *testing.T, first string) []string {
	t.Helper()
	for _, r := range p.Rows {
		if len(r) > 0 && r[0] == first {
			return r
		}
	}
	t.Errorf("no visible row %q among %q (hidden: %q)", first, p.Rows, p.Hidden)
	return nil
}

// inspect reads the shown page: a row is visible when it takes room and no style hides
// it; an image is broken when it did not load or has no size, an SVG when it draws in no
// room.
const inspect = `(() => {
  const shown = el => { const r = el.getBoundingClientRect(), s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== "hidden" && s.display !== "none"; };
  const out = {root: document.documentElement.localName, text: document.documentElement.innerText ?? document.documentElement.textContent,
    rows: [], hidden: [], emptyTables: 0, broken: [], svgs: 0};
  for (const table of document.querySelectorAll("table")) {
    const rows = [...table.rows].filter(r => r.querySelector("td"));
    if (rows.length === 0) out.emptyTables++;
    for (const r of rows) {
      const cells = [...r.cells].map(c => c.innerText.trim());
      if (shown(r) && [...r.cells].every(shown)) out.rows.push(cells); else out.hidden.push(cells.join(" | "));
    }
  }
  for (const img of document.querySelectorAll("img")) {
    if (!img.complete || img.naturalWidth === 0) out.broken.push(img.src);
  }
  for (const svg of document.querySelectorAll("svg")) {
    const box = svg.getBBox();
    if (box.width > 0 && box.height > 0) out.svgs++; else out.broken.push("an SVG drawing nothing (" + (svg.id || svg.outerHTML.slice(0, 80)) + ")");
  }
  return out;
})()`

// open loads a file in a tab of its own, takes a screenshot of the whole page into
// browserReportDir, and fails the test on a console error, a broken image or an empty
// table; it returns what the page showed.
func open(t *testing.T, alloc context.Context, file, screenshot string) shownPage {
	t.Helper()
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	ctx, stop := context.WithTimeout(ctx, time.Minute)
	defer stop()
	// The console from before the page loads on: its own errors, and resources that failed.
	messages := chromedp.Console(ctx)
	var mu sync.Mutex
	var errs []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				mu.Lock()
				errs = append(errs, m.String()+" ("+m.URL+")")
				mu.Unlock()
			}
		}
	}()
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+abs)); err != nil {
		t.Fatalf("chromium opening %s: %v", abs, err)
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("a screenshot of %s: %v", abs, err)
	}
	shot := filepath.Join(browserReportDir, screenshot)
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	page, err := chromedp.Run(ctx, chromedp.Evaluate[shownPage](inspect))
	if err != nil {
		t.Fatalf("reading what %s shows: %v", abs, err)
	}
	cancel()
	<-done
	t.Logf("%s: screenshot %s", file, shot)
	mu.Lock()
	defer mu.Unlock()
	for _, e := range errs {
		t.Errorf("%s: console error: %s", file, e)
	}
	for _, b := range page.Broken {
		t.Errorf("%s: broken image: %s", file, b)
	}
	if page.EmptyTables > 0 {
		t.Errorf("%s: %d tables without a row", file, page.EmptyTables)
	}
	return page
}

// writeMorningPages writes a small night into dir as the night and the report commands
// write theirs: night/index.html (campaign.WriteNightly) with two pairs, one passed and
// one with a failed profile and an upgrade that did not run, and two other jobs, one
// failed; upgrade/timeline.svg, that of the first pair's upgrade and its rollback
// (upgrade.Result.SVG); comparison.md, upstream and the reference side by side
// (report.Compare).
func writeMorningPages(t *testing.T, dir string) (*matrix.Nightly, *upgrade.Result, report.Comparison) {
	t.Helper()
	const gone = "admissionregistration.k8s.io/v1/mutatingadmissionpolicies"
	r := &upgrade.Result{Path: []string{"v1.35.4", "v1.36.3", "v1.35.4"}, Window: 2, Duration: 80, Servers: 2, Seed: 3,
		Hops: []upgrade.Hop{{From: "v1.35.4", To: "v1.36.3", Direction: upgrade.Upgrade, Start: 10, End: 30},
			{From: "v1.36.3", To: "v1.35.4", Direction: upgrade.Downgrade, Start: 50, End: 70, Gone: []string{gone}}},
		Steps: []upgrade.Step{
			{Hop: 1, Server: "apiserver-1", From: "v1.35.4", To: "v1.36.3", Start: 10, Up: 14, End: 18},
			{Hop: 1, Server: "apiserver-2", From: "v1.35.4", To: "v1.36.3", Start: 20, Up: 24, End: 30},
			{Hop: 2, Server: "apiserver-1", From: "v1.36.3", To: "v1.35.4", Start: 50, Up: 54, End: 58},
			{Hop: 2, Server: "apiserver-2", From: "v1.36.3", To: "v1.35.4", Start: 60, Up: 64, End: 70}},
		ServedBy: map[string][]string{gone: {"v1.36.3"}},
		Events: []upgrade.Event{
			{T: 5, Server: "apiserver-1", Kind: "read", GVR: "core/v1/configmaps", Status: 200},
			{T: 22, Server: "apiserver-2", Kind: "read", GVR: gone, Status: 200},
			{T: 40, Server: "apiserver-1", Kind: "write", GVR: "core/v1/configmaps", Status: 201, Name: "w1"},
			{T: 62, Server: "apiserver-1", Kind: "read", GVR: gone, Status: 200},
			{T: 75, Server: "apiserver-2", Kind: "read", GVR: "core/v1/configmaps", Status: 200},
		}}
	upgrade.Classify(r)
	svg := r.SVG()
	if err := os.MkdirAll(filepath.Join(dir, "upgrade"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "upgrade", "timeline.svg"), []byte(svg), 0o644); err != nil {
		t.Fatal(err)
	}

	upstream := &report.Conformance{Seed: 7, Profiles: []report.Profile{{Name: "mvp", Passed: 2}, {Name: "discovery", Passed: 1}},
		Tests: []report.Test{{ID: "MVP-010", Profile: "mvp", Description: "a request is proxied to a server that serves it", Result: report.Passed},
			{ID: "MVP-043", Profile: "mvp", Description: "503 for a crashed peer", Result: report.Passed},
			{ID: "DISC-004", Profile: "discovery", Description: "peer-aggregated discovery", Result: report.Passed, KnownDeviation: "1.36: merged view lags"}}}
	reference := &report.Conformance{Seed: 7, Profiles: []report.Profile{{Name: "mvp", Passed: 1, Failed: 1, FailedTests: []string{"MVP-043"}}, {Name: "discovery", Passed: 1}},
		Tests: []report.Test{{ID: "MVP-010", Profile: "mvp", Description: "a request is proxied to a server that serves it", Result: report.Passed},
			{ID: "MVP-043", Profile: "mvp", Description: "503 for a crashed peer", Result: report.Failed, Failure: "404"},
			{ID: "DISC-004", Profile: "discovery", Description: "peer-aggregated discovery", Result: report.Passed}}}
	comparison := report.Compare([]string{"upstream", "reference"}, []*report.Conformance{upstream, reference})
	if err := os.WriteFile(filepath.Join(dir, "comparison.md"), []byte(comparison.Markdown()), 0o644); err != nil {
		t.Fatal(err)
	}

	n := &matrix.Nightly{Date: time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC), Versions: []string{"v1.35.4", "v1.36.3", "v1.37.2"}, Seed: 7, Duration: 3600,
		Pairs: []matrix.NightlyPair{
			{From: "v1.35.4", To: "v1.36.3", ConformanceDir: "v1.35.4-v1.36.3/conformance", Conformance: upstream,
				Upgrade: matrix.UpgradeRun{Ran: true, Passed: r.Passed(), Servers: r.Servers, Fault: "crash", Seconds: r.Duration, Timeline: svg, Dir: "v1.35.4-v1.36.3/upgrade",
					Hops: []matrix.UpgradeHop{{From: "v1.35.4", To: "v1.36.3", Direction: "upgrade", Mixed: 20},
						{From: "v1.36.3", To: "v1.35.4", Direction: "downgrade", Mixed: 20, Gone: []string{gone}}}}},
			{From: "v1.36.3", To: "v1.37.2", ConformanceDir: "v1.36.3-v1.37.2/conformance", Conformance: reference,
				Upgrade: matrix.UpgradeRun{Error: "the pair's binaries did not build", Dir: "v1.36.3-v1.37.2/upgrade"}},
		},
		Others: []matrix.NightlyRun{
			{ID: "v1.36.3-v1.37.2/emulation", What: matrix.JobEmulation, From: "v1.36.3", To: "v1.37.2", Dir: "v1.36.3-v1.37.2/emulation", Passed: true, Summary: "emulated and real agree"},
			{ID: "v1.36.3-v1.37.2/conformance-kind", What: matrix.JobProvider, From: "v1.36.3", To: "v1.37.2", Dir: "v1.36.3-v1.37.2/conformance-kind", Error: "kind node image missing"},
		}}
	if err := os.MkdirAll(filepath.Join(dir, "night"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := campaign.WriteNightly(filepath.Join(dir, "night"), n); err != nil {
		t.Fatalf("writing the night's pages: %v", err)
	}
	return n, r, comparison
}
