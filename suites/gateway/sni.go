package gateway

import (
	"context"
	"fmt"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework"
	gw "github.com/skewcheck/skewcheck/reference/gateway"
)

// asServerName is the gateway reached with another TLS server name (SNI), as the same
// admin and user.
func asServerName(env *framework.Env, name string) *framework.Endpoint {
	g := env.Target.Gateway.Endpoint
	with := func(cfg *rest.Config) *rest.Config {
		c := rest.CopyConfig(cfg)
		c.TLSClientConfig.ServerName = name
		return c
	}
	return &framework.Endpoint{Name: "gateway as " + name, URL: g.URL, Admin: with(g.Admin), User: with(g.User), RequestTimeout: g.RequestTimeout}
}

// twoClusters splits the apiservers into two UpstreamClusters: the template's server name
// selects the first apiserver, second (another name) the second apiserver.
func twoClusters(env *framework.Env, second string) []*gw.UpstreamCluster {
	a, b := base(env), base(env)
	a.Spec.Servers = a.Spec.Servers[:1]
	b.Name = a.Name + "-second"
	b.Spec.Servers = b.Spec.Servers[1:2]
	b.Spec.SecureServing.ServerNames = []string{second}
	return []*gw.UpstreamCluster{a, b}
}

// sniSelectsCluster: the server name a client asks for selects the UpstreamCluster, so
// each name's requests reach that cluster's servers only.
func sniSelectsCluster(ctx context.Context, env *framework.Env) {
	second := "second." + env.Target.Gateway.ServerDomain
	apply(ctx, env, twoClusters(env, second)...)
	first, other := env.Target.Endpoints[0].Name, env.Target.Endpoints[1].Name
	byName := map[string]struct {
		via  *framework.Endpoint
		want string
	}{
		env.Target.Gateway.ServerName: {env.Target.Gateway.Endpoint, first},
		second:                        {asServerName(env, second), other},
	}
	for name, c := range byName {
		var probes []probe
		for i := range 6 {
			probes = append(probes, probe{what: fmt.Sprintf("list configmaps as %s #%d", name, i+1), req: listConfigMaps, via: c.via})
		}
		where, resps := landings(ctx, env, probes)
		for i, w := range where {
			Expect(resps[i]).To(framework.HaveStatus(200), "%s through server name %s", probes[i].what, name)
			Expect(w).To(Equal(c.want), "server name %s selects the UpstreamCluster of %s only; its requests went to %v", name, c.want, count(where))
		}
	}
}

// unknownServerName: a server name no UpstreamCluster lists selects nothing. KubeGateway
// answers such a request itself, 503 ServiceUnavailable ("the request cluster is not
// being proxied"); a gateway may also refuse the TLS handshake. Either way no apiserver
// sees the request: it is never served by some default cluster.
func unknownServerName(ctx context.Context, env *framework.Env) {
	second := "second." + env.Target.Gateway.ServerDomain
	apply(ctx, env, twoClusters(env, second)...)
	unknown := "unknown." + env.Target.Gateway.ServerDomain
	r := asServerName(env, unknown).Do(ctx, listConfigMaps)
	if r.Err == "" {
		Expect(r).To(framework.HaveStatus(503), "a request with the server name %s, which no UpstreamCluster lists: the gateway answers it (KubeGateway: 503, not being proxied) or refuses the handshake", unknown)
	}
	found := servedBy(ctx, env, []string{r.AuditID}, 3*time.Second)
	Expect(found[r.AuditID]).To(BeEmpty(), "a request with the unknown server name %s reached %s (%s): it selects no UpstreamCluster", unknown, found[r.AuditID], r)
	// The names that are listed still work, so the refusal was about the name.
	Expect(env.Target.Gateway.Endpoint.Do(ctx, listConfigMaps)).To(framework.HaveStatus(200), "the template's server name after the unknown one")
}
