package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/front"
	clustersgateway "github.com/skewcheck/skewcheck/clusters/gateway"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/suites"
)

// gatewayFlags put an API gateway in front of a local cluster for the gateway profile:
// skewcheck's reference, or a vendor's, through the same commands.
type gatewayFlags struct {
	reference     string
	defects       []string
	keepPeerProxy bool
	cfg           clustersgateway.Config
}

func (g *gatewayFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&g.reference, "gateway", "", "put skewcheck's reference API gateway in front of the cluster's apiservers: "+strings.Join(clustersgateway.ReferenceNames(), ", ")+" (runs the gateway profile)")
	f.StringSliceVar(&g.defects, "gateway-defect", nil, "with --gateway reference: deliberate mistakes, to see the profile fail ("+gatewayDefectHelp()+")")
	f.StringVar(&g.cfg.Shell, "gateway-command", "", "your API gateway, as a shell command run once in front of all the apiservers; its environment:\n"+clustersgateway.Env)
	f.StringVar(&g.cfg.Image, "gateway-image", "", "your API gateway as an image in the local Docker engine (never pulled), run once on the host's network with the environment of --gateway-command, its files mounted read-only and $SKEWCHECK_GATEWAY_CONFIG read-write; the apply command finds the container's name in $"+clustersgateway.ContainerEnv+" (docker exec ...); logs in <report-dir>/gateway/")
	f.StringVar(&g.cfg.ApplyShell, "gateway-apply-command", "", "with --gateway-command or --gateway-image: run after every change of the UpstreamCluster documents in $SKEWCHECK_GATEWAY_CONFIG; exit 0 once your gateway serves by them, non-zero (saying why) when it refuses them")
	f.StringVar(&g.cfg.Name, "gateway-name", "", "with --gateway-command or --gateway-image: your gateway's name in the report")
	f.DurationVar(&g.cfg.ReadyTimeout, "gateway-ready-timeout", 60*time.Second, "how long your gateway may take, once started and after every node operation, until an apiserver answers GET /version through it")
	f.DurationVar(&g.cfg.ApplyTimeout, "gateway-apply-timeout", 60*time.Second, "how long one run of --gateway-apply-command may take")
	f.BoolVar(&g.keepPeerProxy, "gateway-keep-peer-proxy", false, "keep the apiservers' own mixed version proxy on behind the gateway (default off, so only the gateway's routing keeps a skewed GVR from 404)")
}

// gatewayDefectHelp lists each reference gateway's variants.
func gatewayDefectHelp() string {
	var out []string
	for _, r := range clustersgateway.References() {
		out = append(out, strings.Join(r.Variants(), ", "))
	}
	return strings.Join(out, "; ")
}

func (g *gatewayFlags) enabled() bool {
	return g.reference != "" || g.cfg.Shell != "" || g.cfg.Image != ""
}

// validate checks the flags against the rest of the run.
func (g *gatewayFlags) validate(ctx context.Context, f *conformanceFlags) error {
	switch {
	case !g.enabled():
		if len(g.defects) > 0 || g.cfg.ApplyShell != "" {
			return fmt.Errorf("--gateway-defect and --gateway-apply-command go with --gateway reference or --gateway-command")
		}
		return nil
	case g.reference != "" && !slices.Contains(clustersgateway.ReferenceNames(), g.reference):
		return fmt.Errorf("unknown --gateway %q: the reference gateways are %s; yours plugs in with --gateway-command and --gateway-apply-command", g.reference, strings.Join(clustersgateway.ReferenceNames(), ", "))
	case (g.reference != "" && (g.cfg.Shell != "" || g.cfg.Image != "")) || (g.cfg.Shell != "" && g.cfg.Image != ""):
		return fmt.Errorf("--gateway reference, --gateway-command and --gateway-image each name a gateway: give one")
	case g.reference == "" && g.cfg.ApplyShell == "":
		return fmt.Errorf("--gateway-command and --gateway-image need --gateway-apply-command: skewcheck changes the UpstreamCluster documents during the run and must know when your gateway serves by them (see --help)")
	case g.reference == "" && len(g.defects) > 0:
		return fmt.Errorf("--gateway-defect applies to the reference gateway only")
	case !f.makesCluster() || f.reference.name != "" || f.sidecar.Enabled() || f.dataplane.chosen() != "":
		return fmt.Errorf("a gateway runs in front of the apiservers of a cluster skewcheck makes, on its own: it cannot go with --kubeconfig, --reference, --sidecar-command, --sidecar-image or --dataplane")
	}
	if p := suites.Names(func(p framework.Profile) bool { return slices.Contains(f.run.Profiles, p.Name) && !p.NeedsGateway() }); len(p) > 0 {
		return fmt.Errorf("with a gateway, the profiles are those whose every test is of a gateway (%s): %s tests the endpoints, which are then the apiservers behind the gateway", strings.Join(suites.Names(framework.Profile.NeedsGateway), ", "), strings.Join(p, ", "))
	}
	if g.reference != "" {
		ref, _ := clustersgateway.LookupReference(g.reference)
		if _, err := ref.Make("", g.defects); err != nil {
			return fmt.Errorf("--gateway-defect: %w", err)
		}
	}
	if g.cfg.Image != "" {
		if err := clustersgateway.CheckImage(ctx, g.cfg.Image); err != nil {
			return fmt.Errorf("--gateway-image: %w", err)
		}
	}
	return nil
}

// specs turns the apiservers' own proxy off unless asked to keep it.
func (g *gatewayFlags) specs(specs []clusters.ServerSpec) {
	if g.enabled() && !g.keepPeerProxy {
		for i := range specs {
			specs[i].DisablePeerProxy = true
		}
	}
}

// front is the gateway to start; the reference runs as its own process, from this binary,
// exactly as a vendor's command does.
func (g *gatewayFlags) front(streams IOStreams, reportDir string) (front.Front, error) {
	cfg := g.cfg
	if g.reference != "" {
		self, err := os.Executable()
		if err != nil {
			return nil, err
		}
		ref, err := clustersgateway.LookupReference(g.reference)
		if err != nil {
			return nil, fmt.Errorf("--gateway: %w", err)
		}
		made, err := ref.Make(self, g.defects)
		if err != nil {
			return nil, fmt.Errorf("--gateway-defect: %w", err)
		}
		cfg.Name, cfg.Shell, cfg.ApplyShell = made.Name, made.Shell, made.ApplyShell
	}
	if cfg.Name == "" {
		cfg.Name = "gateway"
	}
	if cfg.Image != "" {
		// A container's output lives only as long as the container, which the run removes;
		// the mounts need an absolute path.
		dir, err := filepath.Abs(filepath.Join(reportDir, "gateway"))
		if err != nil {
			return nil, err
		}
		cfg.Dir = dir
	}
	cfg.Progress = streams.ErrOut
	return cfg, nil
}
