package local

import (
	"fmt"
	"github.com/skewcheck/skewcheck/clusters/node"
	"net"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// A peer path is an in-process TCP forwarder (toxiproxy) on its own address, 127.77.S.(40+N),
// made the server's advertise address (see advertiseAddress: upstream ignores
// --peer-advertise-*). Peers reach the server through it; clients do not. Faults on it
// (latency, resets, a closed listener, dropped packets to its address) hit apiserver-to-peer
// traffic only, which is what the mixed version proxy must survive. Apiservers here share the
// root network namespace and dial from 127.0.0.1, so a fault on the path cannot tell which
// peer is dialling: it is a fault on every path INTO one server. (PartitionPair in
// scenarios/faults tells them apart by cgroup.)

var toxiServer = toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())

// Some toxics log through zerolog's global logger at trace level ("BandwidthToxic was
// interrupted") in the middle of a run's output; nothing else in skewcheck uses zerolog.
func init() { zerolog.SetGlobalLevel(zerolog.InfoLevel) }

// startPeerPath forwards listen to upstream.
func startPeerPath(name, listen, upstream string) (*node.PeerPath, error) {
	ip, port := splitHostPort(listen)
	if err := checkPortFree("peer path", ip, port); err != nil {
		return nil, fmt.Errorf("peer path of %s: %w", name, err)
	}
	p := toxiproxy.NewProxy(toxiServer, name, listen, upstream)
	if err := p.Start(); err != nil {
		return nil, fmt.Errorf("starting the peer path of %s on %s: %w", name, listen, err)
	}
	return &node.PeerPath{Address: listen, Proxy: p}, nil
}

func splitHostPort(addr string) (string, int) {
	host, port, _ := net.SplitHostPort(addr)
	var n int
	fmt.Sscanf(port, "%d", &n)
	return host, n
}
