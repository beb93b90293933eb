package matrix

import (
	"strings"
	"testing"
	"time"

	"github.com/skewcheck/skewcheck/framework/report"
)

func TestNightlyFailuresAndPage(t *testing.T) {
	n := &Nightly{Date: time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC), Versions: []string{"v1.34.4", "v1.35.4", "v1.36.3"}, Seed: 42, Duration: 3600,
		Pairs: []NightlyPair{
			{From: "v1.34.4", To: "v1.35.4", ConformanceDir: "v1.34.4-v1.35.4/conformance",
				Conformance: &report.Conformance{Seed: 42, Profiles: []report.Profile{{Name: "mvp", Passed: 20}, {Name: "chaos", Passed: 4, Failed: 1, FailedTests: []string{"CHAOS-002"}}},
					Tests: []report.Test{{ID: "MVP-045", KnownDeviation: "identity lost on upgrade"}}},
				Upgrade: UpgradeRun{Ran: true, Passed: true, Servers: 3, Fault: "crash", Timeline: "<svg id=\"t1\"></svg>", Dir: "v1.34.4-v1.35.4/upgrade"}},
			{From: "v1.35.4", To: "v1.36.3", ConformanceError: "exit status 1; no such file",
				Upgrade: UpgradeRun{Ran: true, Violations: []string{"404 outside a window <at 3s>"}, Timeline: "<svg id=\"t2\"></svg>",
					Hops: []UpgradeHop{{From: "v1.35.4", To: "v1.36.3", Direction: "upgrade"},
						{From: "v1.36.3", To: "v1.35.4", Direction: "downgrade", Violations: 1, Gone: []string{"admissionregistration.k8s.io/v1/mutatingadmissionpolicies"}}}}},
		}}
	f := n.Failures()
	want := []string{"v1.34.4 + v1.35.4 profile chaos: 1 failed (CHAOS-002)", "v1.35.4 + v1.36.3 conformance: no report",
		"v1.35.4 + v1.36.3 upgrade: 1 violations (downgrade v1.36.3 → v1.35.4: 1 violations), first: 404 outside"}
	if len(f) != len(want) {
		t.Fatalf("failures %q, want %d", f, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(f[i], w) {
			t.Errorf("failure %d is %q, want it to begin %q", i, f[i], w)
		}
	}
	if s := n.Summary(); !strings.Contains(s, "2 pairs") || !strings.Contains(s, "3 failures") || !strings.Contains(s, "seed 42") {
		t.Errorf("summary %q", s)
	}
	page, err := n.HTML()
	if err != nil {
		t.Fatal(err)
	}
	html := string(page)
	for _, w := range []string{`<svg id="t1"></svg>`, "20 passed, 0 failed", "4 passed, 1 failed", `class="fail">not run: exit status 1; no such file`, "&lt;at 3s&gt;", "v1.34.4-v1.35.4/conformance/junit.xml", "<td>1</td>",
		"upgrade v1.35.4 → v1.36.3: passed; downgrade v1.36.3 → v1.35.4: 1 violations", "Rolling upgrade v1.35.4 &rarr; v1.36.3 and back",
		"No server serves these after the downgrade v1.36.3 &rarr; v1.35.4 (404 from then on): admissionregistration.k8s.io/v1/mutatingadmissionpolicies"} {
		if !strings.Contains(html, w) {
			t.Errorf("index.html lacks %q", w)
		}
	}
}

// A run that a known upstream defect ended is listed as such, in the page and the summary,
// and does not fail the night; the same run without a named defect does.
func TestNightlyKnownDefectIsNotAFailure(t *testing.T) {
	defect := "kube-apiserver 1.33 and 1.34 crash (nil pointer) when a registered peer cannot be reached"
	pair := NightlyPair{From: "v1.33.13", To: "v1.34.4", Conformance: &report.Conformance{Profiles: []report.Profile{{Name: "mvp", Passed: 21}}},
		Upgrade: UpgradeRun{Error: "no upgrade.json (exit status 1)", KnownDefect: defect}}
	n := &Nightly{Date: time.Date(2026, 11, 23, 3, 0, 0, 0, time.UTC), Seed: 11, Pairs: []NightlyPair{pair},
		Ranges: "20 of 70 ranges exercised on both sides, 0 contradicted"}
	if f := n.Failures(); len(f) != 0 {
		t.Errorf("failures %q, want none: a known upstream defect ended the upgrade", f)
	}
	if k := n.KnownDefects(); len(k) != 1 || !strings.Contains(k[0], "v1.33.13 + v1.34.4 upgrade: ended by a known upstream defect: "+defect) {
		t.Errorf("known defects %q", k)
	}
	if s := n.Summary(); !strings.Contains(s, "all passed, 1 runs ended by a known upstream defect") {
		t.Errorf("summary %q", s)
	}
	page, err := n.HTML()
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`class="known">ended by a known upstream defect: kube-apiserver 1.33`, "Ended by known upstream defects (not failures)",
		`Version ranges: 20 of 70 ranges exercised on both sides, 0 contradicted (<a href="ranges.md">ranges.md</a>)`} {
		if !strings.Contains(string(page), w) {
			t.Errorf("index.html lacks %q", w)
		}
	}

	pair.Upgrade.KnownDefect = ""
	n.Pairs = []NightlyPair{pair}
	if f := n.Failures(); len(f) != 1 || !strings.HasPrefix(f[0], "v1.33.13 + v1.34.4 upgrade: did not run") {
		t.Errorf("failures %q, want the upgrade that did not run", f)
	}
}

// The night's mutation matrix shows in the page, and its problems fail the night.
func TestNightlyMutation(t *testing.T) {
	n := &Nightly{Date: time.Date(2026, 11, 24, 3, 0, 0, 0, time.UTC), Seed: 7,
		Mutations: []NightlyMutation{{Family: "gateway", Dir: "mutation/gateway", Summary: "mutation matrix 2026-11-24: 26 tests, 27 mutants",
			Problems: []string{"mutant gateway/go-transport: no test catches it"}}}}
	if f := n.Failures(); len(f) != 1 || f[0] != "mutation matrix gateway: mutant gateway/go-transport: no test catches it" {
		t.Errorf("failures %q", f)
	}
	page, err := n.HTML()
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"Mutation matrix gateway: mutation matrix 2026-11-24: 26 tests, 27 mutants", `href="mutation/gateway/mutation.md"`} {
		if !strings.Contains(string(page), w) {
			t.Errorf("index.html lacks %q", w)
		}
	}
	n.Mutations = []NightlyMutation{{Family: "peerproxy", Dir: "mutation/peerproxy", Error: "exit status 1; no mutation.json"}}
	if f := n.Failures(); len(f) != 1 || !strings.Contains(f[0], "peerproxy: no matrix: exit status 1") {
		t.Errorf("failures %q", f)
	}
}

// A pair with a Kubernetes prerelease says so in its row; a pair of releases does not.
func TestNightlyMarksAPrereleasePair(t *testing.T) {
	n := &Nightly{Date: time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC), Versions: []string{"v1.36.3", "v1.37.2", "v1.38.0-beta.0"},
		Pairs: []NightlyPair{{From: "v1.36.3", To: "v1.37.2"}, {From: "v1.37.2", To: "v1.38.0-beta.0"}}}
	page, err := n.HTML()
	if err != nil {
		t.Fatal(err)
	}
	html := string(page)
	if got := strings.Count(html, "prerelease: "); got != 1 || !strings.Contains(html, `v1.37.2 + v1.38.0-beta.0<br><span class="known">prerelease: v1.38.0-beta.0</span>`) {
		t.Errorf("want the 1.37/1.38 row alone marked as a prerelease (%d marks):\n%s", got, html)
	}
}
