package ipmode

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
)

// The load-balancer address is data only: nothing is ever sent to it (198.18.0.0/15 is
// the benchmarking range, never routed here).
const lbIP = "198.18.0.10"

// unownedClass is a loadBalancerClass no cloud controller implements: on an existing
// cluster a LoadBalancer Service without it would be provisioned for real by the cloud's
// controller (and bill someone); with it, every controller leaves it alone.
const unownedClass = "skewcheck.io/no-controller"

// service creates a Service of type through e, in a namespace of the test's own, both
// deleted when the test ends, and returns its status path.
func service(ctx context.Context, e *framework.Endpoint, typ string) string {
	suffix := time.Now().UnixNano() % 1_000_000_000
	ns, name := fmt.Sprintf("skewcheck-ipmode-%d", suffix), fmt.Sprintf("ipmode-%d", suffix)
	nsBody := fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q,"labels":{"skewcheck.io/fixture":"true"}}}`, ns)
	Expect(e.Do(ctx, framework.Request{Method: "POST", Path: "/api/v1/namespaces", Body: []byte(nsBody)})).To(framework.HaveStatus(201), "creating namespace %s through %s", ns, e.Name)
	ginkgo.DeferCleanup(func(ctx context.Context) {
		e.Do(ctx, framework.Request{Method: "DELETE", Path: "/api/v1/namespaces/" + ns})
	})
	class := ""
	if typ == "LoadBalancer" {
		class = fmt.Sprintf(`,"loadBalancerClass":%q`, unownedClass)
	}
	body := fmt.Sprintf(`{"apiVersion":"v1","kind":"Service","metadata":{"name":%q,"labels":{"skewcheck.io/fixture":"true"}},"spec":{"type":%q%s,"ports":[{"port":80}],"selector":{"app":"none"}}}`, name, typ, class)
	Expect(e.Do(ctx, framework.Request{Method: "POST", Path: "/api/v1/namespaces/" + ns + "/services", Body: []byte(body)})).To(framework.HaveStatus(201), "creating a %s Service through %s", typ, e.Name)
	return "/api/v1/namespaces/" + ns + "/services/" + name + "/status"
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
