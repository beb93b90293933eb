package suites

import "github.com/skewcheck/skewcheck/framework/matrix"

// ipmodeCatches are the claims of the reference dataplane's flawed variants
// (dataplane.ReferenceFlawed, run with --dataplane NAME on the ipmode profile): the tests
// each must fail, measured in docs/mutation.md and cmd/skewcheck/dataplane_test.go, with
// a fragment of that failure. The fragments are the tests' own words for the path a
// request must take (the why of expectSteady, the what of waitPath in
// suites/ipmode/dataplane.go), literal strings there that reach the failure whole; the
// hop's own "directly, without the load balancer" is left out, as a request that errs
// does not print it.
var ipmodeCatches = matrix.Catches{
	// ipMode ignored, Proxy short-circuited as VIP: the node's traffic to a Proxy IP bypasses the load balancer.
	"ipmode/reference-ignoring-ipmode": {
		"IPM-103": textOnly("a dataplane that short-circuits it bypasses"),       // expectSteady's ThroughLB assertion
		"IPM-105": textOnly("after switching ipMode VIP to Proxy"),               // waitPath to the load balancer after the switch (and the expectSteady after it)
		"IPM-107": textOnly("with externalTrafficPolicy Local and ipMode Proxy"), // waitPath to the load balancer (and the expectSteady after it)
	},
	// No ingress IP short-circuited, VIP or unset: the node's traffic to a VIP goes out through the load balancer.
	"ipmode/reference-never-short-circuiting": {
		"IPM-101": textOnly("should be short-circuited to a backend"),                    // vipShortCircuits' waitPath, ipMode VIP
		"IPM-102": textOnly("should be short-circuited to a backend"),                    // the same, the ingress written with ip only (defaulted to VIP)
		"IPM-105": textOnly("the first request from the node should be short-circuited"), // switchLive's first waitPath, before any switch
	},
	// The NodePort of a short-circuited Service serves the node only: a client outside the node is refused.
	"ipmode/reference-closing-nodeport": {
		"IPM-104": sees("NodePort must serve a client outside the node", "connect: connection refused"), // expectSteady's request to the NodePort, ipMode VIP (its Err assertion: "Unexpected error")
	},
	// A hostname-only ingress resolved on the node and short-circuited: traffic to the load balancer's address bypasses it.
	"ipmode/reference-resolving-hostnames": {
		"IPM-106": textOnly("with a hostname-only ingress, traffic from the node"), // expectSteady's ThroughLB assertion
	},
}
