package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework/aggregated"
	"github.com/skewcheck/skewcheck/framework/apis/discovery"
)

// ExtensionHost is how a target's apiservers reach a server skewcheck runs on this machine:
// an aggregated API's (package aggregated), behind an APIService whose Service is of type
// ExternalName (the aggregator resolves that to https://<externalName>:<port>, k8s.io/apiserver
// v0.36.3 pkg/util/proxy/proxy.go:148-152). Endpoints and EndpointSlices may not hold a
// loopback address; an ExternalName may name any address, the validation asking only for a
// DNS-1123 subdomain, which a dotted IPv4 address is.
type ExtensionHost struct {
	// Name is what the apiservers resolve to this machine, an address or a name: the
	// Service's externalName.
	Name string
	// Listen is the address on this machine Name resolves to for them.
	Listen string
}

// FeatureAggregatedAPI: the target's apiservers can reach an aggregated API server skewcheck
// runs (Target.ExtensionHost).
var FeatureAggregatedAPI = DeclareFeature("AggregatedAPI", func(t *Target) string {
	if t.ExtensionHost == nil {
		return "skewcheck does not know how the target's apiservers reach this machine, where an aggregated API's server would run " +
			"(it knows for clusters it makes: local, containers, kind)"
	}
	return ""
})

// AggregatedAPI is an aggregated API a test made: its server, and the Service and APIService
// that put it behind every apiserver's aggregator.
type AggregatedAPI struct {
	GVR    discovery.GVR
	Server *aggregated.Server
	// Service and APIService are the names of the objects made (the Service in default).
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
		return nil, fmt.Errorf("an aggregated API needs a target whose apiservers can reach this machine (%s)", missingFeature(t, FeatureAggregatedAPI))
	}
	name := "skewcheck-" + strings.SplitN(g.Group, ".", 2)[0]
	s, err := aggregated.Start(g, name+".default.svc", t.ExtensionHost.Listen)
	if err != nil {
		return nil, err
	}
	a := &AggregatedAPI{GVR: g, Server: s, Service: name, APIService: g.Version + "." + g.Group}
	service, _ := json.Marshal(map[string]any{
		"apiVersion": "v1", "kind": "Service",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"type": "ExternalName", "externalName": t.ExtensionHost.Name},
	})
	if r := origin.Do(ctx, Request{Method: "POST", Path: servicesPath, Body: service}); r.Status != 201 {
		s.Close()
		return nil, fmt.Errorf("creating the Service %s for the aggregated API %s through %s: %s", name, g.GroupVersion(), origin.Name, r.String())
	}
	apiService, _ := json.Marshal(map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": map[string]any{"name": a.APIService},
		"spec": map[string]any{
			"group": g.Group, "version": g.Version,
			"service":  map[string]any{"namespace": "default", "name": name, "port": s.Port()},
			"caBundle": s.CABundle, "groupPriorityMinimum": 1000, "versionPriority": 15,
		},
	})
	if r := origin.Do(ctx, Request{Method: "POST", Path: apiServicesPath, Body: apiService}); r.Status != 201 {
		origin.Do(ctx, Request{Method: "DELETE", Path: servicesPath + "/" + name})
		s.Close()
		return nil, fmt.Errorf("creating the APIService %s through %s: %s; the admin must be able to create APIServices", a.APIService, origin.Name, r.String())
	}
	return a, nil
}

// Remove deletes the APIService and the Service through via, and stops the server once no
// endpoint of t lists g's group-version any more (bound): an aggregator serves until its
// informer sees the deletion. It returns the endpoints still listing it.
func (a *AggregatedAPI) Remove(ctx context.Context, t *Target, via *Endpoint, bound time.Duration) ([]string, error) {
	defer a.Server.Close()
	var errs []string
	for _, path := range []string{apiServicesPath + "/" + a.APIService, servicesPath + "/" + a.Service} {
		if r := via.Do(ctx, Request{Method: "DELETE", Path: path}); r.Status != 200 && r.Status != 202 && r.Status != 404 {
			errs = append(errs, fmt.Sprintf("DELETE %s through %s: %s", path, via.Name, r.String()))
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("removing the aggregated API %s: %s", a.GVR.GroupVersion(), strings.Join(errs, "; "))
	}
	return AwaitGroupVersionGone(ctx, t.Endpoints, a.GVR, bound), nil
}

// NewAggregatedAPI serves g as an aggregated API registered through origin for the running
// test, removed through cleanupVia when it ends, as NewCRD does for a CRD: the cleanup waits
// until no endpoint lists g and reads every endpoint's served set again.
func (env *Env) NewAggregatedAPI(ctx context.Context, g discovery.GVR, origin, cleanupVia *Endpoint) *AggregatedAPI {
	a, err := StartAggregatedAPI(ctx, env.Target, origin, g)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(func(ctx context.Context) {
		listing, err := a.Remove(ctx, env.Target, cleanupVia, env.Timeouts.Converge)
		gomega.Expect(err).NotTo(gomega.HaveOccurred())
		gomega.Expect(listing).To(gomega.BeEmpty(), "servers still listing %s in their discovery %v after its APIService was deleted", g.GroupVersion(), env.Timeouts.Converge)
		gomega.Expect(env.Target.Refresh(ctx)).To(gomega.Succeed())
	})
	return a
}
