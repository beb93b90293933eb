package peerproxy

import (
	"context"
	"encoding/json"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	"k8s.io/client-go/kubernetes"

	"github.com/skewcheck/skewcheck/framework/apis/discovery"
)

// Extensions (the group-versions of CRDs, and of APIServices backed by a Service) are
// served by every apiserver: they share etcd, so each serves a CRD once its own
// apiextensions informer has established it, and an aggregated API once its own aggregator
// has the APIService. So a proxy never takes them for a peer's: it serves them locally (a
// 404 until its apiserver has established them is honest, a forward to the server they
// were created through, or a 503 when that server is down, is not), and leaves them out
// of what it lists as its peers' in merged discovery. Upstream does the same from 1.35:
// it drops the group-versions of every CRD (all of spec.versions) and of every APIService
// with spec.service from its peer discovery cache, the one both routing and merged
// discovery read (k8s.io/kubernetes v1.36.3 pkg/controlplane/apiserver/aggregator.go:137-148
// and :213-243; k8s.io/apiserver v0.36.3 pkg/util/peerproxy gv_exclusion_manager.go:399-429,
// peer_discovery.go:280-296, peerproxy_handler.go:285-302), and keeps a deleted one's out
// for 5 minutes (peerproxy.go:57), while peers may still list it.
const extensionGrace = 5 * time.Minute

// extensions remembers when each extension group-version ("group/version") was last seen
// among the local apiserver's CRDs and APIServices.
type extensions map[string]time.Time

// crdList and apiServiceList are the fields of the lists the proxy reads: no more of
// apiextensions or apiregistration is needed, so neither client set is imported.
type crdList struct {
	Items []struct {
		Spec struct {
			Group    string `json:"group"`
			Versions []struct {
				Name string `json:"name"`
			} `json:"versions"`
		} `json:"spec"`
	} `json:"items"`
}

type apiServiceList struct {
	Items []struct {
		Spec struct {
			Group   string           `json:"group"`
			Version string           `json:"version"`
			Service *json.RawMessage `json:"service"`
		} `json:"spec"`
	} `json:"items"`
}

// readExtensions lists the group-versions of the CRDs and of the APIServices backed by a
// Service (one without is the apiserver's own group, served where it is compiled in, which
// a peer may really lack) that the apiserver behind c knows of.
func readExtensions(ctx context.Context, c kubernetes.Interface) ([]string, error) {
	var gvs []string
	var crds crdList
	if err := getJSON(ctx, c, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", &crds); err != nil {
		return nil, err
	}
	for _, crd := range crds.Items {
		for _, v := range crd.Spec.Versions {
			gvs = append(gvs, crd.Spec.Group+"/"+v.Name)
		}
	}
	var services apiServiceList
	if err := getJSON(ctx, c, "/apis/apiregistration.k8s.io/v1/apiservices", &services); err != nil {
		return nil, err
	}
	for _, s := range services.Items {
		if s.Spec.Service != nil && string(*s.Spec.Service) != "null" {
			gvs = append(gvs, s.Spec.Group+"/"+s.Spec.Version)
		}
	}
	return gvs, nil
}

func getJSON(ctx context.Context, c kubernetes.Interface, path string, into any) error {
	rc := c.Discovery().RESTClient()
	if rc == nil { // a fake client set: nothing to list
		return nil
	}
	b, err := rc.Get().AbsPath(path).DoRaw(ctx)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, into)
}

// stripExtensions leaves the extensions the local apiserver knows of out of every peer's
// view. A list that fails leaves the last one standing (its grace still runs), and says
// so: false. FlawProxyCustomResources never lists them.
func (r *registry) stripExtensions(ctx context.Context, peers map[string]view) bool {
	if r.readExt == nil || r.flaw.proxiesExtensions() {
		return true
	}
	if r.ext == nil {
		r.ext = extensions{}
	}
	gvs, err := r.readExt(ctx)
	if err == nil {
		r.ext.saw(gvs, time.Now())
	}
	for name, v := range peers {
		peers[name] = r.ext.strip(v)
	}
	return err == nil
}

// saw records gvs as seen at now and forgets what has not been seen for extensionGrace.
func (e extensions) saw(gvs []string, now time.Time) {
	for _, gv := range gvs {
		e[gv] = now
	}
	for gv, at := range e {
		if now.Sub(at) > extensionGrace {
			delete(e, gv)
		}
	}
}

// has reports whether group/version is an extension (seen within the grace).
func (e extensions) has(group, version string) bool {
	_, ok := e[group+"/"+version]
	return ok
}

// strip is a peer's view without the extensions: neither routed to nor listed as the peer's.
func (e extensions) strip(v view) view {
	if len(e) == 0 {
		return v
	}
	served := discovery.Set{}
	for k, g := range v.served {
		if !e.has(g.Group, g.Version) {
			served[k] = g
		}
	}
	v.served = served
	if v.apis == nil {
		return v
	}
	apis := v.apis.DeepCopy()
	apis.Items = apis.Items[:0]
	for _, g := range v.apis.Items {
		var versions []apidiscoveryv2.APIVersionDiscovery
		for _, ver := range g.Versions {
			if !e.has(g.Name, ver.Version) {
				versions = append(versions, *ver.DeepCopy())
			}
		}
		if len(versions) > 0 {
			g := *g.DeepCopy()
			g.Versions = versions
			apis.Items = append(apis.Items, g)
		}
	}
	v.apis = apis
	return v
}
