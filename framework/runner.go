package framework

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/onsi/ginkgo/v2"

	"github.com/skewcheck/skewcheck/framework/apis/discovery"
)

// Register declares one ginkgo spec per test, labelled with its profile and ID. Call it
// while the spec tree is built (before RunSpecs); env is filled in before specs run.
func Register(tests []Test, env *Env) {
	for _, tc := range tests {
		ginkgo.Describe(tc.Profile, ginkgo.Label(tc.Profile), func() {
			ginkgo.AfterEach(func(ctx ginkgo.SpecContext) {
				if ginkgo.CurrentSpecReport().Failed() {
					collectEvidence(ctx, env, tc)
				}
			})
			ginkgo.It(SpecText(tc), ginkgo.Label("id:"+tc.ID), ginkgo.SpecTimeout(env.Timeouts.SpecBound()+tc.Holds), func(ctx ginkgo.SpecContext) {
				env.evidence.Take()
				if reason := tc.SkipReason(env.Target); reason != "" {
					ginkgo.Skip(reason)
				}
				env.current = tc
				tc.Run(withEvidence(ctx, &env.evidence), env)
			})
		})
	}
}

// SkipMissing ends the running test as skipped because the target lacks f, saying why:
// for what a test finds out only once it runs (a creatable GVR with the verbs it needs).
func SkipMissing(f Feature, why string) { ginkgo.Skip(Missing(f, why)) }

// SpecText is how a test appears in ginkgo output and JUnit: "[MVP-001] description".
func SpecText(tc Test) string { return "[" + tc.ID + "] " + tc.Description }

// collectEvidence writes, before any cleanup of the failed test runs, what a reader needs
// to see why: every probe response, each endpoint's own discovery, and server log tails.
func collectEvidence(ctx context.Context, env *Env, tc Test) {
	if env.ArtifactsDir == "" {
		return
	}
	dir := filepath.Join(env.ArtifactsDir, tc.ID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	var files []string
	write := func(name string, v any) {
		b, err := json.MarshalIndent(v, "", "  ")
		if err == nil && os.WriteFile(filepath.Join(dir, name), b, 0o644) == nil {
			files = append(files, filepath.Join(tc.ID, name))
		}
	}
	responses, dropped := env.evidence.Take()
	write("responses.json", map[string]any{"responses": responses, "leftOutBetween": dropped})
	for _, e := range env.Target.Endpoints {
		// What each server serves now, at failure time, besides what it served before.
		if now, err := discovery.Served(ctx, e.Admin); err == nil {
			write("served-now-"+e.Name+".json", now.Sorted())
		} else {
			write("served-now-"+e.Name+".json", map[string]string{"error": err.Error()})
		}
		write("served-"+e.Name+".json", e.Served.Sorted())
	}
	logged := env.Target.Endpoints
	if env.Target.Gateway != nil {
		logged = append(slices.Clone(logged), env.Target.Gateway.Endpoint)
	}
	for _, e := range logged {
		if e.Log != "" {
			if b, err := os.ReadFile(e.Log); err == nil {
				lines := strings.Split(string(b), "\n")
				if len(lines) > 200 {
					lines = lines[len(lines)-200:]
				}
				name := "log-" + e.Name + ".txt"
				if os.WriteFile(filepath.Join(dir, name), []byte(strings.Join(lines, "\n")), 0o644) == nil {
					files = append(files, filepath.Join(tc.ID, name))
				}
			}
		}
	}
	ginkgo.AddReportEntry(artifactsEntry, strings.Join(files, ","))
}
