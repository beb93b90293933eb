// Package suites lists every conformance test skewcheck has, across profiles. The CLI and
// vendors importing skewcheck as a library start here.
package suites

import (
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/suites/discovery"
	"github.com/skewcheck/skewcheck/suites/mvp"
)

// All returns every test, in a stable order.
func All() []framework.Test {
	var all []framework.Test
	all = append(all, mvp.Tests...)
	return append(all, discovery.Tests...)
}

// DefaultProfiles are what `skewcheck conformance` runs when not told otherwise.
var DefaultProfiles = []string{mvp.Profile, discovery.Profile}
