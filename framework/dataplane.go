package framework

import (
	"net/http"
	"time"

	"k8s.io/client-go/rest"
)

// FeatureDataplane: the target has a service dataplane under test, in a network of hosts
// skewcheck built around it. It is also what a provider whose clusters can be given one
// declares (clusters.NodeProxiers names this value), said "a service dataplane".
var FeatureDataplane = DeclareFeature("Dataplane", func(t *Target) string {
	if t.Unowned {
		return NotHere("a cluster skewcheck does not own (" + t.Kind + ") never has: a dataplane under test programs a network skewcheck builds, and in that cluster its Services would be programmed by the cluster's own nodes")
	}
	if t.Dataplane == nil && t.NoDataplane != "" {
		return t.NoDataplane
	}
	if t.Dataplane == nil {
		return "no service dataplane under test"
	}
	return ""
}).Worded("a service dataplane")

// Dataplane is a service dataplane under test (kube-proxy in one of its modes, skewcheck's
// reference, a vendor's) and the small network it programs: the node it runs on, backend
// endpoints, a load balancer that owns the load-balancer IPs and records every request it
// forwards, and a client host outside the node. Only targets skewcheck builds have one;
// tests that need it declare FeatureDataplane. It is what a provider (clusters/dataplane)
// fills and the target carries; what the ipmode tests do to it (Services of its backends,
// probes) is theirs, in suites/ipmode/dataplanetest.
type Dataplane struct {
	// Name says which dataplane this is: kube-proxy-nftables, reference, exec, ...; Version
	// is its version where it has one (kube-proxy's).
	Name, Version string
	// Admin writes Services, EndpointSlices and Service status through the apiserver the
	// dataplane watches.
	Admin *rest.Config
	// Node is the name of the Node object the dataplane runs as; NodeIP its address.
	Node, NodeIP string
	// Backends are the endpoints tests put into EndpointSlices; each answers HTTP with a
	// BackendReply.
	Backends []Backend
	// LoadBalancer plays the cloud's load balancer.
	LoadBalancer LoadBalancer
	// FromNode sends requests from the node itself (where short-circuiting happens);
	// FromClient from a host outside the node.
	FromNode, FromClient *http.Client
	// LBIPs are addresses the load balancer owns, free for tests to put in Service status
	// (one per Service, so tests never share one). LBHostnames[i] resolves to LBIPs[i] on
	// the node, for hostname-only ingress.
	LBIPs, LBHostnames []string
	// SyncBound is how long the dataplane may take to apply a change of a Service; a
	// switch of ipMode must take effect within it.
	SyncBound time.Duration
}

// Backend is one endpoint address of the topology.
type Backend struct {
	Name string
	IP   string
	Port int
}

// LoadBalancer is the load balancer of the topology: it owns the load-balancer IPs and sends
// what arrives on one to the node's NodePort, the way a cloud's load balancer does.
type LoadBalancer interface {
	// Forward accepts HTTP on lbIP:port and forwards it to the node's nodePort, marking
	// every request with ViaHeader; stop undoes it.
	Forward(lbIP string, port, nodePort int) (stop func(), err error)
	// Forwarded reports whether a request carrying ProbeHeader: probe passed through.
	Forwarded(probe string) bool
}

const (
	// ProbeHeader carries a unique ID of each request a test sends, so the load balancer's
	// record and the backend's reply can be matched to it.
	ProbeHeader = "X-Skewcheck-Probe"
	// ViaHeader is what the load balancer adds to every request it forwards.
	ViaHeader = "X-Skewcheck-Via"
)

// BackendReply is what a backend answers: who it is, and what it saw of the request.
type BackendReply struct {
	Backend string `json:"backend"`
	Probe   string `json:"probe"`
	Via     string `json:"via,omitempty"`
	Remote  string `json:"remote"`
}
