//go:build !incluster

package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/binaries"
	"github.com/skewcheck/skewcheck/clusters/front"
	"github.com/skewcheck/skewcheck/clusters/stack"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/scenarios/chaos"
	"github.com/skewcheck/skewcheck/scenarios/faults"
)

func newChaosCommand(streams IOStreams) *cobra.Command {
	var sf serverFlags
	var prov providerFlags
	var bin binaries.Options
	var faultNames, targets []string
	var server int
	var opts chaos.Options
	var reportDir string
	var hold time.Duration
	var flawName, loadName string
	cmd := &cobra.Command{
		Use:   "chaos",
		Short: "Inject faults into a local skewed cluster under load and measure what clients see",
		Long: `Starts a local cluster (peer traffic through forwarders, so network faults hit only
apiserver-to-peer traffic), and for each fault and target: loads a resource only --server
serves through another server, injects the fault for --for, heals it, and measures the time
to the first 503, the time to recover, spurious 404s and lost writes.

With --load crd the load is a CRD's resource instead, the CRD created through --server:
every server serves it itself, so no fault on --server may be noticed (every read 200,
every write 201); a proxy that forwards custom resources to a peer answers 503.

Targets: upstream (the apiservers' own mixed version proxy) and reference (skewcheck's
reference peer proxy in front of the same apiservers), side by side in one table.`,
		Example: "  skewcheck chaos --fault freeze --server 2 --for 20s\n  skewcheck chaos --fault all --targets upstream,reference --seed 42\n  skewcheck chaos --load crd --fault crash,freeze,stop",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkClusterRun(cmd, &sf, reportDir); err != nil {
				return err
			}
			if len(faultNames) == 1 && faultNames[0] == "all" {
				faultNames = faults.Names()
			}
			for _, n := range faultNames {
				if err := faults.Check(n); err != nil {
					return err
				}
			}
			var chosen []chaosTarget
			for _, tname := range targets {
				ct, err := lookupChaosTarget(tname, front.ReferenceChoice{PeerTimeout: 2 * time.Second, Variant: flawName})
				if err != nil {
					return err
				}
				chosen = append(chosen, ct)
			}
			if flawName != "" && !slices.ContainsFunc(chosen, func(ct chaosTarget) bool { return ct.front != nil }) {
				return fmt.Errorf("--reference-flaw %s makes a reference wrong on purpose: it goes with --targets reference", flawName)
			}
			opts.Seed = framework.SeedOrClock(opts.Seed)
			load, err := chaos.ParseLoad(loadName)
			if err != nil {
				return fmt.Errorf("--load: %w", err)
			}
			opts.Load = load
			if len(sf.extra) == 0 {
				// A resource only the faulted server serves: batch/v1 off everywhere else
				// (under a CRD load, the route that shows peer traffic takes the peer path).
				for i := 1; i <= len(sf.versions); i++ {
					if i != server {
						sf.implied = append(sf.implied, fmt.Sprintf("%d=%s", i, clusters.WithoutBatch))
					}
				}
			}
			specs, err := sf.specs()
			if err != nil {
				return err
			}
			if err := prov.require(); err != nil {
				return err
			}
			for _, ct := range chosen {
				if err := clusters.Require(prov.name, clusters.Fronts); ct.front != nil && err != nil {
					return fmt.Errorf("--targets %s puts skewcheck's reference in front of the apiservers, which --provider %s cannot have (%v): give --targets %s", ct.name, prov.name, err, upstreamTarget)
				}
			}
			if server < 1 || server > len(specs) {
				return fmt.Errorf("--server %d: there are %d servers", server, len(specs))
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			defer faults.HealAll(context.Background())
			var outcomes []chaos.Outcome
			for _, ct := range chosen {
				got, err := chaosRun(ctx, streams, ct, specs, server, faultNames, opts, hold, sf.port, bin, &prov)
				outcomes = append(outcomes, got...)
				if err != nil {
					return err
				}
				if ctx.Err() != nil {
					break
				}
			}
			md := chaos.Markdown(outcomes)
			fmt.Fprint(streams.Out, md)
			b, err := json.MarshalIndent(map[string]any{"seed": opts.Seed, "for": opts.For.String(), "server": server, "outcomes": outcomes}, "", "  ")
			if err != nil {
				return fmt.Errorf("encoding chaos-report.json: %w", err)
			}
			// A report that could not be written fails the run, beside (never instead
			// of) its verdict.
			werr := writeReport(reportDir, reportFile{"chaos-report.json", b}, reportFile{"chaos.md", []byte(md)})
			if werr == nil {
				fmt.Fprintf(streams.Out, "seed %d; report: %s\n", opts.Seed, filepath.Join(reportDir, "chaos-report.json"))
			}
			if v := chaos.Violations(outcomes); len(v) > 0 {
				return errors.Join(fmt.Errorf("%d outcomes break what a mixed version proxy promises (replay with --seed %d):\n  %s", len(v), opts.Seed, strings.Join(v, "\n  ")), werr)
			}
			return errors.Join(ctx.Err(), werr)
		},
	}
	sf.add(cmd)
	prov.add(cmd)
	addBinaryFlags(cmd, &bin)
	cmd.Flags().StringSliceVar(&faultNames, "fault", []string{"freeze"}, "faults to inject, or all: "+strings.Join(faults.Names(), ", "))
	cmd.Flags().IntVar(&server, "server", 2, "the server the fault hits (its process, or the peer path into it)")
	cmd.Flags().StringSliceVar(&targets, "targets", []string{upstreamTarget, "reference"}, "the columns of the table: "+chaosTargetHelp())
	cmd.Flags().DurationVar(&opts.For, "for", 15*time.Second, "how long each fault stays injected (silent faults: see --hold)")
	cmd.Flags().DurationVar(&hold, "hold", framework.DefaultTimeouts().Hold, "how long a silent fault (freeze, blackhole, half-open) is held past the first 503, so a proxy that forgets a silent peer after a refresh or timeout of its own is caught answering 404")
	cmd.Flags().DurationVar(&opts.Interval, "interval", 200*time.Millisecond, "pause between requests of the load")
	cmd.Flags().DurationVar(&opts.Recover, "recover-timeout", 2*time.Minute, "bound on the first 200 after healing")
	cmd.Flags().Int64Var(&opts.Seed, "seed", 0, "seed of the load (0: from the clock); printed so a run can be replayed")
	cmd.Flags().StringVar(&loadName, "load", "sole", "what the load reads and writes: sole, a resource only --server serves; crd, a CRD created through --server; or aggregated, an aggregated API registered through --server (its server runs in skewcheck, on an address every apiserver of a cluster skewcheck makes reaches): every server serves those two itself, so no fault on --server may be noticed through another")
	cmd.Flags().StringVar(&reportDir, "report-dir", "_reports/chaos", "where chaos-report.json and chaos.md go")
	cmd.Flags().StringVar(&flawName, "reference-flaw", "", "run the reference target with this deliberate flaw, to see the table catch it: "+flawNames())
	return cmd
}

// chaosRun brings up a cluster for one target, runs every fault against it, and deletes
// it. The reference gets apiservers whose own proxy is off, as `conformance --reference`
// does, so its column is its own behaviour and not upstream's underneath. Process faults
// act through the nodes' operations, network faults through what each node declares
// (peer paths, network namespaces), whatever the provider.
func chaosRun(ctx context.Context, streams IOStreams, ct chaosTarget, specs []clusters.ServerSpec, server int, faultNames []string,
	opts chaos.Options, hold time.Duration, port int, bin binaries.Options, prov *providerFlags) ([]chaos.Outcome, error) {
	tname := ct.name
	specs = slices.Clone(specs)
	for i := range specs {
		specs[i].DisablePeerProxy = ct.replacesPeerProxy
	}
	fmt.Fprintf(streams.ErrOut, "== %s: starting a cluster of %d apiservers (provider %s)\n", tname, len(specs), prov.name)
	run, err := stack.Build(ctx, stack.Spec{Provider: prov.name, Front: ct.front,
		Cluster: prov.spec(clusters.Spec{Name: "chaos-" + tname, Servers: specs, Port: port, Binaries: bin, Progress: streams.ErrOut,
			PeerPaths: true, ConvergeTimeout: framework.DefaultTimeouts().Converge})})
	if err != nil {
		return nil, wordError(err)
	}
	defer run.Close()
	if ct.variant != "" {
		tname += " (flaw " + ct.variant + ")" // the table says which reference it measured
	}
	t, c := run.Target, run.Cluster
	route, err := soleRoute(t, server)
	if err != nil {
		return nil, err
	}
	probe := route
	if opts.Load != chaos.LoadSole {
		var remove func(context.Context) error
		route, remove, err = chaos.ExtensionRoute(ctx, t, t.Endpoints[server-1], opts.Load, opts.Seed, framework.DefaultTimeouts().Converge)
		if err != nil {
			return nil, err
		}
		defer func() {
			if err := remove(context.Background()); err != nil {
				fmt.Fprintf(streams.ErrOut, "%s: %v\n", tname, err)
			}
		}()
	}
	r := chaos.NewRunner(t, route)
	r.Probe = &probe
	if d, ok := c.(clusters.Disconnector); ok {
		if up, ok := c.(clusters.Upgradable); ok {
			r.Subject = r.Subject.WithDisconnector(d, up.Members()[server-1].Name())
		}
	}
	return runFaults(ctx, streams, tname, t, r, faultNames, opts, hold), nil
}
