package clusters

import (
	"context"

	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework"
)

// Capability is something only some providers' clusters can be asked for. It is a name of
// framework's one vocabulary (framework.Feature), the one tests need and faults act on, so
// where a provider's capability and a test's need are one idea (a service dataplane, a
// controller manager) they are one value: the provider declares that a run can ask its
// clusters for it, a test that the target must have it. A provider declares its
// capabilities when it registers, so a command checks them (Require) before it makes
// anything; where a capability is a method set, the cluster also implements the interface
// of the same name, found by a type assertion. Messages say a capability in its words
// (Words).
type Capability = framework.Feature

var (
	// NodeProxiers: clusters sign kube-proxy's own identity (interface NodeProxier), so a
	// service dataplane can run against them with what upstream grants kube-proxy. It is
	// what the ipmode tests need (framework.FeatureDataplane), declared beside the
	// dataplane a target carries.
	NodeProxiers = framework.FeatureDataplane
	// Fronts: the harness can put its reference peer proxy in front of every apiserver
	// (interface FrontHost).
	Fronts = framework.DeclareCapability("Fronts", "the reference peer proxy in front of the apiservers")
	// VendorFronts: a vendor's sidecar or gateway, a command or an image on this
	// machine's network, can be put in front of the apiservers (interface FrontHost).
	VendorFronts = framework.DeclareCapability("VendorFronts", "a sidecar or gateway in front of the apiservers")
	// ServersWithoutPeerProxy: ServerSpec.DisablePeerProxy.
	ServersWithoutPeerProxy = framework.DeclareCapability("ServersWithoutPeerProxy", "servers without the mixed version proxy")
	// KubeadmPeerProxy: ServerSpec.KubeadmPeerProxy.
	KubeadmPeerProxy = framework.DeclareCapability("KubeadmPeerProxy", "servers with the mixed version proxy as kubeadm leaves it (no --peer-ca-file)")
	// PeerAdvertise: ServerSpec.PeerAdvertise.
	PeerAdvertise = framework.DeclareCapability("PeerAdvertise", "a peer-advertise address of one's own")
	// EmulatedVersions: ServerSpec.EmulatedVersion.
	EmulatedVersions = framework.DeclareCapability("EmulatedVersions", "servers emulating an older release (--emulated-version)")
	// NodeImages: Spec.NodeImages.
	NodeImages = framework.DeclareCapability("NodeImages", "node images of one's own")
	// PodNetwork: Spec.PodNetwork.
	PodNetwork = framework.DeclareCapability("PodNetwork", "a pod network routed between nodes, with a Service proxy")
	// Named: clusters that outlive the command that made them (clusters/registry).
	Named = framework.DeclareCapability("Named", "named clusters")
	// NamedFronts: a named cluster's supervisor runs the reference peer proxy in front of
	// it for as long as it lives. A provider whose named clusters live on with no process
	// of skewcheck's (kind's, in Docker) has none to run a front in.
	NamedFronts = framework.DeclareCapability("NamedFronts", "the reference peer proxy in front of a named cluster")
)

// NodeProxier is a cluster that signs kube-proxy's identity.
type NodeProxier interface {
	// AsNodeProxier returns a copy of base (a config for an endpoint of the cluster) that
	// authenticates as system:kube-proxy, signed by the cluster's CA.
	AsNodeProxier(base *rest.Config) (*rest.Config, error)
}

// Disconnector is a cluster that can cut a server off its network and put it back at the
// same address: a partition of the whole server, as when its machine's link fails. It is
// no Capability: nothing needs it, chaos prefers it for its partition where a cluster has
// it (a type assertion) and uses the nftables partition elsewhere.
type Disconnector interface {
	Disconnect(ctx context.Context, server string) error
	Reconnect(ctx context.Context, server string) error
	// DisconnectDescription says what Disconnect does to server, for reports.
	DisconnectDescription(server string) string
}
