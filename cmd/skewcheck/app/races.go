//go:build !incluster

package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/binaries"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/scenarios/races"
)

func newRacesCommand(streams IOStreams) *cobra.Command {
	var sf serverFlags
	var prov providerFlags
	var bin binaries.Options
	var names []string
	var reportDir string
	env := races.Env{Interval: 100 * time.Millisecond}
	cmd := &cobra.Command{
		Use:   "races",
		Short: "Provoke the registration races of the mixed version proxy on a cluster and measure their windows",
		Long: `Requests arrive while the peer that alone serves a resource registers, crashes (its lease
left behind), restarts with the same identity, loses its identity lease, or while a lease
points at an address where nothing listens. Each race asserts upstream's documented
outcome and measures its window. Writes races.json; exit 1 when an outcome differs.`,
		Example: "  skewcheck races --versions v1.35.4,v1.36.3\n  skewcheck races --race lease-deleted,registering",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkRaces(cmd, &sf, reportDir); err != nil {
				return err
			}
			var chosen []races.Race
			for _, n := range names {
				r, err := races.ByName(n)
				if err != nil {
					return err
				}
				chosen = append(chosen, r)
			}
			specs, err := sf.specs()
			if err != nil {
				return err
			}
			if err := prov.require(); err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			c, err := prov.newCluster(ctx, clusters.Spec{Name: "races", Servers: specs, Port: sf.port, Binaries: bin, Progress: streams.ErrOut})
			if err != nil {
				return err
			}
			defer c.Delete()
			t, err := c.Target(ctx)
			if err != nil {
				return err
			}
			routes := framework.SoleRoutes(t, "list")
			if len(routes) == 0 {
				return fmt.Errorf("no listable GVR is served by exactly one server: give versions that differ (or --server-flag N=--runtime-config=...)")
			}
			env.Route, env.Converge = routes[0], c.WaitConverged
			var outcomes []races.Outcome
			failed := 0
			for _, r := range chosen {
				fmt.Fprintf(streams.ErrOut, "race %s: %s through %s, only %s serves it\n", r.Name, env.Route.GVR.Key(), env.Route.Entry.Name, env.Route.Peer.Name)
				o := r.Run(ctx, env)
				outcomes = append(outcomes, o)
				if !o.Passed() {
					failed++
				}
				if err := c.WaitConverged(ctx); err != nil {
					return fmt.Errorf("after race %s: %w", r.Name, err)
				}
			}
			w := tabwriter.NewWriter(streams.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "RACE\tRESULT\tWINDOW\tSPURIOUS 404s\tDOCUMENTED\tSEEN")
			for _, o := range outcomes {
				result := "as documented"
				if !o.Passed() {
					result = "DIFFERS: " + strings.Join(o.Violations, "; ")
				}
				fmt.Fprintf(w, "%s\t%s\t%.2fs\t%d\t%s\t%s\n", o.Race, result, o.Window, o.Spurious404, o.Documented, o.Seen)
			}
			w.Flush()
			b, err := json.MarshalIndent(outcomes, "", "  ")
			if err != nil {
				return fmt.Errorf("encoding races.json: %w", err)
			}
			// A report that could not be written fails the run, beside (never instead
			// of) its verdict.
			werr := writeReport(reportDir, reportFile{"races.json", b})
			if failed > 0 {
				return errors.Join(fmt.Errorf("%d races differ from the documented outcome", failed), werr)
			}
			return werr
		},
	}
	sf.add(cmd)
	prov.add(cmd)
	addBinaryFlags(cmd, &bin)
	cmd.Flags().StringSliceVar(&names, "race", races.Names(), "races to run: "+strings.Join(races.Names(), ", "))
	cmd.Flags().DurationVar(&env.Observe, "observe", 5*time.Second, "how long a steady state is watched")
	cmd.Flags().DurationVar(&env.Hold, "hold", time.Minute, "how long the stale-lease race is watched after the first 503 (past every timeout of the proxy)")
	cmd.Flags().DurationVar(&env.Bound, "bound", time.Minute, "bound on a recovery")
	cmd.Flags().StringVar(&env.DeadAddress, "dead-address", races.DefaultDeadAddress, "where the dead-address race's lease points (nothing may listen there)")
	cmd.Flags().StringVar(&reportDir, "report-dir", "_reports/races", "where races.json goes")
	return cmd
}
