package suites

import (
	"maps"

	"github.com/skewcheck/skewcheck/framework/matrix"
)

// apiserverOnly is the reason of a test of the apiserver's own handling of ipMode: the
// ipmode family's mutants are dataplanes, which read a Service only after the apiserver
// has defaulted, validated and stored it, so none can change what such a test sees. A
// mutant would have to be another apiserver (a build, or one with an admission policy
// that rewrites services/status), which is not a variant of anything skewcheck ships.
// Each reason names the apiserver code the test checks (k8s.io/kubernetes v1.35.4).
func apiserverOnly(what string) string {
	return "tests " + what + ", which the apiserver does before any dataplane reads the Service: no dataplane variant can change what the test sees, only another apiserver could"
}

// MutationReasons say why a test of the mutation matrix (`skewcheck mutation`) is failed
// by no shipped mutant, or a mutant caught by no test: without a reason here, either is a
// problem of the matrix. Keys are test IDs and mutant names ("<family>/<variant>"); a
// reason for what a mutant fails, or a test catches, is stale and a problem too. Measured
// in docs/mutation.md.
var MutationReasons = matrix.MutationReasons{
	Tests: map[string]string{
		"IPM-001": apiserverOnly("the defaulting of an ingress with ip to ipMode VIP (pkg/apis/core/v1/defaults.go:154, SetDefaults_Service)"),
		"IPM-002": apiserverOnly("that the apiserver stores ipMode Proxy as written (pkg/apis/core/validation/validation.go:8649, the supported values)"),
		"IPM-003": apiserverOnly("the validation refusing ipMode without ip (pkg/apis/core/validation/validation.go:8678, Forbidden)"),
		"IPM-004": apiserverOnly("the validation refusing ipMode values other than VIP and Proxy (pkg/apis/core/validation/validation.go:8680, NotSupported)"),
		"IPM-005": apiserverOnly("the validation refusing load-balancer ingress on a Service that is not type LoadBalancer (pkg/apis/core/validation/validation.go:8656, Forbidden)"),
		"IPM-006": apiserverOnly("that the defaulting gives a hostname-only ingress no ipMode (pkg/apis/core/v1/defaults.go:157, only an ingress with ip is defaulted)"),
	},
}

// A claim's forms (matrix.Claim): the failing assertion, by a fragment of its description,
// and what the flaw makes it observe: an HTTP status (seesStatus), a part of the value
// (sees: a user name, a content type), an empty value (seesEmpty), a count of at least
// some number (seesCount), or nothing named
// (textOnly: any failure of the assertion counts, and docs/mutation.md lists it as such).
var (
	textOnly   = matrix.ClaimText
	seesStatus = matrix.ClaimStatus
	sees       = matrix.ClaimValue
	seesEmpty  = matrix.ClaimEmpty
	seesCount  = matrix.ClaimCount
)

// MutantCatches are every mutant's claims: the tests its flaw must make fail, each with
// the assertion and the value the flaw makes it observe (matrix.Catches). Only a claimed
// failure, at the claim's assertion observing its value, counts in the matrix;
// docs/tests.md lists each test's claimants, docs/mutation.md each claim. Keys
// name every mutant of every family (cmd's TestMutantClaims checks them against the
// references' registries, and their tests against the suites).
var MutantCatches = func() matrix.Catches {
	out := matrix.Catches{}
	for _, c := range []matrix.Catches{peerproxyCatches, gatewayCatches, ipmodeCatches, controllersCatches} {
		maps.Copy(out, c)
	}
	return out
}()
