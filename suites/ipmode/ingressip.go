package ipmode

import "github.com/skewcheck/skewcheck/framework"

// FeatureInertIngressIP: a load-balancer IP a check writes into a Service's status reaches
// no dataplane but skewcheck's own. On a cluster skewcheck does not own it would not: the
// cluster's kube-proxy (or whatever programs its Services) programs every ingress IP of
// every Service on every node, whatever the Service's loadBalancerClass, so for as long as
// the Service stands traffic from any node or pod to lbIP:80 would be taken to a Service
// with no endpoints. No IP is safe to take there: 198.18.0.0/15 is some networks' own
// (fake-IP DNS proxies hand it out), a documentation range may be routed somewhere, and a
// loopback or link-local one would capture the nodes' own traffic. So the checks whose
// status patch carries an ip (IPM-001, -002, and -004 and -005, which the apiserver must
// refuse but a faulty one would store) do not apply there; IPM-003 and IPM-006, whose
// patches carry a hostname only, which no dataplane programs, still run.
var FeatureInertIngressIP = framework.DeclareFeature("InertIngressIP", func(t *framework.Target) string {
	if t.Unowned {
		return framework.NotHere("a cluster skewcheck does not own (" + t.Kind + ") never has: its own dataplane would program a load-balancer IP written into a Service's status on every node, capturing that address's traffic")
	}
	return ""
})
