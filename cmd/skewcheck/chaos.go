package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/clusters/binaries"
	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/reference/peerproxy"
	"github.com/skewcheck/skewcheck/scenarios/chaos"
	"github.com/skewcheck/skewcheck/scenarios/faults"
)

func chaosCommand() *cobra.Command {
	var sf serverFlags
	var bin binaries.Options
	var faultNames, targets []string
	var server int
	var opts chaos.Options
	var reportDir string
	cmd := &cobra.Command{
		Use:   "chaos",
		Short: "Inject faults into a local skewed cluster under load and measure what clients see",
		Long: `Starts a local cluster (peer traffic through forwarders, so network faults hit only
apiserver-to-peer traffic), and for each fault and target: loads a resource only --server
serves through another server, injects the fault for --for, heals it, and measures the time
to the first 503, the time to recover, spurious 404s and lost writes.

Targets: upstream (the apiservers' own mixed version proxy) and reference (skewcheck's
reference peer proxy in front of the same apiservers), side by side in one table.`,
		Example: "  skewcheck chaos --fault freeze --server 2 --for 20s\n  skewcheck chaos --fault all --targets upstream,reference --seed 42",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(faultNames) == 1 && faultNames[0] == "all" {
				faultNames = faults.Names()
			}
			for _, n := range faultNames {
				if err := faults.Check(n); err != nil {
					return err
				}
			}
			if opts.Seed == 0 {
				opts.Seed = time.Now().UnixNano() % 1_000_000
			}
			if len(sf.extra) == 0 {
				// A resource only the faulted server serves: batch/v1 off everywhere else.
				for i := 1; i <= len(sf.versions); i++ {
					if i != server {
						sf.extra = append(sf.extra, fmt.Sprintf("%d=--runtime-config=batch/v1=false", i))
					}
				}
			}
			specs, err := sf.specs()
			if err != nil {
				return err
			}
			if server < 1 || server > len(specs) {
				return fmt.Errorf("--server %d: there are %d servers", server, len(specs))
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			c, err := local.New(ctx, local.Config{Name: "chaos", Servers: specs, Port: sf.port, Binaries: bin, Progress: os.Stderr, PeerPaths: true})
			if err != nil {
				return err
			}
			defer c.Delete()
			defer faults.HealAll(context.Background())
			var outcomes []chaos.Outcome
			for _, tname := range targets {
				t, stopTarget, err := chaosTarget(ctx, c, tname)
				if err != nil {
					return err
				}
				route, err := soleRoute(t, server)
				if err != nil {
					stopTarget()
					return err
				}
				var others []*local.PeerPath
				for i, s := range c.Servers {
					if i != server-1 {
						others = append(others, s.PeerPath)
					}
				}
				path := c.Servers[server-1].PeerPath
				bypass := chaos.PathBypassed(ctx, route, path)
				subject := faults.Subject{Endpoint: route.Peer, Path: path, Others: others}
				if tname == "upstream" {
					// An exact partition cuts the faulted server from the entry of the load.
					subject.Server, subject.Peer = c.Servers[server-1], serverOf(c, route.Entry)
				}
				for _, n := range faultNames {
					f, err := faults.ByName(n, subject)
					skip := func(desc, reason string) {
						outcomes = append(outcomes, chaos.Outcome{Target: tname, Fault: n, Description: desc, Seed: opts.Seed, TimeTo503: -1, Skipped: reason})
					}
					if err != nil {
						skip("", err.Error())
						continue
					}
					if bypass != "" && faults.OnPeerPath(n) {
						skip(f.Description(), bypass)
						continue
					}
					fmt.Fprintf(os.Stderr, "%s: %s for %v (seed %d)\n", tname, f.Description(), opts.For, opts.Seed)
					o := chaos.Measure(ctx, tname, route, f, opts)
					outcomes = append(outcomes, o)
					if ctx.Err() != nil {
						break
					}
					if t.Converge != nil {
						if err := t.Converge(ctx); err != nil {
							fmt.Fprintln(os.Stderr, "warning: not converged after healing:", err)
						}
					}
				}
				stopTarget()
			}
			md := chaos.Markdown(outcomes)
			fmt.Print(md)
			if err := os.MkdirAll(reportDir, 0o755); err != nil {
				return err
			}
			b, _ := json.MarshalIndent(map[string]any{"seed": opts.Seed, "for": opts.For.String(), "server": server, "outcomes": outcomes}, "", "  ")
			os.WriteFile(filepath.Join(reportDir, "chaos-report.json"), b, 0o644)
			os.WriteFile(filepath.Join(reportDir, "chaos.md"), []byte(md), 0o644)
			fmt.Printf("seed %d; report: %s\n", opts.Seed, filepath.Join(reportDir, "chaos-report.json"))
			return nil
		},
	}
	sf.add(cmd)
	addBinaryFlags(cmd, &bin)
	cmd.Flags().StringSliceVar(&faultNames, "fault", []string{"freeze"}, "faults to inject, or all: "+strings.Join(faults.Names(), ", "))
	cmd.Flags().IntVar(&server, "server", 2, "the server the fault hits (its process, or the peer path into it)")
	cmd.Flags().StringSliceVar(&targets, "targets", []string{"upstream", "reference"}, "upstream, reference or both")
	cmd.Flags().DurationVar(&opts.For, "for", 15*time.Second, "how long each fault stays injected")
	cmd.Flags().DurationVar(&opts.Interval, "interval", 200*time.Millisecond, "pause between requests of the load")
	cmd.Flags().DurationVar(&opts.Recover, "recover-timeout", 2*time.Minute, "bound on the first 200 after healing")
	cmd.Flags().Int64Var(&opts.Seed, "seed", 0, "seed of the load (0: from the clock); printed so a run can be replayed")
	cmd.Flags().StringVar(&reportDir, "report-dir", "_reports/chaos", "where chaos-report.json and chaos.md go")
	return cmd
}

// chaosTarget is the cluster as upstream (its own proxy) or with the reference in front.
func chaosTarget(ctx context.Context, c *local.Cluster, name string) (*framework.Target, func(), error) {
	switch name {
	case "upstream":
		t, err := c.Target(ctx)
		return t, func() {}, err
	case "reference":
		return peerproxy.Front(ctx, c, 2*time.Second)
	}
	return nil, nil, fmt.Errorf("unknown target %q: upstream or reference", name)
}

// serverOf is the local server behind an endpoint of the upstream target.
func serverOf(c *local.Cluster, e *framework.Endpoint) *local.Server {
	for _, s := range c.Servers {
		if s.Name == e.Name {
			return s
		}
	}
	return nil
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
