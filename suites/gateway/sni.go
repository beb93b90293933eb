package gateway

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewcheck/skewcheck/framework"
	gwapi "github.com/skewcheck/skewcheck/framework/apis/gateway/v1alpha1"
)

// asServerName is the gateway reached by another server name, sent as both TLS server
// name (SNI) and Host, as kubectl sends the host of its kubeconfig's server URL.
func asServerName(env *framework.Env, name string) *framework.Endpoint {
	return env.Target.Gateway.As(name)
}

// twoClusters splits the apiservers into two UpstreamClusters: the template's server name
// selects the first apiserver, second (another name) the second apiserver.
func twoClusters(env *framework.Env, second string) []*gwapi.UpstreamCluster {
	a, b := base(env), base(env)
	a.Spec.Servers = a.Spec.Servers[:1]
	b.Name = a.Name + "-second"
	b.Spec.Servers = b.Spec.Servers[1:2]
	b.Spec.SecureServing.ServerNames = []string{second}
	return []*gwapi.UpstreamCluster{a, b}
}

// sniSelectsCluster: the server name a client asks for (as SNI and Host) selects the
// UpstreamCluster, so each name's requests reach that cluster's servers only.
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

// hostAndSNIDisagree: a request whose Host names one UpstreamCluster and whose TLS server
// name names another (a kubeconfig whose tls-server-name is not its server's host, or an
// HTTP/2 connection reused for another name) reaches no apiserver. Whichever name a
// gateway routes by, serving it would be wrong: routed by the server name, the client gets
// another cluster than the one it asked for; routed by the Host, the request is served on
// a connection whose client certificate was verified against the other cluster's client
// CA. HTTP has an answer for it, 421 Misdirected Request (RFC 9110 15.5.20; clients retry
// on a new connection); any refusal passes, and the report says which the gateway gave.
func hostAndSNIDisagree(ctx context.Context, env *framework.Env) {
	g := env.Target.Gateway
	second := "second." + g.ServerDomain
	apply(ctx, env, twoClusters(env, second)...)
	var answers []string
	for _, c := range []struct{ sni, host string }{{g.ServerName, second}, {second, g.ServerName}} {
		via := g.AsMismatched(c.sni, c.host)
		r := via.Do(ctx, listConfigMaps)
		if r.Err == "" {
			Expect(r.Status).To(BeNumerically(">=", 400), "a request with TLS server name %s and Host %s, which name two different UpstreamClusters, was answered: %s", c.sni, c.host, r)
		}
		found := servedBy(ctx, env, []string{r.AuditID}, 3*time.Second)
		Expect(found[r.AuditID]).To(BeEmpty(), "a request with TLS server name %s and Host %s, which name two different UpstreamClusters, reached %s (%s): the gateway must refuse it (421 Misdirected Request)", c.sni, c.host, found[r.AuditID], r)
		answer := fmt.Sprintf("HTTP %d", r.Status)
		if r.Err != "" {
			answer = "error " + r.Err
		}
		answers = append(answers, fmt.Sprintf("SNI %s, Host %s: %s", c.sni, c.host, answer))
	}
	// Each name still works when both agree, so the refusals were about the disagreement.
	for _, name := range []string{g.ServerName, second} {
		Expect(asServerName(env, name).Do(ctx, listConfigMaps)).To(framework.HaveStatus(200), "%s as both TLS server name and Host after the mismatched requests", name)
	}
	ginkgo.AddReportEntry("note", "requests whose Host and TLS server name disagree: "+strings.Join(answers, "; "))
}
