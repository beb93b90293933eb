package app

import (
	"fmt"
	"slices"
	"strings"

	"github.com/skewcheck/skewcheck/framework"
)

// settleAcceptMissing turns --accept-missing into the run's features, refusing a name no
// test needs, so that a misspelt feature cannot quietly accept nothing.
func (f *conformanceFlags) settleAcceptMissing() error {
	known := framework.Features()
	f.run.AcceptMissing = nil
	for _, name := range f.acceptMissing {
		feature := framework.Feature(strings.TrimSpace(name))
		if !slices.Contains(known, feature) {
			names := make([]string, len(known))
			for i, k := range known {
				names[i] = string(k)
			}
			return fmt.Errorf("--accept-missing %q names no feature a test needs: the features are %s", name, strings.Join(names, ", "))
		}
		if !slices.Contains(f.run.AcceptMissing, feature) {
			f.run.AcceptMissing = append(f.run.AcceptMissing, feature)
		}
	}
	return nil
}
