package clusters

import (
	"io"
	"strings"
	"time"

	"github.com/skewcheck/skewcheck/clusters/binaries"
)

// ServerSpec is what a user asks for one apiserver.
type ServerSpec struct {
	// Version is what the user typed (v1.35.4, 1.36, latest); the provider resolves it.
	Version string
	// DisablePeerProxy runs this server without the mixed version proxy (gate off, no peer
	// CA). A provider without ServersWithoutPeerProxy refuses it.
	DisablePeerProxy bool
	// KubeadmPeerProxy starts this server with the Mixed Version Proxy's flags as kubeadm
	// leaves them: none. Its gate stays at the release's default (on from 1.36) and it has
	// no --peer-ca-file, so upstream builds no proxy: from 1.36 the gate is on and the
	// server still answers 404 for what only a peer serves (kubernetes/kubeadm#3301), as on
	// most real clusters. DisablePeerProxy wins over it. A provider without
	// KubeadmPeerProxy refuses it.
	KubeadmPeerProxy bool
	// PeerAdvertise overrides the ip:port peers use to reach this server, for example a
	// fault proxy in front of it, so that only apiserver-to-peer traffic is faulted. A
	// provider without PeerAdvertise refuses it.
	PeerAdvertise string
	// EmulatedVersion, when set (a minor version: "1.35"), starts the server with
	// kube-apiserver's --emulated-version (KEP-4330): the binary of Version serving the APIs
	// and feature-gate defaults of that older release. Its own code (the mixed version
	// proxy's included) stays the binary's. A provider without EmulatedVersions refuses it.
	EmulatedVersion string
	// ExtraFlags are appended to kube-apiserver's command line (they win over the
	// provider's own).
	ExtraFlags []string
}

// SpecsFor makes one default ServerSpec per version.
func SpecsFor(versions []string) []ServerSpec {
	specs := make([]ServerSpec, 0, len(versions))
	for _, v := range versions {
		specs = append(specs, ServerSpec{Version: strings.TrimSpace(v)})
	}
	return specs
}

// Spec says what cluster to make, in one vocabulary for every provider. A provider reads
// what applies to it; a field it cannot honour is an ErrNotSupported from New, before
// anything is made.
type Spec struct {
	// Name labels the cluster in hostnames and kubeconfig contexts. Default "skewcheck".
	Name string
	// Servers has one apiserver per entry, in order apiserver-1, apiserver-2, ...
	Servers []ServerSpec
	// Dir is where a named cluster (one that outlives the command, clusters/registry)
	// keeps its files; empty for a run's own cluster, whose files go to a temporary
	// directory removed by Delete.
	Dir string
	// Port is every apiserver's secure port, where the provider lets it be chosen.
	Port     int
	Binaries binaries.Options
	// Progress receives one line per step of minutes-long work; nil discards it.
	Progress io.Writer `json:"-"`
	// ConvergeTimeout bounds the wait for every proxy path to be live (0: the provider's).
	ConvergeTimeout time.Duration
	// PeerPaths asks for a fault point on every server's peer path, for network faults
	// between apiservers, where the provider puts one (local, containers); a provider
	// whose network faults act elsewhere (kind: in the nodes) ignores it.
	PeerPaths bool
	// PodNetwork asks for nodes whose pods reach each other and the kubernetes Service as
	// on a real cluster (a subnet per node, routed between nodes, and kube-proxy), for pods
	// that are not on their node's network: hydrophone's, or certify's under Pod Security's
	// restricted level. Without it a provider's nodes may run host-network pods only. A
	// provider without PodNetwork refuses it.
	PodNetwork bool
	// NodeImages are node images to use instead of the ones skewcheck builds, one per
	// version they carry (NodeImages capability).
	NodeImages []string
	// Kubeconfig and Context reach a cluster that already runs, for the provider that
	// finds one rather than making it (clusters/existing); the providers that make
	// clusters do not read them.
	Kubeconfig, Context string
	// InCluster reaches the cluster this process runs in, as a pod (rest.InClusterConfig),
	// for the same provider.
	InCluster bool
	// StaticBinary is a static (CGO_ENABLED=0) skewcheck, for providers that run it in an
	// image (containers: its etcd); empty: this executable.
	StaticBinary string
	// ControllerManager, when set, runs a real kube-controller-manager against the
	// apiservers, so the controllers the mixed version proxy protects (the garbage
	// collector, the namespace controller) act during the skew. A provider without
	// ControllerManagers refuses it.
	ControllerManager *ControllerManagerSpec
}

// ControllerManagerSpec is what a user asks of the cluster's kube-controller-manager.
type ControllerManagerSpec struct {
	// Version is its release; "" is the oldest of the servers', the only one whose skew
	// against every apiserver is supported (a controller manager may be older than the
	// apiservers, never newer).
	Version string
	// Connect is the apiserver it talks to: a server's name (apiserver-1, ...),
	// ConnectOwnNode or ConnectLoadBalancer.
	Connect string
	// Controllers is its --controllers; empty is kubeadm's (*,bootstrapsigner,tokencleaner).
	Controllers []string
}

const (
	// ConnectOwnNode ("", the default) connects the controller manager as kubeadm does: to
	// the apiserver on its own node, which is the first server of its own release.
	ConnectOwnNode = ""
	// ConnectLoadBalancer connects it to every server through a round-robin TCP load
	// balancer, as many managed and hand-made clusters do: each new connection goes to
	// the next server.
	ConnectLoadBalancer = "load-balancer"
	// OwnNodeWord is --controller-manager's word for ConnectOwnNode, which is "" (the
	// commands' "" means no controller manager).
	OwnNodeWord = "own-node"
)
