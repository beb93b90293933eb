//go:build !incluster

package app

import (
	"context"
	"fmt"
	"time"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/scenarios/chaos"
	"github.com/skewcheck/skewcheck/scenarios/faults"
)

// runFaults measures each named fault (made by r) on r's route in turn, converging the
// target after each. A fault r skips, or cannot make, is an outcome skipped with the reason.
func runFaults(ctx context.Context, streams IOStreams, tname string, t *framework.Target, r *chaos.Runner, faultNames []string,
	opts chaos.Options, hold time.Duration) []chaos.Outcome {
	var outcomes []chaos.Outcome
	for _, n := range faultNames {
		f, skip, err := r.Fault(ctx, n)
		if err != nil {
			skip = err.Error()
		}
		if skip != "" {
			desc := ""
			if f != nil {
				desc = f.Description()
			}
			outcomes = append(outcomes, chaos.Outcome{Target: tname, Fault: n, Load: opts.Load, Description: desc, Seed: opts.Seed, TimeTo503: -1, Skipped: skip})
			continue
		}
		o := opts
		o.For = max(o.For, faults.AtLeast(n))
		if faults.Silent(n) {
			// Held past the first 503, which upstream gives only after its 45 s stall.
			o.For, o.EndAfter503 = max(opts.For, framework.DefaultTimeouts().Unavailable)+hold, hold
		}
		fmt.Fprintf(streams.ErrOut, "%s: %s for up to %v (seed %d)\n", tname, f.Description(), o.For, opts.Seed)
		outcomes = append(outcomes, chaos.Measure(ctx, tname, r.Route, f, o))
		if ctx.Err() != nil {
			break
		}
		if t.Converge != nil {
			if err := t.Converge(ctx); err != nil {
				fmt.Fprintln(streams.ErrOut, "warning: not converged after healing:", err)
			}
		}
	}
	return outcomes
}

// soleRoute is a route into a creatable GVR that only server n serves.
func soleRoute(t *framework.Target, n int) (framework.Route, error) {
	peer := t.Endpoints[n-1]
	for _, r := range framework.SoleRoutes(t, "create", "list", "get") {
		if r.Peer == peer {
			return r, nil
		}
	}
	return framework.Route{}, fmt.Errorf("no creatable GVR is served only by server %d: nothing to measure", n)
}
