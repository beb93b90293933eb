package framework

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework/aggregated"
	"github.com/skewcheck/skewcheck/framework/apis/discovery"
)

// ExtensionHost is how a target's apiservers reach a server skewcheck runs on this machine:
// an aggregated API's (package aggregated), behind an APIService whose Service is of type
// ExternalName. With --enable-aggregator-routing off (kube-apiserver's default, and
// kubeadm's), the aggregator resolves such a Service to https://<externalName>:<port>
// (k8s.io/apiserver v0.36.3 pkg/util/proxy/proxy.go:148-152; routing on, it wants
// endpoints and refuses ExternalName: :65-70). Endpoints and EndpointSlices may not hold a
// loopback address, and a ClusterIP needs a dataplane; an ExternalName may name any
// address, its validation asking only for a DNS-1123 subdomain, which a dotted IPv4
// address is.
type ExtensionHost struct {
	// Name is what the apiservers resolve to this machine, an address or a name: the
	// Service's externalName.
	Name string
	// Listen is the address on this machine Name resolves to for them.
	Listen string
}

// ExtensionHostAt is the ExtensionHost at ip, an address of this machine the apiservers
// reach, once a listener has been opened there; else nil and why not, for
// Target.NoExtensionHost (the address may be missing where the cluster's network is not
// this machine's: rootless or remote Docker engines).
func ExtensionHostAt(ip string) (*ExtensionHost, string) {
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		return nil, fmt.Sprintf("skewcheck cannot listen on %s, where the apiservers would reach an aggregated API's server: %v", ip, err)
	}
	l.Close()
	return &ExtensionHost{Name: ip, Listen: ip}, ""
}

// FeatureAggregatedAPI: the target's apiservers can reach an aggregated API server skewcheck
// runs (Target.ExtensionHost).
var FeatureAggregatedAPI = DeclareFeature("AggregatedAPI", func(t *Target) string {
	switch {
	case t.ExtensionHost != nil:
		return ""
	case t.Unowned:
		return NotHere("a cluster skewcheck does not own (" + t.Kind + ") never has: its apiservers would have to reach this machine, and its aggregator would serve a stranger's API to its users")
	case t.NoExtensionHost != "":
		return t.NoExtensionHost
	}
	return "skewcheck does not know how the target's apiservers reach this machine, where an aggregated API's server would run " +
		"(it knows for clusters it makes: local, containers, kind)"
})

// AggregatedAPI is an aggregated API a test made: its server, and the Service and APIService
// that put it behind every apiserver's aggregator.
type AggregatedAPI struct {
	GVR    discovery.GVR
	Server *aggregated.Server
	// Service and APIService are the names of the objects made (the Service in default);
	// APIService is "" until its create is answered, so Remove never deletes one of that
	// name the test did not make.
	Service, APIService string
}

const (
	servicesPath    = "/api/v1/namespaces/default/services"
	apiServicesPath = "/apis/apiregistration.k8s.io/v1/apiservices"
)

// StartAggregatedAPI serves g (a fixtures.AggregatedGVR) from a server on t's ExtensionHost
// and registers it through origin: an ExternalName Service naming this machine and an
// APIService of g's group-version with that Service. Every apiserver shares etcd, so each
// one's aggregator serves g once its own informers have the APIService and its availability
// check has reached the server; origin is only the server it was made through. Remove
// undoes it.
func StartAggregatedAPI(ctx context.Context, t *Target, origin *Endpoint, g discovery.GVR) (*AggregatedAPI, error) {
	if t.ExtensionHost == nil {
		return nil, fmt.Errorf("an aggregated API needs a target whose apiservers can reach this machine: %s", missingFeature(t, FeatureAggregatedAPI))
	}
	name := "skewcheck-" + strings.SplitN(g.Group, ".", 2)[0]
	s, err := aggregated.Start(g, name+".default.svc", t.ExtensionHost.Listen)
	if err != nil {
		return nil, err
	}
	a, apiServiceName := &AggregatedAPI{GVR: g, Server: s, Service: name}, g.Version+"."+g.Group
	service, _ := json.Marshal(map[string]any{
		"apiVersion": "v1", "kind": "Service",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"type": "ExternalName", "externalName": t.ExtensionHost.Name},
	})
	if r := origin.Do(ctx, Request{Method: "POST", Path: servicesPath, Body: service}); r.Status != 201 {
		s.Close()
		return nil, fmt.Errorf("creating the Service %s for the aggregated API %s through %s: %s", name, g.GroupVersion(), origin.Name, r.String())
	}
	// Every server's availability check looks the Service up in its own informer and, not
	// finding it, writes the shared status Available=False ("ServiceNotFound"), which turns
	// every server's answers to 503 until a later check (kube-aggregator v0.36.3
	// remote_available_controller.go:203-210). A Service every endpoint already reads is
	// one their informers have almost surely had too.
	if err := awaitReadable(ctx, t.Endpoints, servicesPath+"/"+name, 30*time.Second); err != nil {
		return nil, errors.Join(err, a.undo(ctx, origin))
	}
	apiService, _ := json.Marshal(map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": map[string]any{"name": apiServiceName},
		"spec": map[string]any{
			"group": g.Group, "version": g.Version,
			"service":  map[string]any{"namespace": "default", "name": name, "port": s.Port()},
			"caBundle": s.CABundle, "groupPriorityMinimum": 1000, "versionPriority": 15,
		},
	})
	if r := origin.Do(ctx, Request{Method: "POST", Path: apiServicesPath, Body: apiService}); r.Status != 201 {
		// The Service alone: an APIService of the name (a 409) is another's.
		return nil, errors.Join(fmt.Errorf("creating the APIService %s through %s: %s; the admin must be able to create APIServices", apiServiceName, origin.Name, r.String()),
			a.undo(ctx, origin))
	}
	a.APIService = apiServiceName
	return a, nil
}

// undo removes what a StartAggregatedAPI that failed had made, also when ctx is what ended
// it (its deadline, an interrupt): the deletes get a bound of their own.
func (a *AggregatedAPI) undo(ctx context.Context, via *Endpoint) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	return a.Remove(ctx, via)
}

// awaitReadable waits until every endpoint answers 200 for path.
func awaitReadable(ctx context.Context, endpoints []*Endpoint, path string, bound time.Duration) error {
	deadline := time.Now().Add(bound)
	for _, e := range endpoints {
		for r := e.Do(ctx, Request{Path: path}); r.Status != 200; r = e.Do(ctx, Request{Path: path}) {
			if time.Now().After(deadline) || ctx.Err() != nil {
				return fmt.Errorf("%s still answers %s for %s after %v", e.Name, r.String(), path, bound)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return nil
}

// Remove deletes the APIService (once made) and the Service through via and stops the server. Servers
// keep listing the group-version until their informers see the deletion: a caller whose
// next steps read discovery waits (AwaitGroupVersionGone). What could not be deleted is in
// the error, by name, for whoever cleans up by hand.
func (a *AggregatedAPI) Remove(ctx context.Context, via *Endpoint) error {
	defer a.Server.Close()
	var errs []string
	var paths []string
	if a.APIService != "" {
		paths = append(paths, apiServicesPath+"/"+a.APIService)
	}
	for _, path := range append(paths, servicesPath+"/"+a.Service) {
		if r := via.Do(ctx, Request{Method: "DELETE", Path: path}); r.Status != 200 && r.Status != 202 && r.Status != 404 {
			errs = append(errs, fmt.Sprintf("DELETE %s through %s: %s", path, via.Name, r.String()))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("removing the aggregated API %s left objects behind (delete them with kubectl): %s", a.GVR.GroupVersion(), strings.Join(errs, "; "))
	}
	return nil
}

// NewAggregatedAPI serves g as an aggregated API registered through origin for the running
// test, removed through cleanupVia when it ends, as NewCRD does for a CRD: the cleanup waits
// until no endpoint lists g and reads every endpoint's served set again.
func (env *Env) NewAggregatedAPI(ctx context.Context, g discovery.GVR, origin, cleanupVia *Endpoint) *AggregatedAPI {
	a, err := StartAggregatedAPI(ctx, env.Target, origin, g)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(func(ctx context.Context) {
		gomega.Expect(a.Remove(ctx, cleanupVia)).To(gomega.Succeed())
		gomega.Expect(AwaitGroupVersionGone(ctx, env.Target.Endpoints, g, env.Timeouts.Converge)).To(gomega.BeEmpty(),
			"servers still listing %s in their discovery %v after its APIService was deleted", g.GroupVersion(), env.Timeouts.Converge)
		gomega.Expect(env.Target.Refresh(ctx)).To(gomega.Succeed())
	})
	return a
}

// AggregatedAPIWrites are what NewAggregatedAPI writes (StartAggregatedAPI, Remove), for
// the Makes of a test that calls it.
var AggregatedAPIWrites = []Write{
	{Resource: "services", Verbs: []string{"create", "delete"}, Scope: InNamespace("default"),
		Why: "an ExternalName Service naming this machine, where the aggregated API's server runs"},
	{Resource: "apiservices.apiregistration.k8s.io", Verbs: []string{"create", "delete"}, Scope: Cluster,
		Why: "the APIService of the aggregated API's group-version (<name>.aggregated.skewcheck.io), with that Service"},
}
