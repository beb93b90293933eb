package proxystate

import (
	"context"
	"fmt"
	"net"
	"net/url"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/report"
)

// What an identity lease says of its kube-apiserver: they are in kube-system with the
// label identityLabel, name their server's hostname (hostnameLabel) and, with the gate on,
// the address its peers proxy to (peerAddressAnnotation; k8s.io/kubernetes v1.36.3
// pkg/controlplane/apiserver/server.go:319-333). The annotation is a readable copy: peers
// dial the endpoint lease in etcd, which carries the same address.
const (
	identityLabel         = "apiserver.kubernetes.io/identity=kube-apiserver"
	hostnameLabel         = "kubernetes.io/hostname"
	peerAddressAnnotation = "kubernetes.io/peer-advertise-address"
)

// listLeases reads the identity leases through cfg, bounded by RequestTimeout.
func listLeases(ctx context.Context, cfg *rest.Config) ([]coordinationv1.Lease, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, RequestTimeout)
	defer cancel()
	l, err := cs.CoordinationV1().Leases(metav1.NamespaceSystem).List(ctx, metav1.ListOptions{LabelSelector: identityLabel})
	if err != nil {
		return nil, fmt.Errorf("the identity leases in kube-system could not be read: %w", err)
	}
	return l.Items, nil
}

// setLease fills s's lease fields from the lease of e's server: the one naming its hostname
// (Hostname, which local and kind targets know), else the one whose peer address has the
// server's IP (an existing cluster's servers are dialled at their own addresses), else the
// one naming the endpoint's name as its hostname (how existing names them). serverURL is
// where the server itself answers (behind any front).
func setLease(s *report.ProxyServer, e *framework.Endpoint, serverURL string, leases []coordinationv1.Lease, listErr error) {
	if listErr != nil {
		s.LeaseNote = listErr.Error()
		return
	}
	ip := ""
	if u, err := url.Parse(serverURL); err == nil {
		ip = u.Hostname()
	}
	matches := []func(l coordinationv1.Lease) bool{
		func(l coordinationv1.Lease) bool { return e.Hostname != "" && l.Labels[hostnameLabel] == e.Hostname },
		func(l coordinationv1.Lease) bool {
			host, _, err := net.SplitHostPort(l.Annotations[peerAddressAnnotation])
			return err == nil && host == ip
		},
		func(l coordinationv1.Lease) bool { return l.Labels[hostnameLabel] == e.Name },
	}
	for _, match := range matches {
		for _, l := range leases {
			if !match(l) {
				continue
			}
			s.Lease = l.Name
			if s.PeerAdvertiseAddress = l.Annotations[peerAddressAnnotation]; s.PeerAdvertiseAddress == "" {
				// Written only with the gate on (server.go:329-333).
				s.LeaseNote = "its identity lease " + l.Name + " has no " + peerAddressAnnotation + " annotation, which a server writes only with the gate on"
			}
			return
		}
	}
	s.LeaseNote = fmt.Sprintf("none of the %d identity leases names its hostname or address", len(leases))
}
