//go:build !incluster

package app

import (
	"errors"
	"fmt"
	"strings"

	"github.com/skewcheck/skewcheck/clusters/images"
	"github.com/skewcheck/skewcheck/clusters/local"
)

// The errors of the packages that build images and run servers on this machine, in the
// flags that fix them.
func init() {
	moreWordings = append(moreWordings,
		func(err error) (error, bool) {
			var dynamic images.ErrDynamic
			if !errors.As(err, &dynamic) {
				return nil, false
			}
			const hint = "pass it with --binary (skewcheck images) or --static-binary (conformance --provider containers)"
			if strings.Contains(err.Error(), hint) { // worded already, on the way out of a deeper call
				return err, true
			}
			return fmt.Errorf("%w: %s", err, hint), true
		},
		func(err error) (error, bool) {
			var privilege local.ErrNoPrivilege
			if !errors.As(err, &privilege) {
				return nil, false
			}
			if strings.HasSuffix(err.Error(), " with --kubeconfig") {
				return err, true
			}
			return fmt.Errorf("%w with --kubeconfig", err), true
		})
}
