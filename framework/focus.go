package framework

import (
	"fmt"
	"regexp"
)

// suiteDescription is the description Run gives ginkgo's suite: ginkgo matches --focus and
// --skip against it, the test's profile and its SpecText, so Focus must too.
const suiteDescription = "skewcheck conformance"

// Focus returns the tests a run with these focus and skip expressions (RunOptions.Focus
// and Skip, each "" for none) runs, as ginkgo chooses them in Run: those whose "skewcheck
// conformance <profile> [ID] description" focus matches and skip does not. What a run
// would do can then be said of exactly the tests it would run.
func Focus(tests []Test, focus, skip string) ([]Test, error) {
	match := func(what, expr string) (func(Test) bool, error) {
		if expr == "" {
			return nil, nil
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			return nil, fmt.Errorf("the %s expression %q is not a regular expression: %w", what, expr, err)
		}
		return func(t Test) bool { return re.MatchString(suiteDescription + " " + t.Profile + " " + SpecText(t)) }, nil
	}
	focused, err := match("focus", focus)
	if err != nil {
		return nil, err
	}
	skipped, err := match("skip", skip)
	if err != nil {
		return nil, err
	}
	var out []Test
	for _, t := range tests {
		if (focused == nil || focused(t)) && (skipped == nil || !skipped(t)) {
			out = append(out, t)
		}
	}
	return out, nil
}
