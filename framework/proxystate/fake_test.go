package proxystate

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/apis/discovery"
)

var (
	gvrPods = discovery.GVR{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true, Verbs: []string{"get", "list"}}
	gvrJobs = discovery.GVR{Group: "batch", Version: "v1", Resource: "jobs", Kind: "Job", Namespaced: true, Verbs: []string{"get", "list"}}
)

// fake is a kube-apiserver as the diagnosis sees it: its gate in /metrics, its post-start
// hooks in /readyz?verbose, a list of the GVR only its peer serves, aggregated discovery,
// the identity leases and kubeadm's ConfigMap.
type fake struct {
	name, version string
	served        discovery.Set
	gate          string // the gauge's value, "1" or "0"; "" answers /metrics 403
	stage         string
	hook          bool // the peer proxy was built
	list          int  // the status of a list of a GVR it does not serve
	merged        discovery.Set
	notKubeadm    bool // no kube-system/kubeadm-config
	// leaseAddresses, when set, are the peer addresses the identity leases it lists give
	// cp-1, cp-2, ... ("": no annotation); else cp-1's and cp-2's are 10.0.0.1:6443, 10.0.0.2:6443.
	leaseAddresses []string
	// sawPeerHeader is set when a request carried the proxy's own loop-guard header, and
	// askedKubeadm when kubeadm's ConfigMap was asked for.
	sawPeerHeader, askedKubeadm atomic.Bool
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("X-Kubernetes-Peer-Proxied") != "" {
		f.sawPeerHeader.Store(true)
	}
	switch {
	case r.URL.Path == "/metrics":
		if f.gate == "" {
			http.Error(w, `{"kind":"Status","reason":"Forbidden"}`, http.StatusForbidden)
			return
		}
		fmt.Fprintf(w, "# HELP kubernetes_feature_enabled ...\nkubernetes_feature_enabled{name=\"APIServerIdentity\",stage=\"BETA\"} 1\nkubernetes_feature_enabled{name=\"%s\",stage=\"%s\"} %s\n", Gate, f.stage, f.gate)
	case r.URL.Path == "/readyz":
		fmt.Fprintln(w, "[+]ping ok\n[+]poststarthook/start-apiserver-admission-initializer ok")
		if f.hook {
			fmt.Fprintln(w, "[+]poststarthook/mixed-version-proxy-handler ok")
		}
		fmt.Fprintln(w, "readyz check passed")
	case r.URL.Path == "/api" || r.URL.Path == "/apis":
		view := f.served
		if !strings.Contains(r.Header.Get("Accept"), "profile=nopeer") && f.merged != nil {
			view = discovery.Union(f.served, f.merged)
		}
		w.Header().Set("Content-Type", discovery.AggregatedV2)
		json.NewEncoder(w).Encode(document(view, r.URL.Path == "/api"))
	case r.URL.Path == "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases":
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(identityLeases(f.leaseAddresses...))
	case r.URL.Path == "/api/v1/namespaces/kube-system/configmaps/kubeadm-config" && !f.notKubeadm:
		f.askedKubeadm.Store(true)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"kubeadm-config","namespace":"kube-system"}}`))
	case r.URL.Path == gvrJobs.Path() && f.served.Has(gvrJobs.Key()):
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"kind":"JobList","apiVersion":"batch/v1","items":[]}`))
	case r.URL.Path == gvrJobs.Path() && f.list == 200:
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"kind":"JobList","apiVersion":"batch/v1","items":[]}`))
	default:
		// Upstream's answer for a group-version no server it knows serves.
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte("404 page not found\n"))
	}
}

// document is view as aggregated discovery v2: the core group for /api, the others for /apis.
func document(view discovery.Set, core bool) apidiscoveryv2.APIGroupDiscoveryList {
	groups := map[string]*apidiscoveryv2.APIGroupDiscovery{}
	list := apidiscoveryv2.APIGroupDiscoveryList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupDiscoveryList", APIVersion: "apidiscovery.k8s.io/v2"}}
	for _, g := range view.Sorted() {
		if (g.Group == "") != core {
			continue
		}
		grp := groups[g.Group]
		if grp == nil {
			grp = &apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: g.Group}}
			groups[g.Group] = grp
		}
		grp.Versions = append(grp.Versions, apidiscoveryv2.APIVersionDiscovery{Version: g.Version,
			Resources: []apidiscoveryv2.APIResourceDiscovery{{Resource: g.Resource, Scope: apidiscoveryv2.ScopeNamespace, Verbs: g.Verbs}}})
	}
	for _, grp := range groups {
		list.Items = append(list.Items, *grp)
	}
	return list
}

// identityLeases are the leases of cp-1, cp-2, ..., one per address, each naming its
// address for peers ("" names none); by default cp-1's and cp-2's.
func identityLeases(addresses ...string) coordinationv1.LeaseList {
	if len(addresses) == 0 {
		addresses = []string{"10.0.0.1:6443", "10.0.0.2:6443"}
	}
	l := coordinationv1.LeaseList{TypeMeta: metav1.TypeMeta{Kind: "LeaseList", APIVersion: "coordination.k8s.io/v1"}}
	for i, address := range addresses {
		host := fmt.Sprintf("cp-%d", i+1)
		lease := coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{
			Name: "apiserver-" + host, Namespace: "kube-system",
			Labels: map[string]string{"apiserver.kubernetes.io/identity": "kube-apiserver", hostnameLabel: host},
		}}
		if address != "" {
			lease.Annotations = map[string]string{peerAddressAnnotation: address}
		}
		l.Items = append(l.Items, lease)
	}
	return l
}

// target serves the fakes as an existing cluster's servers (skewcheck did not start them).
func target(t *testing.T, fakes ...*fake) *framework.Target {
	tg := &framework.Target{Kind: "existing"}
	for _, f := range fakes {
		s := httptest.NewServer(f)
		t.Cleanup(s.Close)
		tg.Endpoints = append(tg.Endpoints, &framework.Endpoint{Name: f.name, Hostname: f.name, URL: s.URL, Version: f.version,
			Served: f.served, Admin: &rest.Config{Host: s.URL}})
	}
	return tg
}

func set(gs ...discovery.GVR) discovery.Set {
	s := discovery.Set{}
	for _, g := range gs {
		s[g.Key()] = g
	}
	return s
}
