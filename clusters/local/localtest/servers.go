package localtest

import (
	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/internal/integration"
)

// WithoutBatch turns batch/v1 off on a server, so that only its peers serve it: the skewed
// resource the integration tests route.
const WithoutBatch = "--runtime-config=batch/v1=false"

// Older is a server at the older integration version, with extra kube-apiserver flags.
func Older(flags ...string) clusters.ServerSpec {
	old, _ := integration.Versions()
	return clusters.ServerSpec{Version: old, ExtraFlags: flags}
}

// Newer is a server at the newer integration version, with extra kube-apiserver flags.
func Newer(flags ...string) clusters.ServerSpec {
	_, newer := integration.Versions()
	return clusters.ServerSpec{Version: newer, ExtraFlags: flags}
}

// Pair is one server at each integration version, the older first, both serving what
// their release serves.
func Pair() []clusters.ServerSpec {
	return []clusters.ServerSpec{Older(), Newer()}
}

// Skewed is the pair most integration tests route through: apiserver-1 at the older
// version with batch/v1 off, apiserver-2 at the newer one, so batch/v1 reaches apiserver-1's
// clients only through a peer proxy.
func Skewed() []clusters.ServerSpec {
	return []clusters.ServerSpec{Older(WithoutBatch), Newer()}
}

// WithoutAutoscalingV2 turns autoscaling/v2 off on a server, so that only the servers
// that keep it serve it: a resource proxied from the newer servers to the older.
const WithoutAutoscalingV2 = "--runtime-config=autoscaling/v2=false"

// HighlyAvailable is the three servers of an HA control plane mid-upgrade, two of them at
// one version: apiserver-1 at the older version with batch/v1 off, apiserver-2 and
// apiserver-3 at the newer with autoscaling/v2 off. batch/v1 and what only the newer
// release serves have two peers to choose from (a proxy may take either), autoscaling/v2
// has one (apiserver-1), so a test meets both shapes, and routes that share a GVR.
func HighlyAvailable() []clusters.ServerSpec {
	return []clusters.ServerSpec{Older(WithoutBatch), Newer(WithoutAutoscalingV2), Newer(WithoutAutoscalingV2)}
}

// WithoutPeerProxy turns off the apiservers' own mixed version proxy on every server: the
// reference's own column, where the apiservers underneath do not route what the
// reference gets wrong.
func WithoutPeerProxy(servers ...clusters.ServerSpec) []clusters.ServerSpec {
	off := make([]clusters.ServerSpec, len(servers))
	for i, s := range servers {
		s.DisablePeerProxy = true
		off[i] = s
	}
	return off
}
