package suites

import (
	"maps"

	"github.com/skewcheck/skewcheck/framework/matrix"
)

// Fragments several gateway claims share.
const (
	// gatewayMisrouted is expectRouting's assertion (suites/gateway/rules.go), the only one
	// of GW-010 to GW-015 a routing defect can trip: a row landed on the other server.
	gatewayMisrouted = "requests it matches must go to its policy's server"
	// gatewayNotFirst is firstMatch's first assertion (GW-016): the first of two matching
	// policies did not take configmaps.
	gatewayNotFirst = "two policies match configmaps; the first"
	// gatewayRestoredIgnored is unhealthy's restore loop (GW-050, GW-051): the server back
	// gets no request within restoreBound.
	gatewayRestoredIgnored = "but the gateway sends it nothing"
	// gatewayNeverEvicted is unhealthy's first problem (GW-050, GW-051): never ten 200s
	// within answerBound in a row after the failure (a string fmt.Sprintf writes, joined
	// into the assertion's "%s").
	gatewayNeverEvicted = "requests through the gateway never answered 200 within"
	// gatewayHung is unhealthy's third problem (GW-051): requests that waited on the
	// frozen server until the test's own 15 s deadline (a string fmt.Sprintf writes,
	// joined into the assertion's "%s").
	gatewayHung = "not hold a request on a dead upstream"
	// gatewayUpgradeAsGateway is upgradesKeepUser's second assertion (GW-032): an exec as
	// a user RBAC grants nothing is not 403, since it ran with the gateway's rights.
	gatewayUpgradeAsGateway = "must authorize the user, not the gateway"
	// hostAndSNIDisagree's assertion (GW-072): a request reached the cluster whose client CA
	// does not accept its certificate.
	gatewayMixedNames = "routed by one name and authenticated by the other"
	// gatewayIdentity is who the upstream sees when the gateway forwards as itself: the
	// user of its own client certificate (clusters/gateway.Identity).
	gatewayIdentity = "skewcheck:gateway"
)

// gatewayCatches are the claims of the reference gateway's defects
// (reference/gateway/defects.go, run with --gateway reference --gateway-defect NAME on
// the gateway profile): the tests each must fail, measured in docs/mutation.md and
// cmd/skewcheck/gateway_test.go, with a fragment of that failure. GW-080's failures
// near its bound (go-transport, last-match-wins, upgrade-as-itself and others whose
// defect has nothing to do with connections) are noise and claimed by none but
// connection-per-client.
var gatewayCatches = matrix.Catches{
	// Negated entries OR-ed (["-pods","-deployments"] takes pods): the negation table's rows land on the rule's server.
	"gateway/negation-or": {
		"GW-015": textOnly(gatewayMisrouted),
	},
	// Requests reach the upstreams as the gateway itself: the identity checks see the gateway, not the client.
	"gateway/no-impersonation": {
		"GW-030": sees("user name the upstream sees through the gateway", gatewayIdentity), // sameIdentity's first assertion, the certificate user
		"GW-031": sees("sent by a client changed who the upstream sees", gatewayIdentity),  // spoofedHeaders' first assertion (X-Remote-User)
		"GW-032": seesStatus(gatewayUpgradeAsGateway, 404),                                 // the user's exec is the gateway's: the missing pod's 404, not 403
	},
	// Any server of the policy takes any request: a GVR only the other server serves is answered 404.
	"gateway/ignore-discovery": {
		"GW-001": seesStatus("it must be answered, never 404", 404),
	},
	// The default server name's cluster serves every request: the second name, an unknown one and a disagreeing Host reach it.
	"gateway/ignore-sni": {
		"GW-070": sees("selects the UpstreamCluster of", "<string>: apiserver-1"), // the second name's requests land on the first cluster
		"GW-071": seesStatus("which no UpstreamCluster lists", 401),               // the unknown name reaches the first cluster, whose apiserver refuses the certificate: 401, not the gateway's 503
		// The handshake verifies against the server name's client CA, the request goes to
		// the default cluster: a certificate only the second cluster accepts reaches the first.
		"GW-072": sees(gatewayMixedNames, "<string>: apiserver-1"),
	},
	// The Host routes, the TLS server name's client CA authenticates: a certificate only the
	// first cluster accepts reaches the second.
	"gateway/host-routes-sni-authenticates": {"GW-072": textOnly(gatewayMixedNames)},
	// Upgrades reach the apiservers as the gateway: the exec of a user RBAC grants nothing is not refused 403.
	"gateway/upgrade-as-itself": {
		"GW-032": seesStatus(gatewayUpgradeAsGateway, 404),
	},
	// Go Transports per client connection: ~100 connections per upstream under GW-080, and no HTTP/2 ping, so requests hang on a frozen one.
	"gateway/connection-per-client": {
		"GW-051": textOnly(gatewayHung),
		"GW-080": textOnly("converge on a few HTTP/2 connections"), // http2Converges' bound on the peak
	},
	// One Go Transport with no HTTP/2 ping: requests on its connection to the frozen server hang (GW-080, crossed in some runs only: unclaimed).
	"gateway/go-transport": {
		"GW-051": textOnly(gatewayHung),
	},
	// Impersonation set before the headers Connection names are removed: naming Impersonate-* there sends the request as the gateway.
	"gateway/impersonation-before-hop-by-hop": {
		// hopByHopIdentity's SelfSubjectReview at its first naming, every impersonation header:
		// the upstream runs it as the gateway. (The namings that leave one of them are
		// refused 400 by kube-apiserver itself, which the test accepts as a refusal: with
		// only those, GW-031 passed against this mutant, seed 1, 2026-12-02.)
		"GW-031": sees("and the upstream ran the request as", gatewayIdentity),
	},
	// A request no policy matches is answered 500 instead of 403: GW-060 wants no 5xx.
	"gateway/no-policy-500": {
		"GW-060": seesStatus("answered with a server error", 500), // the status compared alone: "<int>: 500"
	},
	// No Impersonate-Uid: a service account's token runs upstream without its UID.
	"gateway/drop-uid": {
		"GW-030": seesEmpty("UID the upstream sees through the gateway"), // sameIdentity for the token (the certificate user has no UID): none passed on
	},
	// A rule's verbs are not looked at: the verbs rule and the negated verbs row take every verb.
	"gateway/ignore-verbs": {
		"GW-010": textOnly(gatewayMisrouted),
		"GW-015": textOnly(gatewayMisrouted),
	},
	// A request is matched by its resource alone: pods/log and */status match nothing, pods takes pods/status.
	"gateway/ignore-subresource": {
		"GW-011": textOnly(gatewayMisrouted),
	},
	// resourceNames let a list through: the rule for one ConfigMap takes the list of them.
	"gateway/names-match-lists": {
		"GW-012": textOnly(gatewayMisrouted),
	},
	// users, serviceAccounts and userGroups are not looked at: a rule for one user takes everybody, negated subjects too.
	"gateway/ignore-subjects": {
		"GW-013": textOnly(gatewayMisrouted),
		"GW-015": textOnly(gatewayMisrouted),
	},
	// Empty apiGroups and resources match everything: the nonResourceURLs rule takes a list of configmaps.
	"gateway/url-rules-match-resources": {
		"GW-014": textOnly(gatewayMisrouted),
	},
	// A nonResourceURLs entry without * is taken as a prefix: /version takes /version/x.
	"gateway/url-entries-are-prefixes": {
		"GW-014": textOnly(gatewayMisrouted),
	},
	// The last matching policy wins: the catch-all after each rule test's rule takes everything, GW-016's second policy configmaps.
	"gateway/last-match-wins": everyRuleTest(nil),
	// upstreamSubset disregarded: each policy round-robins over every enabled server, so requests land where it names none.
	"gateway/ignore-subset": everyRuleTest(map[string]matrix.Claim{
		"GW-020": textOnly("where 10 requests landed"),                  // upstreamSubset's count of the 10 landings
		"GW-021": textOnly("the only server of the policy is disabled"), // the second assertion: the first passes (the enabled server is in that subset)
	}),
	// Disabled servers stay in the subsets that name them: the disabled one takes its share.
	"gateway/disabled-chosen": {
		"GW-021": textOnly("is disabled: where 10 requests landed"), // disabledNeverChosen's first assertion
	},
	// Every request to the first server, the others only on failure: no rotation, and the restored second server gets nothing.
	"gateway/first-server-only": {
		"GW-022": textOnly("RoundRobin over"), // roundRobinFair's one assertion: all its format's literal text is this short
		"GW-050": textOnly(gatewayRestoredIgnored),
		"GW-051": textOnly(gatewayRestoredIgnored),
	},
	// Watches take MaxRequestsInflight slots: the third of GW-040's watches, max 2, is refused 429.
	"gateway/inflight-counts-watches": {
		"GW-040": seesStatus("long-running requests are not limited by max-inflight", 429),
	},
	// A TokenBucket admits everything: 4 s of back-to-back requests are never refused.
	"gateway/no-token-bucket": {
		"GW-041": textOnly("no request was refused in"),
	},
	// An Exempt schema is a MaxRequestsInflight of 0: every request is refused 429.
	"gateway/refuse-exempt": {
		"GW-042": seesStatus("of 50 at once through an Exempt policy", 429),
	},
	// No health tracking nor retry: the dead server keeps every other request, which fails, so never ten 200s in a row.
	"gateway/keep-killed-upstream": {
		"GW-050": textOnly(gatewayNeverEvicted),
		"GW-051": textOnly(gatewayNeverEvicted),
	},
	// Validation problems are logged and the configuration applied: an invalid document's apply succeeds.
	"gateway/apply-invalid": {
		"GW-061": sees("was applied; it must be refused", "nil"), // HaveOccurred on the apply's error: "<nil>: nil"
	},
	// Every request body is read whole under one lock: a trickling body holds up the other clients' lists and creates.
	"gateway/bodies-in-turn": {
		"GW-090": textOnly("must not be noticed by other clients of the gateway"),
	},
	// Streams shared by all clients, waited for without bound: the greedy client's 450 slow creates take every stream to the upstream, the user's GETs wait for them.
	"gateway/shared-lanes": {
		"GW-091": textOnly("one client's load must not hold another's requests in the gateway"), // either assertion: the GETs failed (timed out, or 503 once the starved health checks evicted the upstream), or their p99 crossed the bound
	},
}

// everyRuleTest claims GW-010 to GW-016, which each put their rule's policy before a
// catch-all (GW-016 two matching policies): a defect in which policy takes a request fails
// every one of them, and more besides.
func everyRuleTest(more map[string]matrix.Claim) map[string]matrix.Claim {
	out := map[string]matrix.Claim{"GW-016": textOnly(gatewayNotFirst)}
	for _, id := range []string{"GW-010", "GW-011", "GW-012", "GW-013", "GW-014", "GW-015"} {
		out[id] = textOnly(gatewayMisrouted)
	}
	maps.Copy(out, more)
	return out
}
