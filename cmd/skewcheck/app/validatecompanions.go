package app

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skewcheck/skewcheck/clusters/dataplane"
)

// checkCompanions refuses a flag that only qualifies another one, given without it: it
// would be ignored in silence, and the report would not say what the user thinks it says.
func checkCompanions(cmd *cobra.Command, f *conformanceFlags) error {
	takeCommand := dataplanesTaking("Command")
	switch {
	case cmd.Flags().Changed("sidecar-name") && !f.sidecar.Enabled():
		return fmt.Errorf("--sidecar-name names your proxy in the report: it goes with --sidecar-command or --sidecar-image, which is not given")
	case f.gateway.cfg.Name != "" && f.gateway.cfg.Shell == "" && f.gateway.cfg.Image == "":
		return fmt.Errorf("--gateway-name names your gateway in the report: it goes with --gateway-command or --gateway-image (a reference gateway is named by --gateway)")
	case f.dataplane.command != "" && f.dataplane.image == "" && !slices.Contains(takeCommand, f.dataplane.chosen()):
		return fmt.Errorf("--dataplane-command runs your dataplane: it goes with --dataplane %s", strings.Join(takeCommand, " or --dataplane "))
	case cmd.Flags().Changed("output") && !f.list:
		return fmt.Errorf("-o prints the tests --list lists: it goes with --list (a run writes its report as YAML, JSON and JUnit to --report-dir)")
	case f.dataplane.label != "" && f.dataplane.command == "" && f.dataplane.image == "":
		return fmt.Errorf("--dataplane-name names your dataplane in the report: it goes with --dataplane-command or --dataplane-image, which is not given")
	}
	return nil
}

// dataplanesTaking are the dataplanes that need the Choice field (dataplane.ErrNeeds): asked
// of the registry, so a dataplane that registers itself is named without a change here.
func dataplanesTaking(field string) []string {
	var out []string
	for _, name := range dataplane.Names() {
		var needs dataplane.ErrNeeds
		if _, err := dataplane.Make(name, dataplane.Choice{}); errors.As(err, &needs) && needs.Field == field {
			out = append(out, name)
		}
	}
	return out
}
