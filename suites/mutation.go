package suites

import "github.com/skewcheck/skewcheck/framework/report"

// MutationReasons say why a test of the mutation matrix (`skewcheck mutation`) is failed
// by no shipped mutant, or a mutant caught by no test: without a reason here, either is a
// problem of the matrix. Keys are test IDs and mutant names ("<family>/<variant>"); a
// reason for what a mutant fails, or a test catches, is stale and a problem too.
var MutationReasons = report.MutationReasons{
	Tests:   map[string]string{},
	Mutants: map[string]string{},
}
