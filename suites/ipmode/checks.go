package ipmode

import (
	"context"
	"encoding/json"

	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
	"github.com/skewcheck/skewcheck/framework/fixtures"
)

// The load-balancer address is data only: skewcheck sends nothing to it (198.18.0.0/15 is
// the benchmarking range). A dataplane may still program it (FeatureInertIngressIP).
const lbIP = "198.18.0.10"

// unownedClass is a loadBalancerClass no cloud controller implements: on an existing
// cluster a LoadBalancer Service without it would be provisioned for real by the cloud's
// controller (and bill someone); with it, every controller leaves it alone.
const unownedClass = "skewcheck.io/no-controller"

// service creates a Service of type through e in the run's namespace, deleted when the test
// ends, and returns its status path. A LoadBalancer Service gets unownedClass and no
// NodePorts (allocateLoadBalancerNodePorts false): the checks are of its status alone, and
// a NodePort is a port opened on every node of the cluster.
func service(ctx context.Context, e *framework.Endpoint, typ string) string {
	ns, name := framework.TestNamespace(), fixtures.UniqueName("ipmode")
	spec := map[string]any{"type": typ, "ports": []any{map[string]any{"port": 80}}, "selector": map[string]any{"app": "none"}}
	if typ == "LoadBalancer" {
		spec["loadBalancerClass"], spec["allocateLoadBalancerNodePorts"] = unownedClass, false
	}
	body, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Service",
		"metadata": map[string]any{"name": name, "labels": framework.RunLabels()}, "spec": spec})
	services := "/api/v1/namespaces/" + ns + "/services"
	Expect(e.Do(ctx, framework.Request{Method: "POST", Path: services, Body: body})).To(framework.HaveStatus(201), "creating a %s Service in %s through %s", typ, ns, e.Name)
	ginkgo.DeferCleanup(func(ctx context.Context) {
		r := e.Do(ctx, framework.Request{Method: "DELETE", Path: services + "/" + name})
		Expect(r.Status).To(BeElementOf(200, 202, 404), "deleting Service %s/%s through %s, which would leave it in the cluster: %s", ns, name, e.Name, r)
	})
	return services + "/" + name + "/status"
}

// setIngress merge-patches status.loadBalancer.ingress.
func setIngress(ctx context.Context, e *framework.Endpoint, statusPath, ingress string) framework.Response {
	patch := `{"status":{"loadBalancer":{"ingress":[` + ingress + `]}}}`
	return e.Do(ctx, framework.Request{Method: "PATCH", Path: statusPath, Body: []byte(patch),
		Header: map[string][]string{"Content-Type": {"application/merge-patch+json"}}})
}

// ipModes returns status.loadBalancer.ingress[].ipMode of a Service ("" when absent).
func ipModes(r framework.Response) []string {
	var svc struct {
		Status struct {
			LoadBalancer struct {
				Ingress []struct {
					IPMode *string `json:"ipMode"`
				} `json:"ingress"`
			} `json:"loadBalancer"`
		} `json:"status"`
	}
	Expect(json.Unmarshal(r.Body, &svc)).To(Succeed())
	var out []string
	for _, i := range svc.Status.LoadBalancer.Ingress {
		if i.IPMode == nil {
			out = append(out, "")
		} else {
			out = append(out, *i.IPMode)
		}
	}
	return out
}

// beInvalid matches a 422 whose causes include field with reason.
func beInvalid(field, reason string) func(framework.Response) {
	return func(r framework.Response) {
		Expect(r).To(framework.BeStatus(422, "Invalid"))
		var s struct {
			Details struct {
				Causes []struct {
					Field  string `json:"field"`
					Reason string `json:"reason"`
				} `json:"causes"`
			} `json:"details"`
		}
		Expect(json.Unmarshal(r.Body, &s)).To(Succeed())
		var got []string
		for _, c := range s.Details.Causes {
			got = append(got, c.Field+" "+c.Reason)
		}
		Expect(got).To(ContainElement(field+" "+reason), "causes of %s", r)
	}
}

func defaultsToVIP(ctx context.Context, env *framework.Env) {
	for _, e := range env.Target.Endpoints {
		r := setIngress(ctx, e, service(ctx, e, "LoadBalancer"), `{"ip":"`+lbIP+`"}`)
		Expect(r).To(framework.HaveStatus(200), "%s", e.Name)
		Expect(ipModes(r)).To(Equal([]string{"VIP"}), "%s (%s) should default ipMode to VIP", e.Name, e.Version)
	}
}

func proxyKept(ctx context.Context, env *framework.Env) {
	for _, e := range env.Target.Endpoints {
		status := service(ctx, e, "LoadBalancer")
		r := setIngress(ctx, e, status, `{"ip":"`+lbIP+`","ipMode":"Proxy"}`)
		Expect(r).To(framework.HaveStatus(200), "%s", e.Name)
		Expect(ipModes(r)).To(Equal([]string{"Proxy"}))
		Expect(ipModes(e.Do(ctx, framework.Request{Path: status}))).To(Equal([]string{"Proxy"}), "%s: read back", e.Name)
	}
}

func ipModeWithoutIP(ctx context.Context, env *framework.Env) {
	for _, e := range env.Target.Endpoints {
		r := setIngress(ctx, e, service(ctx, e, "LoadBalancer"), `{"hostname":"lb.skewcheck.example","ipMode":"VIP"}`)
		beInvalid("status.loadBalancer.ingress[0].ipMode", "FieldValueForbidden")(r)
	}
}

func unsupportedValues(ctx context.Context, env *framework.Env) {
	for _, e := range env.Target.Endpoints {
		status := service(ctx, e, "LoadBalancer")
		for _, v := range []string{"", "vip", "proxy", "Direct"} {
			r := setIngress(ctx, e, status, `{"ip":"`+lbIP+`","ipMode":"`+v+`"}`)
			beInvalid("status.loadBalancer.ingress[0].ipMode", "FieldValueNotSupported")(r)
		}
	}
}

func ingressOnClusterIP(ctx context.Context, env *framework.Env) {
	for _, e := range env.Target.Endpoints {
		r := setIngress(ctx, e, service(ctx, e, "ClusterIP"), `{"ip":"`+lbIP+`","ipMode":"VIP"}`)
		beInvalid("status.loadBalancer.ingress", "FieldValueForbidden")(r)
	}
}

func hostnameOnly(ctx context.Context, env *framework.Env) {
	for _, e := range env.Target.Endpoints {
		r := setIngress(ctx, e, service(ctx, e, "LoadBalancer"), `{"hostname":"lb.skewcheck.example"}`)
		Expect(r).To(framework.HaveStatus(200), "%s", e.Name)
		Expect(ipModes(r)).To(Equal([]string{""}), "%s: a hostname-only ingress must get no ipMode", e.Name)
	}
}
