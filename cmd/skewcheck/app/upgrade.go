//go:build !incluster

package app

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/binaries"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/scenarios/upgrade"
)

func newUpgradeCommand(streams IOStreams) *cobra.Command {
	var o upgrade.Options
	var bin binaries.Options
	var reportDir string
	var prov providerFlags
	var path string
	var roundTrip bool
	cmd := &cobra.Command{
		Use:   "upgrade",
		Short: "Roll a cluster through versions (upgrades and downgrades) under load, assert, and draw a timeline",
		Long: `Starts --servers apiservers at --from; a seeded load reads (configmaps and every GVR not all
servers serve), writes and watches through every server; servers are restarted one at a time
at --to (graceful stop, start at the new version), each step waiting for convergence.
--path v1.35.4,v1.36.3,v1.35.4 goes through every version in turn instead: each next one is
a hop, an upgrade or a downgrade (the rollback of an upgrade), done the same way;
--round-trip is the path --from,--to,--from,--to.
Asserted, in every hop: no failed answer of any kind (a read not 200, a write not 201, no
answer, a watch cut short) outside a step and its declared --window, and inside one only
what an upgrade gives there (docs/chaos.md lists them); acknowledged writes in every hop
and successful reads through every server outside the windows; every acknowledged write
readable at the end, every watch resumed after each restart of its server (a stream cut
short, not a routine timeout, then events again), every kept object (a volumeattributesclass, whose storage
version changed in 1.36, and a mutatingadmissionpolicy, which only 1.36 serves, written by
each restarted server) read back through every server after every hop: 200, or 404 while
no server serves its GVR. Counted, per class of request (read, skewed-read, write,
watch), in every step (with its window), every hop's mixed window and outside them: 404s,
503s, no answers, rerouted reads (answered by a server whose version does not serve the
GVR), lost writes, watch resumes, relists and other failures; and every failed answer by
kind, server and GVR. Each hop lists the GVRs no server serves after
it (a downgrade takes them away; reads of them are 404 from then on).
With --owners, an owner of every resource only some servers serve (made through one that
serves it, at the start and after each step for what a step brings) and two configmaps it
owns (made through one that does not) are carried through for the garbage collector of a
real kube-controller-manager (--controller-manager, load-balancer unless given): at the end
every dependent whose owner still stands must be there, through every server, and the
controller manager must still lead.
With --fault, a process fault hits the next server during every step (its span counts as a
window too, and is drawn on that server's row). Writes upgrade.json (counts, hops, steps,
periods, events) and timeline.svg; exit 1 on a violation.`,
		Example: "  skewcheck upgrade --from v1.35.4 --to v1.36.3 --servers 3 --seed 42\n" +
			"  skewcheck upgrade --path v1.35.4,v1.36.3,v1.35.4,v1.36.3 --servers 3 --seed 42\n" +
			"  skewcheck upgrade --from v1.35.4 --to v1.36.3 --round-trip --servers 3\n" +
			"  skewcheck upgrade --from v1.35.4 --to v1.36.3 --servers 3 --fault freeze --fault-for 5s",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Servers < 2 {
				return fmt.Errorf("--servers %d: a rolling upgrade needs at least 2 servers", o.Servers)
			}
			p, err := upgradePath(path, o.From, o.To, roundTrip, cmd.Flags().Changed("from") || cmd.Flags().Changed("to"))
			if err != nil {
				return err
			}
			o.Path = p
			if o.Owners && prov.controllerManager == "" {
				// As upgrade.Run asks for it: behind the balancer, where its discovery and its
				// reads of an owner may reach different servers.
				prov.controllerManager = clusters.ConnectLoadBalancer
			}
			if err := prov.require(); err != nil {
				return err
			}
			o.Seed = framework.SeedOrClock(o.Seed)
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			o.Progress = streams.ErrOut
			o.Provider, o.Cluster = prov.name, prov.spec(clusters.Spec{Name: "upgrade", Binaries: bin})
			r, err := upgrade.Run(ctx, o)
			if err != nil {
				return wordError(err)
			}
			return writeUpgrade(streams, r, reportDir, fmt.Sprintf("rolling restarts %s, %d servers, seed %d, %.0fs", strings.Join(r.Path, " -> "), r.Servers, r.Seed, r.Duration))
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.From, "from", clusters.DefaultVersions[0], "version every server starts at")
	f.StringVar(&o.To, "to", clusters.DefaultVersions[len(clusters.DefaultVersions)-1], "version every server is upgraded (or downgraded) to")
	f.StringVar(&path, "path", "", "versions to go through, comma-separated (every server starts at the first; each next one is a hop, up or down); instead of --from and --to")
	f.BoolVar(&roundTrip, "round-trip", false, "the path --from,--to,--from,--to: an upgrade, its rollback, and the upgrade again")
	f.IntVar(&o.Servers, "servers", 3, "number of apiservers")
	f.Int64Var(&o.Seed, "seed", 0, "seed of the load (0: from the clock)")
	f.DurationVar(&o.Interval, "interval", 100*time.Millisecond, "pause between a server's requests")
	f.DurationVar(&o.Settle, "settle", 8*time.Second, "load before the first step, between steps and after the last")
	f.DurationVar(&o.Window, "window", 5*time.Second, "declared convergence window after each step (which already waits for convergence)")
	f.StringVar(&o.Fault, "fault", "", "a process fault (crash, stop, freeze) that hits the next server during every step")
	f.DurationVar(&o.FaultFor, "fault-for", 5*time.Second, "how long each fault lasts before it is healed")
	f.BoolVar(&o.Owners, "owners", false, "carry owners of the resources only some servers serve, and configmaps they own, through the upgrade for a real kube-controller-manager's "+
		"garbage collector (--controller-manager, load-balancer unless given), and fail when a dependent is gone at the end while its owner stands")
	f.StringVar(&reportDir, "report-dir", "_reports/upgrade", "where upgrade.json and timeline.svg go")
	prov.add(cmd)
	addBinaryFlags(cmd, &bin)
	return cmd
}

// upgradePath is the path of versions the flags ask for: --path, or --from and --to (and
// back and forth again with --round-trip). --path with either of the others is refused:
// which would win is not obvious.
func upgradePath(path, from, to string, roundTrip, fromOrTo bool) ([]string, error) {
	if path != "" {
		if roundTrip || fromOrTo {
			return nil, fmt.Errorf("--path %s names every version; drop --from, --to and --round-trip, or drop --path", path)
		}
		return upgrade.ParsePath(path)
	}
	if roundTrip {
		return upgrade.ParsePath(strings.Join(upgrade.RoundTrip(from, to), ","))
	}
	return upgrade.ParsePath(from + "," + to)
}
