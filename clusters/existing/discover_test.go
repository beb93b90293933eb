package existing

import (
	"context"
	"errors"
	"strings"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	k8stesting "k8s.io/client-go/testing"

	"github.com/skewcheck/skewcheck/clusters"
	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/apis/discovery"
)

func ptr[T any](v T) *T { return &v }

// The kubernetes Service's EndpointSlice as the lease endpoint reconciler writes it, one
// address per apiserver (the third not ready), and a slice of another Service beside it.
func slices3() []runtime.Object {
	https := "https"
	return []runtime.Object{
		&discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "kubernetes", Namespace: "default", Labels: map[string]string{discoveryv1.LabelServiceName: "kubernetes"}},
			AddressType: discoveryv1.AddressTypeIPv4, Ports: []discoveryv1.EndpointPort{{Name: &https, Port: ptr(int32(6443))}},
			Endpoints: []discoveryv1.Endpoint{
				{Addresses: []string{"192.0.2.12"}}, {Addresses: []string{"192.0.2.11"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr(true)}},
				{Addresses: []string{"192.0.2.13"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr(false)}}}},
		&discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "other", Namespace: "default", Labels: map[string]string{discoveryv1.LabelServiceName: "other"}},
			Ports: []discoveryv1.EndpointPort{{Port: ptr(int32(80))}}, Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"192.0.2.99"}}}},
	}
}

func lease(name, host, peer string) *coordinationv1.Lease {
	l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "kube-system",
		Labels: map[string]string{"apiserver.kubernetes.io/identity": "kube-apiserver", "kubernetes.io/hostname": host}}}
	if peer != "" {
		l.Annotations = map[string]string{"kubernetes.io/peer-advertise-address": peer}
	}
	return l
}

// Discover lists each ready address of default/kubernetes once, on its https port, and
// names a server by the identity lease whose peer address has its IP; a lease with none
// is listed apart, and so is a lease of no server here (a controller-manager's is not an
// apiserver's: the label selects).
func TestDiscover(t *testing.T) {
	objs := append(slices3(),
		lease("apiserver-a", "cp-1", "192.0.2.11:6443"),
		lease("apiserver-b", "cp-2", ""),
		&coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "kube-controller-manager", Namespace: "kube-system"}})
	f, err := discover(context.Background(), fake.NewClientset(objs...), "https://lb")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Servers) != 2 || f.Servers[0].Address != "192.0.2.11:6443" || f.Servers[1].Address != "192.0.2.12:6443" {
		t.Fatalf("servers %+v, want the two ready addresses of default/kubernetes, sorted", f.Servers)
	}
	if f.Servers[0].Name() != "cp-1" || f.Servers[0].Lease != "apiserver-a" || f.Servers[1].Name() != "apiserver-192.0.2.12-6443" {
		t.Errorf("names %q, %q (lease %q)", f.Servers[0].Name(), f.Servers[1].Name(), f.Servers[0].Lease)
	}
	if len(f.UnmatchedLeases) != 1 || f.UnmatchedLeases[0] != "apiserver-b (cp-2)" {
		t.Errorf("unmatched leases %q, want apiserver-b alone", f.UnmatchedLeases)
	}
}

// Servers as kubeadm starts them (no peer flags, the proxy inert) advertise no address in
// their leases: each is named by the node its lease's hostname names, when that node has
// the server's IP; a lease whose node has another address, or no node, stays unmatched.
func TestDiscoverByNode(t *testing.T) {
	node := func(name, ip string) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name},
			Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeHostName, Address: name}, {Type: corev1.NodeInternalIP, Address: ip}}}}
	}
	objs := append(slices3(), lease("apiserver-a", "cp-1", ""), lease("apiserver-b", "cp-2", ""), lease("apiserver-c", "cp-3", ""),
		node("cp-1", "192.0.2.11"), node("cp-2", "192.0.2.12"), node("cp-3", "192.0.2.99"))
	f, err := discover(context.Background(), fake.NewClientset(objs...), "https://lb")
	if err != nil {
		t.Fatal(err)
	}
	if f.Servers[0].Name() != "cp-1" || f.Servers[1].Name() != "cp-2" || f.Servers[1].Lease != "apiserver-b" {
		t.Errorf("names %q, %q: want each server named by its node", f.Servers[0].Name(), f.Servers[1].Name())
	}
	if len(f.UnmatchedLeases) != 1 || f.UnmatchedLeases[0] != "apiserver-c (cp-3)" {
		t.Errorf("unmatched leases %q, want apiserver-c alone", f.UnmatchedLeases)
	}
}

// A user who may not list EndpointSlices gets one error that says what to grant, and an
// empty slice one that says why there may be none; unreadable leases only go unnamed.
func TestDiscoverRefusals(t *testing.T) {
	cs := fake.NewClientset()
	cs.PrependReactor("list", "endpointslices", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "discovery.k8s.io", Resource: "endpointslices"}, "", errors.New("RBAC"))
	})
	_, err := discover(context.Background(), cs, "https://lb")
	var forbidden ErrForbidden
	if !errors.As(err, &forbidden) || !strings.Contains(err.Error(), "grant it list on endpointslices.discovery.k8s.io in namespace default") {
		t.Errorf("forbidden: %v", err)
	}
	if _, err := discover(context.Background(), fake.NewClientset(), "https://lb"); !errors.Is(err, ErrNoServers) {
		t.Errorf("no slices: %v, want ErrNoServers", err)
	}
	cs = fake.NewClientset(slices3()...)
	cs.PrependReactor("list", "leases", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}, "", errors.New("RBAC"))
	})
	f, err := discover(context.Background(), cs, "https://lb")
	if err != nil || len(f.Servers) != 2 || !strings.Contains(f.LeasesUnreadable, "identity leases") {
		t.Errorf("leases forbidden: %+v, %v; want the servers, unnamed, and why", f, err)
	}
}

// A pinned config dials one address and verifies the cluster's serving name there, as a
// kubeconfig with tls-server-name does; a name the kubeconfig gives is kept.
func TestPinned(t *testing.T) {
	base := &rest.Config{Host: "https://lb.example:443", BearerToken: "t"}
	p := Pinned(base, "192.0.2.11:6443")
	if p.Host != "https://192.0.2.11:6443" || p.TLSClientConfig.ServerName != ServingName || p.BearerToken != "t" || base.Host != "https://lb.example:443" {
		t.Errorf("pinned %+v (base %s)", p, base.Host)
	}
	base.TLSClientConfig.ServerName = "api.example"
	if p := Pinned(base, "[2001:db8::1]:6443"); p.TLSClientConfig.ServerName != "api.example" || p.Host != "https://[2001:db8::1]:6443" {
		t.Errorf("pinned with a server name: %+v", p)
	}
}

// Skew names what each found server lacks that another serves, or says there is none and
// what that leaves untested.
func TestSkew(t *testing.T) {
	jobs := discovery.GVR{Group: "batch", Version: "v1", Resource: "jobs", Namespaced: true}
	cms := discovery.GVR{Version: "v1", Resource: "configmaps", Namespaced: true}
	set := func(gs ...discovery.GVR) discovery.Set {
		s := discovery.Set{}
		for _, g := range gs {
			s[g.Key()] = g
		}
		return s
	}
	tgt := &framework.Target{Endpoints: []*framework.Endpoint{
		{Name: "cp-1", Version: "v1.35.4", Served: set(cms)},
		{Name: "cp-2", Version: "v1.36.3", Served: set(cms, jobs)},
	}}
	if got := Skew(tgt); got != "skew across 2 apiservers: batch/v1/jobs not at cp-1" {
		t.Errorf("skew: %q", got)
	}
	tgt.Endpoints[0].Served = set(cms, jobs)
	if got := Skew(tgt); !strings.HasPrefix(got, "no skew: the 2 apiservers (v1.35.4, v1.36.3) all serve the same resources") {
		t.Errorf("no skew: %q", got)
	}
}

// TestProviderRefusesWhatItCannotHonour: the provider finds a cluster; a spec that names no
// kubeconfig, or chooses servers, is refused before anything is asked of any cluster.
func TestProviderRefusesWhatItCannotHonour(t *testing.T) {
	p := Registration()
	if _, err := p.New(context.Background(), clusters.Spec{}); !errors.Is(err, ErrNoKubeconfig) {
		t.Errorf("no kubeconfig: %v, want ErrNoKubeconfig", err)
	}
	spec := clusters.Spec{Kubeconfig: "/nonexistent", Servers: clusters.SpecsFor([]string{"v1.36.3"})}
	if _, err := p.New(context.Background(), spec); !errors.Is(err, ErrServersChosen) {
		t.Errorf("servers chosen: %v, want ErrServersChosen", err)
	}
	if len(p.Capabilities) != 0 {
		t.Errorf("an existing cluster restarts, fronts and names nothing: capabilities %v", p.Capabilities)
	}
}
