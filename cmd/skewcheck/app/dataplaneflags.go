package app

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/clusters/binaries"
	"github.com/skewcheck/skewcheck/clusters/containers"
	"github.com/skewcheck/skewcheck/clusters/dataplane"
	"github.com/skewcheck/skewcheck/clusters/stack"
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

// spec asks the dataplane registry for the chosen dataplane, watching watched, in the
// flags' words.
func (f *dataplaneFlags) spec(watched *framework.Endpoint, bin binaries.Options) (dataplane.Spec, error) {
	c := f.choice(bin)
	c.WatchedVersion = watched.Version
	s, err := dataplane.Make(f.chosen(), c)
	return s, f.word(err)
}

// choice is what the flags chose of the dataplane; the run adds the version it watches.
func (f *dataplaneFlags) choice(bin binaries.Options) dataplane.Choice {
	return dataplane.Choice{Version: f.version, Command: f.command, Image: f.image, Label: f.label, Binaries: bin}
}

// word says what a dataplane lacks as the flag that gives it, and an unknown one with
// the dataplanes there are; any other error as it is.
func (f *dataplaneFlags) word(err error) error {
	var needs dataplane.ErrNeeds
	var unknown dataplane.ErrUnknown
	switch {
	case errors.As(err, &needs):
		return fmt.Errorf("--dataplane %s needs %s: %s", f.chosen(), dataplaneChoiceFlags[needs.Field], needs.Why)
	case errors.As(err, &unknown):
		return fmt.Errorf("unknown --dataplane %q: the dataplanes are %s", f.chosen(), strings.Join(unknown.Known, ", "))
	}
	return err
}

// dataplaneChoiceFlags are the flags that fill each field of dataplane.Choice.
var dataplaneChoiceFlags = map[string]string{"Command": "--dataplane-command", "Image": "--dataplane-image", "Version": "--dataplane-version", "Label": "--dataplane-name"}

// layer is the dataplane the run tests, as its stack's layer, its files kept with the
// report; nil for none.
func (f *dataplaneFlags) layer(bin binaries.Options, reportDir string) *stack.Dataplane {
	if f.chosen() == "" {
		return nil
	}
	return &stack.Dataplane{Name: f.chosen(), Choice: f.choice(bin), Dir: filepath.Join(reportDir, "dataplane"), SyncBound: f.syncBound}
}
