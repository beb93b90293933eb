package framework

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	gtypes "github.com/onsi/ginkgo/v2/types"
	"github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework/report"
)

// RunOptions say what to run and how to label the report.
type RunOptions struct {
	Profiles         []string
	Focus, Skip      string // regular expressions on "[ID] description"
	Seed             int64  // ginkgo's random seed; 0 picks one from the clock
	ReportDir        string
	Implementation   report.Implementation
	SkewcheckVersion string
	Verbose          bool
	// AcceptMissing are features the user accepts the target lacks: a test skipped for
	// lacking one of them is reported so and does not make the run incomplete.
	AcceptMissing []Feature
}

// Select returns the tests of the given profiles, in registry order.
func Select(tests []Test, profiles []string) ([]Test, error) {
	known := map[string]bool{}
	for _, t := range tests {
		known[t.Profile] = true
	}
	want := map[string]bool{}
	for _, p := range profiles {
		if !known[p] {
			var names []string
			for k := range known {
				names = append(names, k)
			}
			sort.Strings(names)
			return nil, fmt.Errorf("unknown profile %q: the profiles are %s", p, strings.Join(names, ", "))
		}
		want[p] = true
	}
	var out []Test
	for _, t := range tests {
		if want[t.Profile] {
			out = append(out, t)
		}
	}
	return out, nil
}

// Run runs the tests of opts.Profiles (every test given, when none are named) against env's
// target with ginkgo and returns the conformance report. Ginkgo allows one run per process:
// the CLI and each suite test binary call it once.
func Run(t ginkgo.GinkgoTestingT, env *Env, tests []Test, opts RunOptions) *report.Conformance {
	if len(opts.Profiles) > 0 {
		var chosen []Test
		for _, tc := range tests {
			if slices.Contains(opts.Profiles, tc.Profile) {
				chosen = append(chosen, tc)
			}
		}
		tests = chosen
	}
	if opts.ReportDir != "" && env.ArtifactsDir == "" {
		env.ArtifactsDir = filepath.Join(opts.ReportDir, "artifacts")
	}
	for _, e := range env.Target.Endpoints {
		e.RequestTimeout = env.Timeouts.Request
	}
	setFootprint(env.Target)
	gomega.RegisterFailHandler(ginkgo.Fail)
	Register(tests, env)
	reportProgress()
	var ginkgoReport ginkgo.Report
	ginkgo.ReportAfterSuite("skewcheck conformance report", func(r ginkgo.Report) { ginkgoReport = r })
	suiteConfig, reporterConfig := ginkgo.GinkgoConfiguration()
	opts.Seed = SeedOrClock(opts.Seed)
	suiteConfig.RandomSeed = opts.Seed
	if opts.Focus != "" {
		suiteConfig.FocusStrings = []string{opts.Focus}
	}
	if opts.Skip != "" {
		suiteConfig.SkipStrings = []string{opts.Skip}
	}
	reporterConfig.Verbose = opts.Verbose
	ginkgo.RunSpecs(t, suiteDescription, suiteConfig, reporterConfig)
	return buildReport(ginkgoReport, env, tests, opts)
}

func buildReport(r ginkgo.Report, env *Env, tests []Test, opts RunOptions) *report.Conformance {
	c := &report.Conformance{
		APIVersion: "skewcheck.io/v1alpha1", Kind: "ConformanceReport", Date: time.Now().UTC(),
		SkewcheckVersion: opts.SkewcheckVersion, Implementation: opts.Implementation,
		Target: env.Target.Kind, ProfilesRequested: opts.Profiles, Seed: opts.Seed,
		Timeouts: env.Timeouts.Map(), Focus: opts.Focus, Skip: opts.Skip,
	}
	for _, f := range opts.AcceptMissing {
		c.AcceptedMissing = append(c.AcceptedMissing, string(f))
	}
	switch {
	case env.Target.Upstream && env.Target.UpstreamDeclared:
		c.Upstream = "declared"
	case env.Target.Upstream:
		c.Upstream = "started"
	}
	if env.ArtifactsDir != "" {
		c.ArtifactsDir = "artifacts"
	}
	if d := env.Target.Dataplane; d != nil {
		c.Dataplane, c.DataplaneVersion = d.Name, d.Version
		c.Timeouts["dataplaneSync"] = d.SyncBound.String()
	}
	for _, e := range env.Target.Endpoints {
		c.Endpoints = append(c.Endpoints, report.Endpoint{Name: e.Name, Version: e.Version, EmulationVersion: e.EmulationVersion,
			Prerelease: IsPrerelease(e.Version), URL: e.URL, Served: slices.Sorted(maps.Keys(e.Served))})
	}
	byID := map[string]Test{}
	for _, t := range tests {
		byID[t.ID] = t
	}
	for _, s := range r.SpecReports {
		if s.LeafNodeType != gtypes.NodeTypeIt {
			continue
		}
		id := ""
		for _, l := range s.Labels() {
			if v, ok := strings.CutPrefix(l, "id:"); ok {
				id = v
			}
		}
		tc, ok := byID[id]
		if !ok {
			continue
		}
		rt := report.Test{ID: id, Profile: tc.Profile, Description: tc.Description, Duration: s.RunTime}
		for _, sc := range tc.SpecVsCode {
			rt.SpecVsCode = append(rt.SpecVsCode, sc.Report())
		}
		switch {
		case s.State == gtypes.SpecStatePassed:
			rt.Result = report.Passed
		case s.State == gtypes.SpecStateSkipped || s.State == gtypes.SpecStatePending:
			rt.Result = report.Skipped
			rt.SkipReason = s.Failure.Message
			switch {
			case rt.SkipReason == "":
				rt.SkipReason, rt.SkipKind = report.NotSelected, report.Deselected
			case IsNotApplicable(rt.SkipReason):
				rt.SkipKind = report.NotApplicable
			default: // the target or machine lacks something, by SkipReason or from inside the test
				rt.SkipKind = report.Missing
				if f, ok := MissingFeatureOf(rt.SkipReason); ok {
					rt.MissingFeature = string(f)
				}
			}
		default:
			rt.Result = report.Failed
			rt.Failure = fmt.Sprintf("%s: %s (at %s)", s.State, s.Failure.Message, s.Failure.Location)
		}
		for _, e := range s.ReportEntries {
			switch {
			case strings.HasPrefix(e.Name, measurePrefix):
				if rt.Measurements == nil {
					rt.Measurements = map[string]float64{}
				}
				if v, ok := e.GetRawValue().(float64); ok {
					rt.Measurements[strings.TrimPrefix(e.Name, measurePrefix)] = v
				}
			case e.Name == deviationEntry:
				rt.KnownDeviation = e.StringRepresentation()
			case e.Name == deviationCheckEntry:
				if c, ok := e.GetRawValue().(report.DeviationCheck); ok && !slices.Contains(rt.DeviationChecks, c) {
					rt.DeviationChecks = append(rt.DeviationChecks, c)
				}
			case e.Name == artifactsEntry:
				rt.Artifacts = strings.Split(e.StringRepresentation(), ",")
			}
		}
		c.Tests = append(c.Tests, rt)
	}
	sort.Slice(c.Tests, func(i, j int) bool { return c.Tests[i].ID < c.Tests[j].ID })
	report.Summarize(c)
	return c
}
