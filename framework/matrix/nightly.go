package matrix

import (
	"bytes"
	"fmt"
	"html/template"
	"path"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/semver"

	"github.com/skewcheck/skewcheck/framework/report"
)

// Nightly is one night of the version matrix: for each adjacent pair of versions, a
// rolling upgrade and its rollback (a rolling downgrade back to the older version), and the
// conformance profiles against the skewed pair. It is what a
// person reads in the morning (index.html) and what a job's exit code is made of.
type Nightly struct {
	Date     time.Time     `json:"date"`
	Versions []string      `json:"versions"`
	Seed     int64         `json:"seed"`
	Pairs    []NightlyPair `json:"pairs"`
	Duration float64       `json:"durationSeconds"`
	// Ranges is the closing line of RangesFile: the night's runs set against every test's
	// and known deviation's version range.
	Ranges string `json:"ranges,omitempty"`
	// Mutations are the night's families of the mutation matrix, on the newest pair.
	Mutations []NightlyMutation `json:"mutations,omitempty"`
	// Others are the night's runs on other providers, its emulated-vs-real comparisons, its
	// soak runs and its runs at the ranges' far ends.
	Others []NightlyRun `json:"others,omitempty"`
	// Shard is "i/n" when this is one shard's share of the night (Plan.Shard).
	Shard string `json:"shard,omitempty"`
	// Jobs are the plan's jobs this night ran, with where and how long: the next night's
	// plan reads their durations (NewPlan).
	Jobs []JobRun `json:"jobs,omitempty"`
	// Plan is the whole night's plan, every shard's share included, so that a merge of
	// shards knows what a shard that left nothing owed.
	Plan *Plan `json:"plan,omitempty"`
	// Missing are the jobs of the plan no shard ran (MergeNightlies), one line each, and
	// nothing else: each is a failure of the night.
	Missing []string `json:"missing,omitempty"`
	// Problems are what is wrong with the night beyond its jobs, one line each: shards
	// merged that ran with different seeds (MergeNightlies), so the night cannot be
	// replayed with one. Each is a failure of the night, though every job may have passed.
	Problems []string `json:"problems,omitempty"`
	// Machine is the host a shard ran on (empty in a merge: each of Jobs names its own),
	// also when the shard got no job to run.
	Machine string `json:"machine,omitempty"`
}

// NightlyMutation is what the index shows of one family of the night's mutation matrix.
type NightlyMutation struct {
	Family   string   `json:"family"`
	Dir      string   `json:"dir"` // relative to the index
	Summary  string   `json:"summary,omitempty"`
	Problems []string `json:"problems,omitempty"`
	// BaselineFailures are the matrix's own (Mutation.BaselineFailures): the page's first lines.
	BaselineFailures []string `json:"baselineFailures,omitempty"`
	// Error says why the matrix left no mutation.json.
	Error string `json:"error,omitempty"`
}

// NightlyRun is the outcome of a job the index shows in one line: the newest pair's
// default profiles on another provider, a pair's emulated-vs-real comparison or soak run,
// or a run at a far end of the ranges.
type NightlyRun struct {
	ID     string `json:"id"`
	What   string `json:"what"` // JobProvider, JobEmulation, JobSoak or JobRanges
	From   string `json:"from"`
	To     string `json:"to"`
	Dir    string `json:"dir"` // relative to the index
	Passed bool   `json:"passed"`
	// Summary is the run's own closing line; Error says why it failed or left no report.
	Summary string `json:"summary,omitempty"`
	Error   string `json:"error,omitempty"`
}

// RangesFile is the table of version ranges a nightly run writes beside index.html.
const RangesFile = "ranges.md"

// NightlyPair is one adjacent pair's runs. Paths are relative to the directory of the
// index, so the directory can be uploaded and browsed as it is.
type NightlyPair struct {
	From string `json:"from"`
	To   string `json:"to"`
	// Conformance is the report of the profiles against From+To, nil when the run wrote
	// none (ConformanceError says why).
	Conformance      *report.Conformance `json:"conformance,omitempty"`
	ConformanceDir   string              `json:"conformanceDir"`
	ConformanceError string              `json:"conformanceError,omitempty"`
	// ConformanceKnownDefect is the known upstream defect the conformance run named when it
	// ended without a report: not a failure of the target, and listed as such.
	ConformanceKnownDefect string `json:"conformanceKnownDefect,omitempty"`
	// ConformanceElsewhere: the run is another shard's job (Plan.Shard), not this one's.
	ConformanceElsewhere bool `json:"conformanceElsewhere,omitempty"`
	// ConformanceMissing: no shard ran it (MergeNightlies). Nightly.Missing lists it, so
	// Failures does not list it again; the row still shows it red, with why.
	ConformanceMissing bool       `json:"conformanceMissing,omitempty"`
	Upgrade            UpgradeRun `json:"upgrade"`
	Seconds            float64    `json:"durationSeconds"`
}

// PairRow is n's row of the pair from + to, made (in version order, both its parts
// another shard's until they are filled in) when it has none yet.
func (n *Nightly) PairRow(from, to string) *NightlyPair {
	for i := range n.Pairs {
		if n.Pairs[i].From == from && n.Pairs[i].To == to {
			return &n.Pairs[i]
		}
	}
	name := from + "-" + to
	n.Pairs = append(n.Pairs, NightlyPair{From: from, To: to, ConformanceDir: path.Join(name, "conformance"), ConformanceElsewhere: true,
		Upgrade: UpgradeRun{Dir: path.Join(name, "upgrade"), Elsewhere: true}})
	slices.SortStableFunc(n.Pairs, func(a, b NightlyPair) int {
		return slices.Index(n.Versions, a.From) - slices.Index(n.Versions, b.From)
	})
	return n.PairRow(from, to)
}

// UpgradeRun is what the index needs of a rolling upgrade's upgrade.json.
type UpgradeRun struct {
	Ran        bool     `json:"ran"`
	Passed     bool     `json:"passed"`
	Servers    int      `json:"servers"`
	Fault      string   `json:"fault,omitempty"`
	Violations []string `json:"violations,omitempty"`
	Seconds    float64  `json:"durationSeconds"`
	Dir        string   `json:"dir"`
	Timeline   string   `json:"timeline,omitempty"` // the SVG, inlined in the index
	Error      string   `json:"error,omitempty"`
	// Elsewhere: the upgrade is another shard's job (Plan.Shard), not this one's.
	Elsewhere bool `json:"elsewhere,omitempty"`
	// Missing: no shard ran it (MergeNightlies). Nightly.Missing lists it, so Failures
	// does not list it again; the row still shows it red, with why.
	Missing bool `json:"missing,omitempty"`
	// KnownDefect is the known upstream defect that ended the upgrade before it finished
	// (a 1.33 or 1.34 server's nil-pointer crash): listed, not counted as a failure.
	KnownDefect string `json:"knownDefect,omitempty"`
	// Hops are the run's rolling restarts, each way: the pair's upgrade, then its downgrade.
	Hops []UpgradeHop `json:"hops,omitempty"`
}

// Failures lists the night's failures, one line each: its problems (Problems), the jobs
// no shard ran (Missing), and every pair's failed or missing conformance run, failed
// profile, failed or missing upgrade. A job no shard ran is listed once, in Missing, not
// again as its pair's part. A run that a known upstream defect ended is not a failure of
// the night (KnownDefects lists it), as a known deviation is not a failure of a
// conformance run: the matrix would otherwise be red every night for a release nobody
// can fix any more.
func (n *Nightly) Failures() []string {
	out := slices.Concat(n.Problems, n.Missing)
	for _, p := range n.Pairs {
		pair := p.From + " + " + p.To
		switch {
		case p.ConformanceElsewhere, p.ConformanceMissing:
		case p.Conformance == nil && p.ConformanceKnownDefect != "":
		case p.Conformance == nil:
			out = append(out, fmt.Sprintf("%s conformance: no report: %s", pair, p.ConformanceError))
		default:
			for _, pr := range p.Conformance.Profiles {
				if pr.Failed > 0 {
					out = append(out, fmt.Sprintf("%s profile %s: %d failed (%s)", pair, pr.Name, pr.Failed, strings.Join(pr.FailedTests, ", ")))
				}
			}
		}
		switch {
		case p.Upgrade.Elsewhere, p.Upgrade.Missing:
		case !p.Upgrade.Ran && p.Upgrade.KnownDefect != "":
		case !p.Upgrade.Ran:
			out = append(out, fmt.Sprintf("%s upgrade: did not run: %s", pair, p.Upgrade.Error))
		case !p.Upgrade.Passed:
			out = append(out, fmt.Sprintf("%s upgrade: %d violations%s%s", pair, len(p.Upgrade.Violations), failedHops(p.Upgrade.Hops), firstOf(p.Upgrade.Violations, p.Upgrade.Error)))
		}
	}
	for _, r := range n.Others {
		if !r.Passed {
			out = append(out, fmt.Sprintf("%s: %s", r.ID, r.Error))
		}
	}
	for _, m := range n.Mutations {
		if m.Error != "" {
			out = append(out, "mutation matrix "+m.Family+": no matrix: "+m.Error)
		}
		for _, p := range m.Problems {
			out = append(out, "mutation matrix "+m.Family+": "+p)
		}
	}
	return out
}

// KnownDefects lists the runs a known upstream defect ended, one line each.
func (n *Nightly) KnownDefects() []string {
	var out []string
	for _, p := range n.Pairs {
		pair := p.From + " + " + p.To
		if p.Conformance == nil && p.ConformanceKnownDefect != "" {
			out = append(out, fmt.Sprintf("%s conformance: ended by a known upstream defect: %s", pair, p.ConformanceKnownDefect))
		}
		if !p.Upgrade.Ran && p.Upgrade.KnownDefect != "" {
			out = append(out, fmt.Sprintf("%s upgrade: ended by a known upstream defect: %s", pair, p.Upgrade.KnownDefect))
		}
	}
	return out
}

// UpgradeHop is one hop of a rolling upgrade run, either way.
type UpgradeHop struct {
	From       string  `json:"from"`
	To         string  `json:"to"`
	Direction  string  `json:"direction"` // upgrade or downgrade
	Violations int     `json:"violations"`
	Mixed      float64 `json:"mixedSeconds"` // the mixed window, first step's start to last step's end
	// Gone are the GVRs no server serves after the hop (a downgrade takes them away).
	Gone []string `json:"gone,omitempty"`
}

// Verdict is the hop's cell text.
func (h UpgradeHop) Verdict() string {
	v := "passed"
	if h.Violations > 0 {
		v = fmt.Sprintf("%d violations", h.Violations)
	}
	return fmt.Sprintf("%s %s → %s: %s", h.Direction, h.From, h.To, v)
}

// failedHops names the hops that had violations, " (downgrade v1.36.3 → v1.35.4: 2 violations)".
func failedHops(hops []UpgradeHop) string {
	var failed []string
	for _, h := range hops {
		if h.Violations > 0 {
			failed = append(failed, h.Verdict())
		}
	}
	if len(failed) == 0 {
		return ""
	}
	return " (" + strings.Join(failed, "; ") + ")"
}

func firstOf(v []string, fallback string) string {
	if len(v) > 0 {
		return ", first: " + v[0]
	}
	if fallback != "" {
		return ": " + fallback
	}
	return ""
}

// Prerelease names the pair's Kubernetes prereleases (v1.38.0-beta.0), "" when both
// are releases: the morning page marks such a row, since what it found holds for that
// build and the release may differ.
func (p NightlyPair) Prerelease() string {
	var pre []string
	for _, v := range []string{p.From, p.To} {
		if semver.Prerelease(v) != "" {
			pre = append(pre, v)
		}
	}
	return strings.Join(pre, ", ")
}

// Deviations counts the tests of a pair that passed only as a known upstream deviation.
func (p NightlyPair) Deviations() int {
	n := 0
	if p.Conformance != nil {
		for _, t := range p.Conformance.Tests {
			if t.KnownDeviation != "" {
				n++
			}
		}
	}
	return n
}

// Summary is the closing line of a night.
func (n *Nightly) Summary() string {
	f := n.Failures()
	verdict := "all passed"
	if len(f) > 0 {
		verdict = fmt.Sprintf("%d failures", len(f))
	}
	if k := len(n.KnownDefects()); k > 0 {
		verdict += fmt.Sprintf(", %d runs ended by a known upstream defect", k)
	}
	return fmt.Sprintf("nightly %s: %d pairs of %s, seed %d, %s in %s", n.Date.Format("2006-01-02"), len(n.Pairs),
		strings.Join(n.Versions, ", "), n.Seed, verdict, (time.Duration(n.Duration) * time.Second).String())
}

// HTML is the morning page: one row per pair, a cell per profile, the upgrade's verdict,
// its timeline inline, links to every report.
func (n *Nightly) HTML() ([]byte, error) {
	profiles := map[string]bool{}
	var names []string
	for _, p := range n.Pairs {
		if p.Conformance == nil {
			continue
		}
		for _, pr := range p.Conformance.Profiles {
			if !profiles[pr.Name] {
				profiles[pr.Name] = true
				names = append(names, pr.Name)
			}
		}
	}
	var b bytes.Buffer
	err := nightlyPage.Execute(&b, map[string]any{"N": n, "Profiles": names, "Failures": n.Failures(), "Known": n.KnownDefects(), "Summary": n.Summary()})
	return b.Bytes(), err
}

var nightlyPage = template.Must(template.New("nightly").Funcs(template.FuncMap{
	"profile": func(c *report.Conformance, name string) *report.Profile {
		if c == nil {
			return nil
		}
		for i := range c.Profiles {
			if c.Profiles[i].Name == name {
				return &c.Profiles[i]
			}
		}
		return nil
	},
	"svg":     func(s string) template.HTML { return template.HTML(s) }, // our own upgrade timeline
	"seconds": func(s float64) string { return (time.Duration(s) * time.Second).String() },
}).Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>skewcheck nightly {{.N.Date.Format "2006-01-02"}}</title>
<style>
body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}
.pass{background:#e6f4ea}.known{background:#fef7e0}.fail{background:#fce8e6}.none{background:#f1f3f4}svg{max-width:100%;height:auto}
</style></head><body>
<h1>skewcheck nightly, {{.N.Date.Format "2006-01-02 15:04 MST"}}</h1>
{{range .N.Mutations}}{{$m := .}}{{range .BaselineFailures}}<p class="fail"><strong>Mutation matrix {{$m.Family}}: {{.}}</strong></p>{{end}}{{end}}
<p>{{.Summary}}</p>
{{with .N.Ranges}}<p>Version ranges: {{.}} (<a href="ranges.md">ranges.md</a>)</p>{{end}}
{{range .N.Mutations}}<p>Mutation matrix {{.Family}}: {{if .Error}}no matrix: {{.Error}}{{else}}{{.Summary}}{{end}} (<a href="{{.Dir}}/mutation.md">mutation.md</a>)</p>{{end}}
{{if .Failures}}<h2>Failures</h2><ul>{{range .Failures}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .Known}}<h2>Ended by known upstream defects (not failures)</h2><ul>{{range .Known}}<li>{{.}}</li>{{end}}</ul>{{end}}
<table>
<tr><th>pair</th>{{range .Profiles}}<th>{{.}}</th>{{end}}<th>deviations</th><th>rolling upgrade and downgrade</th><th>seed</th><th>time</th><th>reports</th></tr>
{{range .N.Pairs}}{{$p := .}}<tr><td>{{.From}} + {{.To}}{{with .Prerelease}}<br><span class="known">prerelease: {{.}}</span>{{end}}</td>
{{range $.Profiles}}{{with profile $p.Conformance .}}<td class="{{if gt .Failed 0}}fail{{else}}pass{{end}}">{{.Passed}} passed, {{.Failed}} failed, {{.Skipped}} skipped</td>{{else}}{{if $p.ConformanceElsewhere}}<td class="none">another shard's</td>{{else}}<td class="fail">not run{{with $p.ConformanceError}}: {{.}}{{end}}</td>{{end}}{{end}}{{end}}
<td>{{.Deviations}}</td>
<td class="{{if .Upgrade.Elsewhere}}none{{else if .Upgrade.KnownDefect}}known{{else if not .Upgrade.Ran}}fail{{else if .Upgrade.Passed}}pass{{else}}fail{{end}}">{{if .Upgrade.Elsewhere}}another shard's{{else if .Upgrade.KnownDefect}}ended by a known upstream defect: {{.Upgrade.KnownDefect}}{{else if not .Upgrade.Ran}}not run: {{.Upgrade.Error}}{{else if .Upgrade.Hops}}{{range $i, $h := .Upgrade.Hops}}{{if $i}}; {{end}}{{$h.Verdict}}{{end}}{{else if .Upgrade.Passed}}passed{{else}}{{len .Upgrade.Violations}} violations{{end}}{{if .Upgrade.Ran}} ({{.Upgrade.Servers}} servers{{with .Upgrade.Fault}}, fault {{.}}{{end}}, {{seconds .Upgrade.Seconds}}){{end}}</td>
<td>{{with .Conformance}}{{.Seed}}{{end}}</td><td>{{seconds .Seconds}}</td>
<td><a href="{{.ConformanceDir}}/">conformance</a> (<a href="{{.ConformanceDir}}/conformance-report.yaml">yaml</a>, <a href="{{.ConformanceDir}}/junit.xml">junit</a>{{with .Conformance}}{{with .ArtifactsDir}}, <a href="{{$p.ConformanceDir}}/artifacts/">artifacts</a>{{end}}{{end}}), <a href="{{.Upgrade.Dir}}/upgrade.json">upgrade.json</a></td></tr>
{{end}}</table>
{{if .N.Others}}<h2>Other providers, emulation, soak and the ranges' far ends</h2><table><tr><th>job</th><th>verdict</th><th>report</th></tr>
{{range .N.Others}}<tr><td>{{.ID}}</td><td class="{{if .Passed}}pass{{else}}fail{{end}}">{{if .Passed}}passed{{else}}failed: {{.Error}}{{end}}{{with .Summary}} ({{.}}){{end}}</td><td><a href="{{.Dir}}/">{{.Dir}}</a></td></tr>
{{end}}</table>{{end}}
{{range .N.Pairs}}{{if .Upgrade.Timeline}}<h2>Rolling upgrade {{.From}} &rarr; {{.To}}{{if .Upgrade.Hops}} and back{{end}}</h2>
{{range $h := .Upgrade.Hops}}{{with $h.Gone}}<p>No server serves these after the {{$h.Direction}} {{$h.From}} &rarr; {{$h.To}} (404 from then on): {{range $i, $g := .}}{{if $i}}, {{end}}{{$g}}{{end}}</p>{{end}}{{end}}
{{if .Upgrade.Violations}}<ul>{{range .Upgrade.Violations}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{svg .Upgrade.Timeline}}{{end}}{{end}}
</body></html>
`))
