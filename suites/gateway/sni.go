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
// HTTP/2 connection reused for another name). Each cluster gets a client CA of its own,
// and each request carries a certificate only one of them accepts. What must never happen
// is a request routed by one name and authenticated by the other: the connection's client
// certificate was verified against the server name's client CA at the handshake, and
// trusting that verification for the Host's cluster lets one cluster's clients into the
// other. So a request may reach only the cluster whose client CA accepts its certificate.
//
// A refusal is the recommended answer, 421 Misdirected Request (RFC 9110 15.5.20; clients
// retry on a new connection). A gateway that routes and authenticates by the same name,
// verifying the certificate per request against the client CA of the cluster it routes
// to (as KubeGateway's x509 authenticator takes its verify options from the Host), is
// safe too (RFC 9110 lets a reused connection carry another authority): it passes, and
// the report says which name it used.
func hostAndSNIDisagree(ctx context.Context, env *framework.Env) {
	g := env.Target.Gateway
	second := "second." + g.ServerDomain
	clusters := twoClusters(env, second)
	ca := newClientAuthority("skewcheck GW-072: " + second + "'s own client CA")
	clusters[1].Spec.SecureServing.ClientCAData, clusters[1].Spec.SecureServing.ClientCAFile = ca.PEM, ""
	apply(ctx, env, clusters...)
	// Each credential and the one cluster whose client CA accepts it: the admin's
	// certificate is of the gateway's own client CA, the first cluster's; the other is of
	// the second cluster's, for a user the gateway may impersonate upstream.
	creds := []struct {
		what, accepted string
		with           func(*framework.Endpoint) *framework.Endpoint
	}{
		{"the admin's certificate, which only " + g.ServerName + "'s client CA accepts", env.Target.Endpoints[0].Name,
			func(e *framework.Endpoint) *framework.Endpoint { return e }},
		{"a certificate only " + second + "'s client CA accepts", env.Target.Endpoints[1].Name,
			func(e *framework.Endpoint) *framework.Endpoint { return ca.as(e, "skewcheck-gw-072", "system:masters") }},
	}
	var answers []string
	for _, names := range []struct{ sni, host string }{{g.ServerName, second}, {second, g.ServerName}} {
		for _, c := range creds {
			r := c.with(g.AsMismatched(names.sni, names.host)).Do(ctx, listConfigMaps)
			reached := servedBy(ctx, env, []string{r.AuditID}, 3*time.Second)[r.AuditID]
			answer := fmt.Sprintf("HTTP %d", r.Status)
			if r.Err != "" {
				answer = "error " + r.Err
			}
			if reached == "" {
				if r.Err == "" {
					Expect(r.Status).To(BeNumerically(">=", 400), "a request with TLS server name %s and Host %s, which name two different UpstreamClusters, and %s reached no apiserver, yet was answered: %s", names.sni, names.host, c.what, r)
				}
				answers = append(answers, fmt.Sprintf("SNI %s, Host %s, %s: refused (%s)", names.sni, names.host, c.what, answer))
				continue
			}
			Expect(reached).To(Equal(c.accepted), "a request with TLS server name %s and Host %s, which name two different UpstreamClusters, and %s reached %s (%s): routed by one name and authenticated by the other; refuse it (421 Misdirected Request) or verify the certificate against the client CA of the cluster it goes to",
				names.sni, names.host, c.what, reached, r)
			by := "the TLS server name"
			if reached == env.Target.Endpoints[clusterIndex(names.host, g.ServerName)].Name {
				by = "the Host"
			}
			answers = append(answers, fmt.Sprintf("SNI %s, Host %s, %s: served by %s, routed and authenticated by %s (%s)", names.sni, names.host, c.what, reached, by, answer))
		}
	}
	// Each name still works when both agree, each with its own cluster's credential, so
	// the refusals were about the disagreement.
	Expect(asServerName(env, g.ServerName).Do(ctx, listConfigMaps)).To(framework.HaveStatus(200), "%s as both TLS server name and Host after the mismatched requests", g.ServerName)
	Expect(creds[1].with(asServerName(env, second)).Do(ctx, listConfigMaps)).To(framework.HaveStatus(200), "%s as both TLS server name and Host, with %s, after the mismatched requests", second, creds[1].what)
	ginkgo.AddReportEntry("note", "requests whose Host and TLS server name disagree: "+strings.Join(answers, "; "))
}

// clusterIndex is which of twoClusters' clusters name selects: 0 the template's server
// name, 1 the other.
func clusterIndex(name, first string) int {
	if name == first {
		return 0
	}
	return 1
}
