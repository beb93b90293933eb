// Package ipmode is the conformance profile of LoadBalancer ipMode (KEP-1860), API part:
// how every apiserver defaults and validates status.loadBalancer.ingress[].ipMode. VIP lets
// nodes short-circuit traffic to the load-balancer IP; Proxy sends it through the real
// load balancer. (The dataplane part, with real kube-proxy, is still to come.)
package ipmode

import "github.com/skewcheck/skewcheck/framework"

// Profile is this suite's profile name.
const Profile = "ipmode"

// Tests is the profile, as data. The behaviour is on by default from 1.30 (beta), GA 1.32,
// and the gate is gone from 1.35.
var Tests = []framework.Test{
	{ID: "IPM-001", Profile: Profile, Since: "1.30",
		Description: "an ingress with ip and no ipMode on a LoadBalancer Service is defaulted to VIP",
		Run:         defaultsToVIP},
	{ID: "IPM-002", Profile: Profile, Since: "1.30",
		Description: "ipMode Proxy is accepted and kept",
		Run:         proxyKept},
	{ID: "IPM-003", Profile: Profile, Since: "1.30",
		Description: "ipMode without ip is rejected (422, FieldValueForbidden)",
		Run:         ipModeWithoutIP},
	{ID: "IPM-004", Profile: Profile, Since: "1.30",
		Description: "ipMode values other than VIP and Proxy (empty, lowercase, unknown) are rejected (422, FieldValueNotSupported)",
		Run:         unsupportedValues},
	{ID: "IPM-005", Profile: Profile, Since: "1.30",
		Description: "load-balancer ingress on a Service that is not type LoadBalancer is rejected (422, FieldValueForbidden)",
		Run:         ingressOnClusterIP},
	{ID: "IPM-006", Profile: Profile, Since: "1.30",
		Description: "a hostname-only ingress is accepted and gets no ipMode",
		Run:         hostnameOnly},
}
