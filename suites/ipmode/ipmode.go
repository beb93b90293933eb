// Package ipmode is the conformance profile of LoadBalancer ipMode (KEP-1860). VIP lets
// nodes short-circuit traffic to the load-balancer IP; Proxy sends it through the real load
// balancer. The API part (IPM-00x) checks how every apiserver defaults and validates
// status.loadBalancer.ingress[].ipMode; the dataplane part (IPM-10x) checks what a service
// dataplane (kube-proxy, the reference, a vendor's) does with it, in a network of hosts
// built around the dataplane.
package ipmode

import "github.com/skewcheck/skewcheck/framework"

// Profile is this suite's profile name.
const Profile = "ipmode"

// Tests is the profile, as data. The behaviour is on by default from 1.30 (beta), GA 1.32,
// and the gate is gone from 1.35.
var Tests = []framework.Test{
	{ID: "IPM-001", Profile: Profile, Since: "1.30", Features: []framework.Feature{FeatureInertIngressIP},
		Description: "an ingress with ip and no ipMode on a LoadBalancer Service is defaulted to VIP",
		Makes:       apiChecks, Run: defaultsToVIP},
	{ID: "IPM-002", Profile: Profile, Since: "1.30", Features: []framework.Feature{FeatureInertIngressIP},
		Description: "ipMode Proxy is accepted and kept",
		Makes:       apiChecks, Run: proxyKept},
	{ID: "IPM-003", Profile: Profile, Since: "1.30",
		Description: "ipMode without ip is rejected (422, FieldValueForbidden)",
		Makes:       apiChecks, Run: ipModeWithoutIP},
	{ID: "IPM-004", Profile: Profile, Since: "1.30", Features: []framework.Feature{FeatureInertIngressIP},
		Description: "ipMode values other than VIP and Proxy (empty, lowercase, unknown) are rejected (422, FieldValueNotSupported)",
		Makes:       apiChecks, Run: unsupportedValues},
	{ID: "IPM-005", Profile: Profile, Since: "1.30", Features: []framework.Feature{FeatureInertIngressIP},
		Description: "load-balancer ingress on a Service that is not type LoadBalancer is rejected (422, FieldValueForbidden)",
		Makes:       apiChecks, Run: ingressOnClusterIP},
	{ID: "IPM-006", Profile: Profile, Since: "1.30",
		Description: "a hostname-only ingress is accepted and gets no ipMode",
		Makes:       apiChecks, Run: hostnameOnly},

	{ID: "IPM-101", Profile: Profile, Since: "1.30", Features: []framework.Feature{framework.FeatureDataplane},
		Description: "with ipMode VIP, traffic from the node to the load-balancer IP reaches an endpoint without passing through the load balancer",
		Makes:       dataplaneChecks, Run: vipShortCircuits(vip(), "VIP")},
	{ID: "IPM-102", Profile: Profile, Since: "1.30", Features: []framework.Feature{framework.FeatureDataplane},
		Description: "with an ingress written with only ip (as most cloud providers write it; the apiserver defaults ipMode), traffic from the node is short-circuited as for VIP",
		Makes:       dataplaneChecks, Run: vipShortCircuits(nil, "unset")},
	{ID: "IPM-103", Profile: Profile, Since: "1.30", Features: []framework.Feature{framework.FeatureDataplane},
		Description: "with ipMode Proxy, traffic from the node to the load-balancer IP goes through the load balancer",
		Makes:       dataplaneChecks, Run: proxyGoesThroughLB},
	{ID: "IPM-104", Profile: Profile, Since: "1.30", Features: []framework.Feature{framework.FeatureDataplane},
		Description: "the NodePort, and the load balancer through it, serve clients outside the node with ipMode VIP and Proxy alike",
		Makes:       dataplaneChecks, Run: nodePortInBothModes},
	{ID: "IPM-105", Profile: Profile, Since: "1.30", Features: []framework.Feature{framework.FeatureDataplane},
		Description: "switching ipMode on a live Service (VIP to Proxy and back) takes effect within the dataplane's sync bound",
		Makes:       dataplaneChecks, Run: switchLive},
	{ID: "IPM-106", Profile: Profile, Since: "1.30", Features: []framework.Feature{framework.FeatureDataplane},
		Description: "a hostname-only ingress is never short-circuited, even where the node resolves the hostname to the load balancer's IP",
		Makes:       dataplaneChecks, Run: hostnameNeverShortCircuited},
	{ID: "IPM-107", Profile: Profile, Since: "1.30", Features: []framework.Feature{framework.FeatureDataplane},
		Description: "with externalTrafficPolicy Local and ipMode Proxy (skipped by upstream's e2e, kubernetes#123714), traffic from the node to the load-balancer IP goes through the load balancer; whether it then reaches a node-local endpoint and keeps its source is measured, not asserted",
		Makes:       dataplaneChecks, Run: proxyWithLocalPolicy},
}

// apiChecks are what every API check writes (service, setIngress).
var apiChecks = []framework.Write{
	{Resource: "services", Verbs: []string{"create", "delete"}, Scope: framework.RunNamespace,
		Why: "a Service selecting nothing per endpoint (a LoadBalancer one of a class no controller implements, without NodePorts)"},
	{Resource: "services/status", Verbs: []string{"patch"}, Scope: framework.RunNamespace,
		Why: "the load-balancer ingress whose ipMode is checked"},
}

// dataplaneChecks are what every dataplane check writes (dataplanetest's Services and
// markers), in the network skewcheck builds around the dataplane.
var dataplaneChecks = []framework.Write{
	{Resource: "services", Verbs: []string{"create", "delete"}, Scope: framework.InNamespace("default"),
		Why: "LoadBalancer Services of the dataplane's backends, and marker Services the dataplane is waited on with"},
	{Resource: "endpointslices.discovery.k8s.io", Verbs: []string{"create", "delete"}, Scope: framework.InNamespace("default"),
		Why: "each Service's backends"},
	{Resource: "services/status", Verbs: []string{"update"}, Scope: framework.InNamespace("default"),
		Why: "the load-balancer ingress, as a cloud provider writes it"},
}
