package suites

import "github.com/skewcheck/skewcheck/framework/matrix"

// apiserverOnly is the reason of a test of the apiserver's own API, which no variant of a
// dataplane touches.
const apiserverOnly = "tests the apiserver's validation and defaulting of ipMode, which no dataplane changes: only an apiserver could fail it"

// MutationReasons say why a test of the mutation matrix (`skewcheck mutation`) is failed
// by no shipped mutant, or a mutant caught by no test: without a reason here, either is a
// problem of the matrix. Keys are test IDs and mutant names ("<family>/<variant>"); a
// reason for what a mutant fails, or a test catches, is stale and a problem too. Measured
// in docs/mutation.md.
var MutationReasons = matrix.MutationReasons{
	Tests: map[string]string{
		"IPM-001": apiserverOnly,
		"IPM-002": apiserverOnly,
		"IPM-003": apiserverOnly,
		"IPM-004": apiserverOnly,
		"IPM-005": apiserverOnly,
		"IPM-006": apiserverOnly,
	},
	Mutants: map[string]string{
		// It misjudges only a peer whose renew times are skewed, which no profile fakes.
		"peerproxy/trust-renew-time":         "caught by the chaos table's clock-behind-2h (scenarios/chaos TestLeaseTimeFaults), which the matrix does not run: no profile skews a lease's renew time",
		"peerproxy/untrusted-peer-not-found": "caught by the chaos table's expired-serving row (scenarios/chaos TestExpiredServingCatchesTheFlawedReference, skewcheck chaos --fault expired-serving), which the matrix does not run: no profile of it replaces a certificate",
	},
}
