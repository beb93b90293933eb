// Package existing is a real cluster as it runs, which skewcheck did not make and does not
// control: its apiservers are found, not declared. One kubeconfig (or the in-cluster
// config) that points at a load balancer is enough: every apiserver writes its address into
// the default/kubernetes EndpointSlice (the lease endpoint reconciler) and holds an identity
// lease in kube-system, and each answers /version and nopeer discovery at its own address.
// So the skew a run tests is read off the cluster. Nothing here stops, faults or writes to
// a server: an existing cluster has no node control.
package existing

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework"
)

const (
	// ServingName is the name every kube-apiserver's serving certificate carries (the
	// kubernetes Service's DNS name), and the one peers verify each other by: what a client
	// dialling one apiserver's address verifies it by.
	ServingName = "kubernetes.default.svc"
	// identityLabel selects the kube-apiservers' identity leases in kube-system.
	identityLabel = "apiserver.kubernetes.io/identity=kube-apiserver"
	// hostnameLabel and peerAddressAnnotation are what an identity lease says of its server.
	hostnameLabel         = "kubernetes.io/hostname"
	peerAddressAnnotation = "kubernetes.io/peer-advertise-address"
)

// Server is one apiserver found in the cluster.
type Server struct {
	// Address is the ip:port it serves at, from the default/kubernetes EndpointSlice.
	Address string
	// Lease is its identity lease's name and Hostname the hostname it names, when the lease
	// names this address (its peer-advertise annotation, 1.28+ with the gate on); "" when no
	// lease could be matched to it.
	Lease, Hostname string
}

// Found is what Discover read off the cluster: the servers, and the identity leases none
// of them could be matched to (by name, with their hostnames).
type Found struct {
	Servers         []Server
	UnmatchedLeases []string
	// LeasesUnreadable says why the identity leases could not be read ("" when they were).
	LeasesUnreadable string
}

// ErrForbidden is a kubeconfig whose user may not read where the apiservers are.
type ErrForbidden struct {
	What string // what could not be read
	Err  error
}

func (e ErrForbidden) Error() string {
	return fmt.Sprintf("the kubeconfig's user may not %s, where each apiserver's address is written (%v): grant it list on endpointslices.discovery.k8s.io in namespace default, or name each apiserver with a kubeconfig context of its own",
		e.What, e.Err)
}

func (e ErrForbidden) Unwrap() error { return e.Err }

// ErrNoServers is a cluster whose default/kubernetes EndpointSlice lists no ready address.
var ErrNoServers = errors.New("the default/kubernetes EndpointSlices list no ready apiserver address: is the endpoint reconciler off (--endpoint-reconciler-type=none)? Name each apiserver with a kubeconfig context of its own instead")

// Discover finds every apiserver of the cluster base reaches: the ready addresses of the
// default/kubernetes EndpointSlices (port https), each matched to its identity lease where
// the lease names its address.
func Discover(ctx context.Context, base *rest.Config) (*Found, error) {
	cs, err := kubernetes.NewForConfig(base)
	if err != nil {
		return nil, fmt.Errorf("a client for %s: %w", base.Host, err)
	}
	return discover(ctx, cs, base.Host)
}

// discover is Discover through cs, a client of the cluster at host.
func discover(ctx context.Context, cs kubernetes.Interface, host string) (*Found, error) {
	addresses, err := listedAddresses(ctx, cs)
	if apierrors.IsForbidden(err) {
		return nil, ErrForbidden{What: "list the EndpointSlices of the default/kubernetes Service", Err: err}
	}
	if err != nil {
		return nil, fmt.Errorf("listing the EndpointSlices of default/kubernetes at %s: %w (is the cluster reachable from here, and the kubeconfig's server and credentials right?)", host, err)
	}
	f := &Found{}
	for _, a := range addresses {
		f.Servers = append(f.Servers, Server{Address: a})
	}
	if len(f.Servers) == 0 {
		return nil, ErrNoServers
	}
	leases, err := cs.CoordinationV1().Leases(metav1.NamespaceSystem).List(ctx, metav1.ListOptions{LabelSelector: identityLabel})
	if err != nil {
		// The addresses are enough to test; the leases only name the servers.
		f.LeasesUnreadable = fmt.Sprintf("the identity leases in kube-system could not be read (%v)", err)
		return f, nil
	}
	if f.match(leases.Items, nil) {
		// Only asked when a lease names no address; refused or failed, the servers stay
		// unnamed by it, as before.
		if nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{}); err == nil {
			f.match(leases.Items, nodes.Items)
		}
	}
	return f, nil
}

// listedAddresses are the ready addresses of the default/kubernetes EndpointSlices.
func listedAddresses(ctx context.Context, cs kubernetes.Interface) ([]string, error) {
	eps, err := cs.DiscoveryV1().EndpointSlices(metav1.NamespaceDefault).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=kubernetes"})
	if err != nil {
		return nil, err
	}
	return readyAddresses(eps.Items), nil
}

// readyAddresses are the ip:port of every endpoint not marked unready, on the port named
// https (the only port the kubernetes Service has), once each, sorted.
func readyAddresses(items []discoveryv1.EndpointSlice) []string {
	var out []string
	for _, s := range items {
		port := 0
		for _, p := range s.Ports {
			if p.Port != nil && (p.Name == nil || *p.Name == "https" || port == 0) {
				port = int(*p.Port)
			}
		}
		if port == 0 {
			continue
		}
		for _, ep := range s.Endpoints {
			if ep.Conditions.Ready != nil && !*ep.Conditions.Ready {
				continue
			}
			for _, a := range ep.Addresses {
				hp := net.JoinHostPort(a, strconv.Itoa(port))
				if !slices.Contains(out, hp) {
					out = append(out, hp)
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

// match names each server by the identity lease whose peer-advertise address has the
// server's IP, or, given nodes, by the node its lease's hostname names, when that node has
// the server's IP among its addresses: a server with the proxy inert as kubeadm leaves it
// (no peer flags) advertises no address in its lease, but kubeadm names each control-plane
// node by its hostname, and kube-apiserver runs on the node's network. The leases left over
// are listed, so the report shows every server the cluster knows of, addressed or not. It
// says whether a lease was matched to no address.
func (f *Found) match(leases []coordinationv1.Lease, nodes []corev1.Node) bool {
	f.UnmatchedLeases = nil
	for i := range f.Servers {
		f.Servers[i].Lease, f.Servers[i].Hostname = "", ""
	}
	for _, l := range leases {
		ips := nodeIPs(nodes, l.Labels[hostnameLabel])
		if host, _, err := net.SplitHostPort(l.Annotations[peerAddressAnnotation]); err == nil {
			ips = []string{host}
		}
		matched := false
		for i := range f.Servers {
			ip, _, _ := net.SplitHostPort(f.Servers[i].Address)
			if slices.Contains(ips, ip) && f.Servers[i].Lease == "" {
				f.Servers[i].Lease, f.Servers[i].Hostname = l.Name, l.Labels[hostnameLabel]
				matched = true
				break
			}
		}
		if !matched {
			f.UnmatchedLeases = append(f.UnmatchedLeases, l.Name+" ("+cmp.Or(l.Labels[hostnameLabel], "no hostname label")+")")
		}
	}
	sort.Strings(f.UnmatchedLeases)
	return len(f.UnmatchedLeases) > 0
}

// nodeIPs are the addresses of the node named hostname, none when there is no such node.
func nodeIPs(nodes []corev1.Node, hostname string) []string {
	var out []string
	for _, n := range nodes {
		if n.Name != hostname || hostname == "" {
			continue
		}
		for _, a := range n.Status.Addresses {
			if a.Type == corev1.NodeInternalIP || a.Type == corev1.NodeExternalIP {
				out = append(out, a.Address)
			}
		}
	}
	return out
}

// Pinned is base dialling one apiserver's address directly: the server name its
// certificate is verified by stays the cluster's (ServingName, unless base names one), as
// a kubeconfig with tls-server-name does, so the request reaches that server and no other.
func Pinned(base *rest.Config, address string) *rest.Config {
	c := rest.CopyConfig(base)
	c.Host = "https://" + address
	if c.TLSClientConfig.ServerName == "" && !c.TLSClientConfig.Insecure {
		c.TLSClientConfig.ServerName = ServingName
	}
	return c
}

// Target is the suites' view of the found servers: an endpoint per apiserver, pinned to
// its address, with its version and what it serves read from it (framework.Target.Refresh).
// user, when given, is a config for an identity RBAC grants nothing, pinned the same way.
// No endpoint has a Node: nothing in an existing cluster is stopped or faulted.
func (f *Found) Target(ctx context.Context, admin, user *rest.Config) (*framework.Target, error) {
	t := &framework.Target{Kind: ProviderName}
	for _, s := range f.Servers {
		e := &framework.Endpoint{Name: s.Name(), URL: "https://" + s.Address, Admin: Pinned(admin, s.Address)}
		if user != nil {
			e.User = Pinned(user, s.Address)
		}
		t.Endpoints = append(t.Endpoints, e)
	}
	if err := t.Refresh(ctx); err != nil {
		return nil, fmt.Errorf("asking each apiserver found in default/kubernetes at its own address (verified as %s): %w", ServingName, err)
	}
	return t, nil
}

// Name is how reports name the server: its identity lease's hostname when matched, else
// its address.
func (s Server) Name() string {
	if s.Hostname != "" {
		return s.Hostname
	}
	return "apiserver-" + strings.NewReplacer(":", "-", "[", "", "]", "").Replace(s.Address)
}

// Skew says, for a report, whether the servers differ: their versions, and what one
// serves that another does not. A cluster without skew leaves the skew tests nothing to
// route; the line says so.
func Skew(t *framework.Target) string {
	versions := map[string]bool{}
	for _, e := range t.Endpoints {
		versions[e.Version] = true
	}
	routes := framework.SkewedGVRs(t)
	if len(routes) == 0 {
		var vs []string
		for v := range versions {
			vs = append(vs, v)
		}
		sort.Strings(vs)
		return fmt.Sprintf("no skew: the %d apiservers (%s) all serve the same resources, so no request has a peer to be proxied to: the tests of proxying skip, saying so",
			len(t.Endpoints), strings.Join(vs, ", "))
	}
	seen := map[string]bool{}
	var out []string
	for _, r := range routes {
		k := r.GVR.Key() + " not at " + r.Entry.Name
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return fmt.Sprintf("skew across %d apiservers: %s", len(t.Endpoints), strings.Join(out, "; "))
}
