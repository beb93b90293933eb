package localtest

import (
	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/internal/integration"
)

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

// Skewed is the pair most integration tests route through (clusters.OneWayPair) at the
// integration versions: batch/v1 reaches apiserver-1's clients only through a peer proxy.
func Skewed() []clusters.ServerSpec {
	return clusters.OneWayPair(integration.Versions())
}

// HighlyAvailable is the three servers of an HA control plane mid-upgrade
// (clusters.HighlyAvailable) at the integration versions: batch/v1 and autoscaling/v2 each
// off somewhere, so a test meets a GVR with two peers and one with one.
func HighlyAvailable() []clusters.ServerSpec {
	return clusters.HighlyAvailable(integration.Versions())
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
