// Package mvp is the conformance profile of the Mixed Version Proxy (KEP-4020): a server
// that cannot serve a request's group/version/resource forwards it to a peer that can,
// once, with the client's identity; answers 503 when that peer fails and 404 only when no
// server serves it. Every assertion here holds for real upstream kube-apiservers.
package mvp

import (
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/suites/kep4020"
)

// Profile is this suite's profile name.
const Profile = "mvp"

// upgradeIdentityLost is upstream's known deviation on proxied upgrade requests. Seen on
// every version the matrix runs, up to 1.37.2 (where both servers are 1.37), the
// newest release, and on v1.38.0-beta.0 (its entry of v1.37.2 + v1.38.0-beta.0, 2026-12-02):
// open until a fix is seen.
//
// The entry's peer proxy hands an upgrade request to k8s.io/apimachinery's upgradeaware
// handler, which dials the peer itself and writes the client's request on the new
// connection, bypassing the round tripper that adds X-Remote-User and -Group
// (k8s.io/apiserver pkg/util/peerproxy peerproxy_handler.go proxyRequestToDestinationAPIServer).
// The peer's request-header authenticator then finds no user, its client-certificate
// authenticator does not know the proxy's certificate, and it answers 401. So the
// allowance is that 401, seen through the entry (whose code drops the headers); a 403, a
// 404, a 5xx or no answer is not it.
var upgradeIdentityLost = &framework.Deviation{Since: "1.28",
	Summary: "upgrade requests reach the peer without the X-Remote-* identity headers (k8s.io/apiserver upgradeaware proxy), so the peer does not see the user",
	Allowed: "401 Unauthorized through the entry, for an upgrade request of a GVR only its peer serves",
	Allows:  func(o framework.Observation) bool { return o.Status == 401 }}

// Tests is the profile, as data. IDs are stable: a retired test's ID is never reused.
var Tests = []framework.Test{
	{ID: "MVP-001", Profile: Profile, Since: "1.28", Features: []framework.Feature{framework.FeatureAuditLog},
		Description: "a request for a GVR the server serves is served locally, never forwarded",
		Makes:       framework.NoWrites, Run: servedLocally},
	{ID: "MVP-010", Profile: Profile, Since: "1.28", Features: []framework.Feature{framework.FeatureSkew},
		Description: "get and list of a GVR only a peer serves are proxied and equal asking the peer directly",
		Makes:       made, Run: proxiedReads},
	{ID: "MVP-011", Profile: Profile, Since: "1.28", Features: []framework.Feature{framework.FeatureSkew},
		Description: "create, update, patch, delete and deletecollection of a GVR only a peer serves are proxied",
		Makes:       everyVerb, Run: proxiedWrites},
	{ID: "MVP-012", Profile: Profile, Since: "1.28", Features: []framework.Feature{framework.FeatureSkew},
		Description: "a watch of a GVR only a peer serves is proxied and streams the peer's events",
		Makes:       made, Run: proxiedWatch},
	{ID: "MVP-013", Profile: Profile, Since: "1.28", Features: []framework.Feature{framework.FeatureSkew, framework.FeatureSkewedStatus},
		Description: "a subresource (status) of a GVR only a peer serves is proxied",
		Makes:       made, Run: proxiedSubresource},
	{ID: "MVP-014", Profile: Profile, Since: "1.28", Features: []framework.Feature{framework.FeatureSkew, framework.FeatureAuditLog},
		Description: "a proxied request reaches exactly one peer, once (at most one hop)",
		Makes:       framework.NoWrites, Run: oneHop},
	{ID: "MVP-020", Profile: Profile, Since: "1.28",
		Description: "a group-version no server serves is 404 `404 page not found` on every endpoint: text/plain up to 1.37, a JSON Status NotFound from 1.38",
		Makes:       framework.NoWrites, Run: unknownGroupVersion},
	{ID: "MVP-021", Profile: Profile, Since: "1.28",
		Description: "an unknown resource in a served group-version is a 404 JSON Status on every endpoint",
		Makes:       framework.NoWrites, Run: unknownResource},
	{ID: "MVP-022", Profile: Profile, Since: "1.28", Features: []framework.Feature{framework.FeatureSkew, framework.FeatureNodeControl},
		Description: "when the only peer serving a GVR crashes, requests for it get 503, not 404",
		SpecVsCode:  []framework.SpecVsCode{kep4020.ProxyFailureBody},
		Makes:       framework.NoWrites, Run: crashedPeer},
	{ID: "MVP-030", Profile: Profile, Since: "1.28", Features: []framework.Feature{framework.FeatureSkew},
		Description: "a request already marked x-kubernetes-peer-proxied is served locally, never forwarded again: 404 for a GVR the server lacks; the KEP's X-Kubernetes-APIServer-Rerouted is no marker, and a request carrying it is proxied",
		SpecVsCode:  []framework.SpecVsCode{kep4020.MarkedNotServedLocally, kep4020.MarkerHeaderName},
		Makes:       framework.NoWrites, Run: loopGuard},
	{ID: "MVP-031", Profile: Profile, Since: "1.28", Features: []framework.Feature{framework.FeatureSkew},
		Description: "a /apis/<group>/<version> document asked as already proxied (x-kubernetes-peer-proxied) is the entry's own, never proxied or merged",
		Makes:       framework.NoWrites, Run: nonResourceLocal},
	{ID: "MVP-040", Profile: Profile, Since: "1.28", Features: []framework.Feature{framework.FeatureSkew, framework.FeatureUnprivileged},
		Description: "an unprivileged user is denied through the proxy exactly as by the peer directly",
		Makes:       framework.NoWrites, Run: unprivilegedDenied},
	{ID: "MVP-041", Profile: Profile, Since: "1.28", Features: []framework.Feature{framework.FeatureSkew, framework.FeatureUnprivileged},
		Description: "a user RBAC allows may get, list and watch through the proxy",
		Makes:       with(grants, made), Run: allowedUser},
	{ID: "MVP-042", Profile: Profile, Since: "1.28", Features: []framework.Feature{framework.FeatureSkew, framework.FeatureUnprivileged},
		Description: "impersonation through the proxy is authorized as the impersonated user, as by the peer directly",
		Makes:       impersonates, Run: impersonation},
	{ID: "MVP-043", Profile: Profile, Since: "1.28", Features: []framework.Feature{framework.FeatureSkew, framework.FeatureUnprivileged, framework.FeatureAuditLog},
		Description: "the peer's audit log shows the original user, groups and UID of a proxied request",
		Makes:       grants, Run: auditIdentity},
	{ID: "MVP-044", Profile: Profile, Since: "1.28", Features: []framework.Feature{framework.FeatureSkew, framework.FeatureUnprivileged},
		Description: "identity headers a client sends itself (X-Remote-User, -Group, -Uid, -Extra-*) grant nothing through the proxy, nor does naming the proxy's own headers, Authorization or the loop marker in Connection (for the user and anonymous)",
		Makes:       with(grants, refused, impersonates), Run: spoofedHeaders},
	{ID: "MVP-045", Profile: Profile, Since: "1.28", Features: []framework.Feature{framework.FeatureSkew, framework.FeatureUnprivileged},
		Description: "an upgrade request (websocket watch) through the proxy keeps the user's identity",
		Deviation:   upgradeIdentityLost,
		Makes:       grants, Run: upgradeIdentity},
	{ID: "MVP-046", Profile: Profile, Since: "1.28", Features: []framework.Feature{framework.FeatureSkew, framework.FeatureAuditLog},
		Description: "an unauthenticated request is never forwarded with anyone's credentials: the peer sees it as anonymous",
		Makes:       framework.NoWrites, Run: anonymousStaysAnonymous},
	{ID: "MVP-047", Profile: Profile, Since: "1.28", Features: []framework.Feature{framework.FeatureSkew, framework.FeatureUnprivileged},
		Description: "Impersonate headers (User, Group, Uid, Extra-*) from a user not allowed to impersonate grant nothing through the proxy",
		Makes:       framework.NoWrites, Run: impersonationNotAllowed},
	{ID: "MVP-048", Profile: Profile, Since: "1.28", Features: []framework.Feature{framework.FeatureSkew},
		Description: "a bearer token the apiservers reject is answered 401 Unauthorized through the proxy, as by the peer directly, never served as anonymous",
		Makes:       framework.NoWrites, Run: badTokenUnauthorized},
	{ID: "MVP-049", Profile: Profile, Since: "1.28", Features: []framework.Feature{framework.FeatureSkew, framework.FeatureUnprivileged},
		Description: "upgrade requests, SPDY and websocket, get the apiserver's answer through the proxy: exec is 404 to the admin and 403 to an ungranted user; an SPDY-upgrade watch of a GVR only a peer serves is denied there to the ungranted user and reaches it as the allowed user",
		Deviation:   upgradeIdentityLost,
		Makes:       with(execs, grants), Run: upgradeAnswers},
	{ID: "MVP-050", Profile: Profile, Since: "1.35", Features: []framework.Feature{framework.FeaturePeers, framework.FeatureAuditLog},
		Description: "a custom resource whose CRD was just created through another server is never proxied: 404 until this server has established the CRD, then 200, never 503; no request, the first write included, reaches another server",
		Makes:       with(framework.CRDWrites, framework.CRDObjectWrites), Run: crdJustCreated},
	{ID: "MVP-051", Profile: Profile, Since: "1.35", Features: []framework.Feature{framework.FeaturePeers, framework.FeatureNodeControl},
		Description: "when the server a CRD was created through is killed, its custom resources through every other server still answer reads 200 and writes 201: every server serves them itself",
		Makes:       with(framework.CRDWrites, framework.CRDObjectWrites), Run: crdOriginDown},
	{ID: "MVP-052", Profile: Profile, Since: "1.35", Features: []framework.Feature{framework.FeaturePeers, framework.FeatureAuditLog, framework.FeatureAggregatedAPI},
		Description: "an aggregated API (an APIService with a Service) just registered through another server is never proxied: 404 or 503 until this server's aggregator serves it, then 200; no request, the first write included, reaches another server",
		Makes:       with(framework.AggregatedAPIWrites, aggregatedObjects), Run: aggregatedJustCreated},
	{ID: "MVP-053", Profile: Profile, Since: "1.35", Features: []framework.Feature{framework.FeaturePeers, framework.FeatureAuditLog, framework.FeatureAggregatedAPI},
		Description: "when an aggregated API's server is down, every server answers 503 for it, never 404, and sends nothing to a peer; once it is back, 200 again",
		Makes:       framework.AggregatedAPIWrites, Run: aggregatedServerDown},
}
