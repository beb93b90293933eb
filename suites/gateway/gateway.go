// Package gateway is the conformance profile of an API gateway in front of several
// kube-apiservers of different versions, configured with KubeGateway's UpstreamCluster
// documents: dispatch rules (with negation), first-match order, upstream subsets,
// RoundRobin, health, flow control, the identity upstreams see, and skew. The target's
// endpoints are the apiservers themselves; the gateway is env.Target.Gateway. Which
// apiserver a request reached is read from their audit logs (the gateway passes the
// client's Audit-ID on), so every assertion is about real behaviour, not the gateway's
// own account of it.
package gateway

import "github.com/skewcheck/skewcheck/framework"

// Profile is this suite's profile name.
const Profile = "gateway"

var needs = []framework.Feature{framework.FeatureGateway, framework.FeatureAuditLog}

func with(extra ...framework.Feature) []framework.Feature {
	return append(append([]framework.Feature{}, needs...), extra...)
}

// Tests is the profile, as data. IDs are stable: a retired test's ID is never reused.
var Tests = []framework.Test{
	{ID: "GW-001", Profile: Profile, Since: "1.28", Features: with(framework.FeatureSkew),
		Description: "a GVR only some apiservers serve is never answered 404 through the gateway (the report credits each request to the server the gateway sent it to: routed there by the gateway, or rescued by the apiservers' peer proxy)",
		Makes:       framework.NoWrites, Run: skewNever404},
	{ID: "GW-010", Profile: Profile, Since: "1.28", Features: needs,
		Description: "rule field verbs: a rule matches the listed verbs only (list, create; not get, watch)",
		Makes:       []framework.Write{dryRunCreate}, Run: verbsRule},
	{ID: "GW-011", Profile: Profile, Since: "1.28", Features: needs,
		Description: "rule fields apiGroups and resources: \"\" is the core group; r/sub and */sub match subresources, r does not",
		Makes:       framework.NoWrites, Run: groupsAndResourcesRule},
	{ID: "GW-012", Profile: Profile, Since: "1.28", Features: needs,
		Description: "rule field resourceNames: the named object only, never a list",
		Makes:       framework.NoWrites, Run: resourceNamesRule},
	{ID: "GW-013", Profile: Profile, Since: "1.28", Features: with(framework.FeatureUnprivileged),
		Description: "rule fields users, serviceAccounts (bearer token) and userGroups; empty users and serviceAccounts match every user",
		Makes:       serviceAccount, Run: subjectsRule},
	{ID: "GW-014", Profile: Profile, Since: "1.28", Features: needs,
		Description: "rule field nonResourceURLs: exact, and a trailing * as a prefix; URL rules never match resources",
		Makes:       framework.NoWrites, Run: nonResourceRule},
	{ID: "GW-015", Profile: Profile, Since: "1.28", Features: with(framework.FeatureUnprivileged),
		Description: "negation: * overrides; [-a,-b] matches neither a nor b but the rest; a mixed list ignores its negated entries; in verbs, apiGroups, users, userGroups, resourceNames",
		Makes:       framework.NoWrites, Run: negationTable},
	{ID: "GW-016", Profile: Profile, Since: "1.28", Features: needs,
		Description: "the first dispatch policy that matches takes the request",
		Makes:       framework.NoWrites, Run: firstMatch},
	{ID: "GW-020", Profile: Profile, Since: "1.28", Features: needs,
		Description: "a policy's requests go only to its upstreamSubset",
		Makes:       framework.NoWrites, Run: upstreamSubset},
	{ID: "GW-021", Profile: Profile, Since: "1.28", Features: needs,
		Description: "a disabled server is never chosen, even when a policy's subset names it",
		Makes:       framework.NoWrites, Run: disabledNeverChosen},
	{ID: "GW-022", Profile: Profile, Since: "1.28", Features: needs,
		Description: "RoundRobin: 120 requests over the servers, each gets its share within ±20%",
		Makes:       framework.NoWrites, Run: roundRobinFair},
	{ID: "GW-030", Profile: Profile, Since: "1.28", Features: with(framework.FeatureUnprivileged),
		Description: "the upstream sees the client's user, groups, UID and extra (SelfSubjectReview), impersonated by the gateway (audit log), for a certificate user and a service account's token (which has a UID); bearer tokens are reviewed",
		Makes:       plus(serviceAccount, whoAmI), Run: identitySeen},
	{ID: "GW-031", Profile: Profile, Since: "1.28", Features: with(framework.FeatureUnprivileged),
		Description: "identity headers a client sends (X-Remote-*, Impersonate-*) grant nothing its own RBAC does not; naming them, Authorization or the peer-proxied marker in Connection is refused (400) or changes nobody's identity, for users, bearer tokens and anonymous",
		Makes:       plus(serviceAccount, whoAmI, impersonates), Run: spoofedHeaders},
	{ID: "GW-032", Profile: Profile, Since: "1.28", Features: with(framework.FeatureUnprivileged),
		Description: "upgrade requests keep the user: SPDY and websocket exec are 404 to the admin and 403 to an ungranted user, a websocket watch 403 before a grant and 101 after, an SPDY-upgrade watch 200 (or 502, k8s.io/apimachinery's upgrade-aware proxy's answer to a backend that does not upgrade); each ran upstream as the user (audit log)",
		Makes:       plus(configMapGrant, execs), Run: upgradesKeepUser},
	{ID: "GW-040", Profile: Profile, Since: "1.28", Features: needs,
		Description: "MaxRequestsInflight: beyond the limit 429 with Retry-After; a finished request frees its slot; watches hold none",
		Makes:       framework.NoWrites, Run: maxInflight},
	{ID: "GW-041", Profile: Profile, Since: "1.28", Features: needs,
		Description: "TokenBucket{qps 5, burst 5}: the admitted rate is qps within ±30%, the rest 429 with Retry-After",
		Makes:       framework.NoWrites, Run: tokenBucket},
	{ID: "GW-042", Profile: Profile, Since: "1.28", Features: needs,
		Description: "Exempt: 50 requests at once, none refused",
		Makes:       framework.NoWrites, Run: exempt},
	{ID: "GW-050", Profile: Profile, Since: "1.28", Features: with(framework.FeatureNodeControl),
		Description: "a killed upstream is out of the rotation within 5 s and back within 15 s of restarting",
		Makes:       []framework.Write{dryRunCreate}, Run: killedUpstream},
	{ID: "GW-051", Profile: Profile, Since: "1.28", Features: with(framework.FeatureNodeControl),
		Description: "a frozen upstream is out of the rotation within 15 s and back within 15 s of thawing; no request hangs on it for the whole 15 s",
		Makes:       []framework.Write{dryRunCreate}, Run: frozenUpstream},
	{ID: "GW-060", Profile: Profile, Since: "1.28", Features: needs,
		Description: "a request no dispatch policy matches reaches no apiserver and is answered by the gateway 403 Forbidden (a JSON Status), never 5xx: the client's to fix, not a server failure to retry",
		Makes:       framework.NoWrites, Run: noPolicyMatches},
	{ID: "GW-061", Profile: Profile, Since: "1.28", Features: needs,
		Description: "an invalid UpstreamCluster (r/*, unknown flow-control schema, no servers, negated serviceAccounts or nonResourceURLs) is refused, naming the problem; the previous configuration keeps serving",
		Makes:       framework.NoWrites, Run: invalidRefused},
	{ID: "GW-070", Profile: Profile, Since: "1.28", Features: needs,
		Description: "the server name (sent as both TLS server name and Host, as kubectl does) selects the UpstreamCluster: with two clusters under two names, each name's requests reach only its cluster's servers",
		Makes:       framework.NoWrites, Run: sniSelectsCluster},
	{ID: "GW-071", Profile: Profile, Since: "1.28", Features: needs,
		Description: "a server name no UpstreamCluster lists reaches no apiserver: 503 from the gateway (KubeGateway's \"not being proxied\") or a refused TLS handshake, never a default cluster",
		Makes:       framework.NoWrites, Run: unknownServerName},
	{ID: "GW-072", Profile: Profile, Since: "1.28", Features: needs,
		Description: "a request whose Host and TLS server name name two different UpstreamClusters, each with a client CA of its own, is never routed by one name and authenticated by the other: it reaches at most the cluster whose client CA accepts its certificate; a refusal (421 Misdirected Request) is recommended, and which name a gateway that serves it used is reported",
		Makes:       framework.NoWrites, Run: hostAndSNIDisagree},
	{ID: "GW-080", Profile: Profile, Since: "1.28", Features: needs,
		Description: "HTTP/2 convergence: 200 clients, each on its own connection, send 10 GETs each at once; the gateway shares its upstream connections between clients: at most 100 TCP connections to each upstream at the peak (half the clients), where one per client is about 200 (the peak is measured and reported; 200 requests in flight at one upstream need 2 of kube-apiserver's 100-stream connections)",
		Makes:       framework.NoWrites, Run: http2Converges},
	{ID: "GW-090", Profile: Profile, Since: "1.28", Features: needs,
		Description: "slow clients go unnoticed: while 8 slow-loris connections of each kind (headers, a create's body, a watch read, a byte a second) are held for 10 s, LISTs and creates of ConfigMaps through the gateway on connections of their own all succeed, none slower than 5 s (the chaos table's slow-client fault)",
		Makes:       []framework.Write{slowClientLoad}, Run: slowClientsUnnoticed},
	{ID: "GW-091", Profile: Profile, Since: "1.28", Features: with(framework.FeatureUnprivileged),
		Description: "a greedy client holds up no other: while one client (the admin) holds 450 creates at once through the gateway, each on its own connection with a body that comes a byte a second, all to one apiserver, another client's (the unprivileged user's) GETs there all succeed and their p99 stays within 10x of their p99 before (at least 250 ms); the greedy client's own requests may wait or be refused (reported)",
		Makes:       plus(configMapGrant, greedyCreates), Run: greedyClientContained},
}
