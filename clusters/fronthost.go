package clusters

import (
	"context"
	"net"

	"github.com/skewcheck/skewcheck/framework"
)

// FrontHost is a cluster the harness can put a front before (clusters/front: the reference
// peer proxy, a vendor's sidecar or gateway, each a command or an image of this machine).
// Every provider whose apiservers this machine reaches can be one: the fronts run here, so
// what a front needs of a cluster is the same whatever made it, and FrontSite says it once.
type FrontHost interface {
	FrontSite(ctx context.Context) (*FrontSite, error)
}

// FrontSite is what a front needs of a cluster, on this machine: the apiservers and their
// nodes, addresses to listen on, and certificates the apiservers and the suites' clients
// trust. Files are absolute paths (PEM), handed to fronts' commands as they are.
type FrontSite struct {
	// Name is the cluster's; fronts' IDs begin with it.
	Name string
	// Dir is where fronts keep their logs and documents.
	Dir string
	// Kubeconfig is the cluster's kubeconfig, where a named cluster adds its fronts'
	// contexts beside the apiservers' (FrontServer.AdminContext, UserContext).
	Kubeconfig string
	// Direct is the cluster's own target: its endpoints are the apiservers, in the order of
	// Servers, and say who the suites' users are to them.
	Direct *framework.Target
	// Servers are the apiservers, in order.
	Servers []FrontServer
	// CA signs the apiservers' serving certificates and the clients' certificates (what
	// kube-apiserver's --client-ca-file names).
	CA string
	// FrontProxyCert and FrontProxyKey are the client identity the apiservers trust to say
	// who the user is in X-Remote-* headers (their --requestheader-* flags), UID included.
	FrontProxyCert, FrontProxyKey string
	// AdminCert and AdminKey are a system:masters identity for a front's own calls.
	AdminCert, AdminKey string
	// Address is an IP of this machine for the front numbered host (1..250), which the
	// suites' clients and other fronts reach and no other cluster uses.
	Address func(host int) (string, error)
	// ServingCert issues a serving certificate signed by CA for the names and addresses
	// (besides the in-cluster names kubernetes.default.svc and the like); ClientCert a
	// client certificate of user in groups. Both are written in Dir under name.
	ServingCert func(name string, dnsNames []string, ips []net.IP) (certFile, keyFile string, err error)
	ClientCert  func(name, user string, groups []string) (certFile, keyFile string, err error)
}

// ServerFrontAddress is the address of the front that stands before Servers[i] (from 0):
// host 31 for the first, 32 for the next, and so on, clear of the site's other hosts (a
// gateway at 20, peer paths' forwarders from 41, an aggregated API's server at 60). The
// reference peer proxies and the sidecars both take these hosts, at their apiservers'
// ports, so one kind of per-server front at a time stands before a cluster.
func (s *FrontSite) ServerFrontAddress(i int) (string, error) {
	return s.Address(31 + i)
}

// FrontServer is one apiserver as a front sees it.
type FrontServer struct {
	Name string
	// URL is where this machine reaches the apiserver.
	URL string
	// Advertise is the URL the apiserver's peers reach it at (its peer path, where it has one).
	Advertise string
	// Port is the one a front of this server listens on (at its own Address).
	Port int
	// AdminContext and UserContext name the apiserver's contexts in Kubeconfig.
	AdminContext, UserContext string
	// Running reports whether the apiserver runs now (not stopped or killed).
	Running func() bool
	// Fronted is the node of an endpoint whose front, s, shares this apiserver's fate: stop
	// and kill end both, freeze freezes the apiserver alone, start starts whichever is down.
	// It keeps the capabilities of the apiserver's node that still hold with a front in the
	// way (a peer path, for instance), and only those.
	Fronted func(s Sidecar) framework.Node
}

// Sidecar is a front of one apiserver (the reference peer proxy, or a vendor's sidecar).
type Sidecar interface {
	Running() bool
	StartSidecar(ctx context.Context) error
	// StopSidecar ends it gracefully, or at once as a crash.
	StopSidecar(graceful bool)
}
