package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/mod/semver"
	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/clusters/binaries"
	"github.com/skewcheck/skewcheck/clusters/containers"
	"github.com/skewcheck/skewcheck/clusters/dataplane"
	"github.com/skewcheck/skewcheck/framework"
)

type dataplaneFlags struct {
	name, command, image, label, version string
	syncBound                            time.Duration
	// implied is the dataplane the command chose, as its default, when the user named
	// none: set by the command, never by a flag.
	implied string
}

// chosen is the dataplane the run tests: the one --dataplane names, the image one for
// --dataplane-image, else the command's default; "" for none.
func (f *dataplaneFlags) chosen() string {
	switch {
	case f.name != "":
		return f.name
	case f.image != "":
		return dataplane.ChosenBy("Image")
	}
	return f.implied
}

func (f *dataplaneFlags) add(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.name, "dataplane", "", "service dataplane under test for the ipmode profile: "+strings.Join(dataplane.Names(), ", "))
	fl.StringVar(&f.command, "dataplane-command", "", "with --dataplane exec: the shell command that runs your dataplane on the node; it finds $SKEWCHECK_KUBECONFIG, $SKEWCHECK_NODE_NAME, $SKEWCHECK_NODE_IP and $SKEWCHECK_DIR")
	fl.StringVar(&f.image, "dataplane-image", "", "your dataplane as an image in the local Docker engine (never pulled), run in the node's network namespace with NET_ADMIN and NET_RAW with the environment of --dataplane-command and $SKEWCHECK_DIR mounted read-write (implies --dataplane image)")
	fl.StringVar(&f.label, "dataplane-name", "", "with --dataplane-command or --dataplane-image: your dataplane's name in the report")
	fl.StringVar(&f.version, "dataplane-version", "", "kube-proxy version for --dataplane kube-proxy-* (default: the newest apiserver's)")
	fl.DurationVar(&f.syncBound, "dataplane-sync-bound", 10*time.Second, "bound on a dataplane applying a change of a Service, such as a switch of ipMode")
}

// validate checks the flags before any cluster is started for them, and that an image
// is in the local engine.
func (f *dataplaneFlags) validate(ctx context.Context) error {
	if f.image != "" {
		if byImage := dataplane.ChosenBy("Image"); f.chosen() != byImage {
			return fmt.Errorf("--dataplane-image runs your dataplane's image: it cannot go with --dataplane %s", f.name)
		}
		if f.command != "" {
			return fmt.Errorf("--dataplane-command and --dataplane-image both name your dataplane: give one")
		}
		rt, err := containers.Connect(ctx)
		if err != nil {
			return fmt.Errorf("--dataplane-image %s: %w", f.image, err)
		}
		defer rt.Close()
		if err := rt.RequireImage(ctx, f.image); err != nil {
			return err
		}
	}
	if f.chosen() == "" {
		return nil
	}
	_, err := f.spec(&framework.Endpoint{}, binaries.Options{})
	return err
}

// spec asks the dataplane registry for the chosen dataplane, watching watched, and words
// what a dataplane lacks as the flag that gives it.
func (f *dataplaneFlags) spec(watched *framework.Endpoint, bin binaries.Options) (dataplane.Spec, error) {
	s, err := dataplane.Make(f.chosen(), dataplane.Choice{Version: f.version, WatchedVersion: watched.Version,
		Command: f.command, Image: f.image, Label: f.label, Binaries: bin})
	var needs dataplane.ErrNeeds
	var unknown dataplane.ErrUnknown
	switch {
	case errors.As(err, &needs):
		return nil, fmt.Errorf("--dataplane %s needs %s: %s", f.chosen(), dataplaneChoiceFlags[needs.Field], needs.Why)
	case errors.As(err, &unknown):
		return nil, fmt.Errorf("unknown --dataplane %q: the dataplanes are %s", f.chosen(), strings.Join(unknown.Known, ", "))
	}
	return s, err
}

// dataplaneChoiceFlags are the flags that fill each field of dataplane.Choice.
var dataplaneChoiceFlags = map[string]string{"Command": "--dataplane-command", "Image": "--dataplane-image", "Version": "--dataplane-version", "Label": "--dataplane-name"}

// newest is the endpoint of the newest version: the dataplane watches it, and kube-proxy
// is of its version, so the dataplane is never newer than its apiserver (the skew policy).
func newest(t *framework.Target) *framework.Endpoint {
	best := t.Endpoints[0]
	for _, e := range t.Endpoints[1:] {
		if semver.Compare(e.Version, best.Version) > 0 {
			best = e
		}
	}
	return best
}

// start runs the dataplane against the target's newest endpoint and attaches it to the
// target. On a cluster skewcheck made the dataplane is kube-proxy's own user
// (system:kube-proxy); on an existing target, whose CA skewcheck cannot sign with, it is
// the admin. On kind it runs on the newest apiserver's node. Behind a front (a sidecar,
// the reference peer proxy) it watches the apiserver itself, as kube-proxy on that node
// would, not the front. A dataplane the machine cannot run is not an error: its tests
// skip with the reason.
func (f *dataplaneFlags) start(ctx context.Context, streams IOStreams, target *framework.Target, host clusters.Cluster, bin binaries.Options, reportDir string) (stop func(), err error) {
	if f.chosen() == "" {
		return func() {}, nil
	}
	watched := newest(target)
	server, admin := cmp.Or(watched.Behind, watched.Name), cmp.Or(watched.ServedFrom, watched.Admin)
	spec, err := f.spec(watched, bin)
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(filepath.Join(reportDir, "dataplane"))
	if err != nil {
		return nil, err
	}
	var identity *rest.Config
	var machine *dataplane.Machine
	if p, ok := host.(clusters.NodeProxier); ok {
		if identity, err = p.AsNodeProxier(admin); err != nil {
			return nil, err
		}
		if m, ok := host.(dataplane.Machines); ok {
			if machine, err = m.DataplaneMachine(ctx, server); err != nil {
				return nil, err
			}
		}
	}
	d, err := dataplane.Start(ctx, dataplane.Config{Spec: spec, Admin: admin, Identity: identity, Machine: machine, Dir: dir,
		SyncBound: f.syncBound, Progress: streams.ErrOut})
	var unsupported dataplane.Unsupported
	if errors.As(err, &unsupported) {
		fmt.Fprintf(streams.ErrOut, "dataplane %s cannot run here: %s\n", spec.Name(), unsupported.Reason)
		target.NoDataplane = "dataplane " + spec.Name() + " cannot run on this machine: " + unsupported.Reason
		return func() {}, nil
	}
	if err != nil {
		return nil, err
	}
	target.Dataplane = d.Framework()
	return func() { d.Close() }, nil
}
