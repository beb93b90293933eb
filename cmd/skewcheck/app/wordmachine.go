//go:build !incluster

package app

import (
	"errors"
	"fmt"

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
			return fmt.Errorf("%w: pass it with --binary (skewcheck images) or --static-binary (conformance --provider containers)", err), true
		},
		func(err error) (error, bool) {
			var privilege local.ErrNoPrivilege
			if !errors.As(err, &privilege) {
				return nil, false
			}
			return fmt.Errorf("%w with --kubeconfig", err), true
		})
}
