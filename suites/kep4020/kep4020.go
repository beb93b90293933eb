// Package kep4020 holds, as data, the points where KEP-4020's text (the Mixed Version
// Proxy) and upstream's code disagree about something a suite's test checks. The tests
// assert what the code does, which is what users of upstream Kubernetes get; each test
// that checks such a point names it in its table (framework.Test.SpecVsCode), so the
// report and docs/tests.md carry both sides. docs/spec-vs-code.md lists these and the
// points no test can check.
//
// The KEP was read at kubernetes/enhancements 64765b4b (2026-07-24),
// keps/sig-api-machinery/4020-unknown-version-interoperability-proxy/README.md, its beta
// text for 1.36; the code in k8s.io/apiserver, k8s.io/apimachinery and
// k8s.io/kube-aggregator v0.35.4 and v0.36.3 (Kubernetes 1.35.4 and 1.36.3), which behave
// the same on every point here.
package kep4020

import "github.com/skewcheck/skewcheck/framework"

// spec names the document in every point.
const spec = "KEP-4020"

// checked are the releases whose code the references below were read in.
const checked = "1.35.4, 1.36.3"

// MarkedNotServedLocally: a request marked as already proxied, for a GVR the server lacks.
// The KEP wants 503 (retry elsewhere); the code hands the request to the local chain,
// which answers as it would without the proxy: 404.
var MarkedNotServedLocally = framework.SpecVsCode{Spec: spec, CodeVersions: checked,
	Section:  "Design Details > Aggregation Layer, item 2.3",
	SpecSays: "a request whose header says it has been proxied once already is passed to the local handler; \"If for some reason the resource is not found locally, we will serve error 503\"",
	CodeDoes: "the marked request goes to the local handler chain unchanged, which answers 404 for a GVR the server does not serve (404 text/plain for a group-version it lacks, a JSON Status of the same words from 1.38; a 404 JSON Status for a resource its group-version lacks); never 503",
	CodeRef:  "k8s.io/apiserver pkg/util/peerproxy/peerproxy_handler.go:161-165 (v0.36.3; :182-186 in v0.35.4)"}

// MarkerHeaderName: the loop marker's name. The KEP (and the 1.28 blog) name a header the
// code never sends or reads.
var MarkerHeaderName = framework.SpecVsCode{Spec: spec, CodeVersions: checked,
	Section:  "Proposal > Risks and Mitigations, item 4 (Indefinite rerouting); Design Details > Aggregation Layer, item 2.3",
	SpecSays: "the marker is the header `X-Kubernetes-APIServer-Rerouted:true`, added when a request is proxied and removed once the destination has received it",
	CodeDoes: "the marker is `x-kubernetes-peer-proxied: true`, added to the forwarded request and never removed; `X-Kubernetes-APIServer-Rerouted` means nothing, so a request carrying it is proxied like any other",
	CodeRef:  "k8s.io/apiserver pkg/util/peerproxy/peerproxy_handler.go:56, :161, :251 (v0.36.3; :56, :182, :271 in v0.35.4)"}

// ProxyFailureBody: what a failed proxy call answers. Both say 503; the body differs.
var ProxyFailureBody = framework.SpecVsCode{Spec: spec, CodeVersions: checked,
	Section:  "Design Details > Aggregation Layer, item 5",
	SpecSays: "\"If the proxy call fails for network issues or any reason, it will serve 503 with error `Error while proxying request to destination apiserver`\"",
	CodeDoes: "503, but those words are only logged: a failed dial or a lost connection is a 503 text/plain whose body is the transport's error, `error trying to reach service: <error>`; a peer whose address cannot be looked up (its endpoint lease gone) is a 503 JSON Status, `Error getting ip and port info of the remote server while proxying`",
	CodeRef:  "k8s.io/apiserver pkg/util/peerproxy/peerproxy_handler.go:278-280 and :195 (v0.36.3; :297-299 and :215 in v0.35.4); k8s.io/apimachinery pkg/util/proxy/transport.go:105"}

// CoreDiscoveryNotMerged: /api. One section of the KEP says it is merged, another that it
// is not; the code merges /apis only.
var CoreDiscoveryNotMerged = framework.SpecVsCode{Spec: spec, CodeVersions: checked,
	Section:  "Design Details > Discovery Merging",
	SpecSays: "\"This handler extends the existing aggregated discovery endpoints (/apis and /api)\" (the Summary's note says the opposite: /api is not peer-aggregated)",
	CodeDoes: "only /apis (aggregated discovery v2, without profile=nopeer) is merged; /api's aggregated handler is given the local discovery manager where the peer-aggregated one would go, so /api is always the server's own",
	CodeRef:  "k8s.io/apiserver pkg/server/genericapiserver.go:877 (v0.36.3; :866 in v0.35.4); k8s.io/kube-aggregator pkg/apiserver/apiserver.go:283-284 (v0.35.4 and v0.36.3)"}
