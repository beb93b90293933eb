//go:build !incluster

package app

import (
	"fmt"
	"io"
	"strings"
)

// checkConformanceFlags parses certify's --conformance-flag values against conformance's own
// flags, as the run inside will parse them (E2E_EXTRA_ARGS, split at spaces: planInCluster),
// so a misspelt flag or a bad value is refused here, before the Job starts, instead of in
// the pod's log once its namespace, RBAC and pod were made.
func checkConformanceFlags(extra []string) error {
	if len(extra) == 0 {
		return nil
	}
	c := underRoot(newConformanceCommand(IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}))
	if err := c.ParseFlags(strings.Fields(strings.Join(extra, " "))); err != nil {
		return fmt.Errorf("--conformance-flag: %v: give flags of skewcheck conformance, one per --conformance-flag (skewcheck conformance --help lists them)", err)
	}
	if stray := c.Flags().Args(); len(stray) > 0 {
		return fmt.Errorf("--conformance-flag: %q is no flag of skewcheck conformance, which takes no arguments: give a flag with its value, e.g. --conformance-flag=--focus=MVP-010", strings.Join(stray, " "))
	}
	return nil
}
