package app

import (
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/binaries"
	"github.com/skewcheck/skewcheck/scenarios/upgrade"
)

func newUpgradeCommand(streams IOStreams) *cobra.Command {
	var o upgrade.Options
	var bin binaries.Options
	var reportDir string
	var prov providerFlags
	cmd := &cobra.Command{
		Use:   "upgrade",
		Short: "Roll a cluster from one version to another under load, assert, and draw a timeline",
		Long: `Starts --servers apiservers at --from; a seeded load reads (configmaps and every GVR not all
servers serve), writes and watches through every server; servers are upgraded one at a time
(graceful stop, start at --to), each step waiting for convergence. Asserted: no 404 and no
503 for a resource a live server serves outside a step and its declared --window, every
acknowledged write readable at the end, every watch resumed after its server's upgrade.
With --fault, a process fault hits the next server during every step (its span counts as a
window too, and is drawn on that server's row). Writes upgrade.json (counts, steps, events) and timeline.svg; exit 1 on a violation.`,
		Example: "  skewcheck upgrade --from v1.35.4 --to v1.36.3 --servers 3 --seed 42\n" +
			"  skewcheck upgrade --from v1.35.4 --to v1.36.3 --servers 3 --fault freeze --fault-for 5s",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Servers < 2 {
				return fmt.Errorf("--servers %d: a rolling upgrade needs at least 2 servers", o.Servers)
			}
			if err := prov.require(); err != nil {
				return err
			}
			if o.Seed == 0 {
				o.Seed = time.Now().UnixNano() % 1_000_000
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			o.Progress = streams.ErrOut
			o.Provider, o.Cluster = prov.name, prov.spec(clusters.Spec{Name: "upgrade", Binaries: bin})
			r, err := upgrade.Run(ctx, o)
			if err != nil {
				return wordError(err)
			}
			if err := os.MkdirAll(reportDir, 0o755); err != nil {
				return err
			}
			b, _ := json.MarshalIndent(r, "", "  ")
			os.WriteFile(filepath.Join(reportDir, "upgrade.json"), b, 0o644)
			os.WriteFile(filepath.Join(reportDir, "timeline.svg"), []byte(r.SVG()), 0o644)
			c := r.Counts
			fmt.Fprintf(streams.Out, "rolling upgrade %s -> %s, %d servers, seed %d, %.0fs\n", r.From, r.To, r.Servers, r.Seed, r.Duration)
			for _, s := range r.Steps {
				fmt.Fprintf(streams.Out, "  %s: %.1fs to converged\n", s.Server, s.End-s.Start)
			}
			for _, f := range r.Faults {
				fmt.Fprintf(streams.Out, "  fault: %s, %.1fs to %.1fs\n", f.Description, f.Start, f.End)
			}
			fmt.Fprintf(streams.Out, "reads %d, writes %d (acknowledged %d, lost %d), watch resumes %d\n", c.Reads, c.Writes, c.AckedWrites, c.LostWrites, c.WatchResumes)
			fmt.Fprintf(streams.Out, "404s: %d in step windows, %d outside; 503s: %d in step windows, %d outside\n", c.NotFoundInside, c.NotFoundOutside, c.UnavailableInside, c.UnavailableOutside)
			fmt.Fprintf(streams.Out, "report: %s, %s\n", filepath.Join(reportDir, "upgrade.json"), filepath.Join(reportDir, "timeline.svg"))
			if !r.Passed() {
				for _, v := range r.Violations {
					fmt.Fprintln(streams.Out, "  violation:", v)
				}
				return fmt.Errorf("the rolling upgrade violated %d assertions (replay with --seed %d)", len(r.Violations), r.Seed)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.From, "from", "v1.35.4", "version every server starts at")
	f.StringVar(&o.To, "to", "v1.36.3", "version every server is upgraded to")
	f.IntVar(&o.Servers, "servers", 3, "number of apiservers")
	f.Int64Var(&o.Seed, "seed", 0, "seed of the load (0: from the clock)")
	f.DurationVar(&o.Interval, "interval", 100*time.Millisecond, "pause between a server's requests")
	f.DurationVar(&o.Settle, "settle", 8*time.Second, "load before the first step, between steps and after the last")
	f.DurationVar(&o.Window, "window", 5*time.Second, "declared convergence window after each step (which already waits for convergence)")
	f.StringVar(&o.Fault, "fault", "", "a process fault (crash, stop, freeze) that hits the next server during every step")
	f.DurationVar(&o.FaultFor, "fault-for", 5*time.Second, "how long each fault lasts before it is healed")
	f.StringVar(&reportDir, "report-dir", "_reports/upgrade", "where upgrade.json and timeline.svg go")
	prov.add(cmd)
	addBinaryFlags(cmd, &bin)
	return cmd
}
