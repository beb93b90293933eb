package gateway_test

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/skewcheck/skewcheck/clusters/local"
	"github.com/skewcheck/skewcheck/clusters/local/localtest"
	gwapi "github.com/skewcheck/skewcheck/framework/apis/gateway/v1alpha1"
	"github.com/skewcheck/skewcheck/internal/integration"
	"github.com/skewcheck/skewcheck/reference/gateway"
)

// TestMetrics runs the reference gateway in front of two real apiservers, sends traffic
// whose outcome is known, and reads /metrics: every metric docs/references.md lists, with the
// labels and counts that traffic must leave.
func TestMetrics(t *testing.T) {
	integration.Require(t)
	ctx := context.Background()
	c := localtest.Start(t, local.Config{Name: "gwmetrics", Servers: localtest.WithoutPeerProxy(localtest.Pair()...)})
	const serverName = "metrics.gateway.test"
	serving, err := c.PKI.ServingCert("gateway-metrics", []string{"*.gateway.test"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	identity, err := c.PKI.ClientCert("gateway-metrics-identity", "skewcheck:gateway", []string{"system:masters"})
	if err != nil {
		t.Fatal(err)
	}
	s1, s2 := c.Servers[0].URL(), c.Servers[1].URL()
	doc := gwapi.UpstreamCluster{Spec: gwapi.UpstreamClusterSpec{
		Servers:       []gwapi.UpstreamClusterServer{{Endpoint: s1}, {Endpoint: s2}},
		ClientConfig:  gwapi.ClientConfig{CAFile: c.PKI.CA.CertFile, CertFile: identity.CertFile, KeyFile: identity.KeyFile},
		SecureServing: gwapi.SecureServing{ServerNames: []string{serverName}},
		FlowControl: gwapi.FlowControl{Schemas: []gwapi.FlowControlSchema{
			{Name: "one-per-second", TokenBucket: &gwapi.TokenBucketFlowControlSchema{QPS: 1, Burst: 1}}}},
		DispatchPolicies: []gwapi.DispatchPolicy{
			{Strategy: gwapi.RoundRobin, FlowControlSchemaName: "one-per-second",
				Rules: []gwapi.DispatchPolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"secrets"}}}},
			{Strategy: gwapi.RoundRobin,
				Rules: []gwapi.DispatchPolicyRule{{Verbs: []string{"list"}, APIGroups: []string{""}, Resources: []string{"configmaps"}}}},
		},
	}}
	doc.APIVersion, doc.Kind, doc.Name = gwapi.APIVersion, gwapi.Kind, "metrics"
	dir := t.TempDir()
	good, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	write := func(b []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "clusters.yaml.tmp"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(dir, "clusters.yaml.tmp"), filepath.Join(dir, "clusters.yaml")); err != nil {
			t.Fatal(err)
		}
	}
	write(good)
	// Health checks and discovery reads only at start: the counts below are the traffic's.
	g, err := gateway.Start(gateway.Config{Listen: "127.0.0.1:0", ConfigDir: dir, ServingCert: serving.CertFile, ServingKey: serving.KeyFile,
		ClientCA: c.PKI.CA.CertFile, MetricsListen: "127.0.0.1:0", HealthEvery: time.Hour, DiscoveryEvery: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()

	client := func(name string) *http.Client {
		cfg := c.RestConfig(c.Servers[0], local.Admin)
		cfg.TLSClientConfig.ServerName = name
		tc, err := rest.TLSConfigFor(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return &http.Client{Transport: &http.Transport{TLSClientConfig: tc, ForceAttemptHTTP2: true}, Timeout: 30 * time.Second}
	}
	admin := client(serverName)
	get := func(cl *http.Client, path string) int {
		t.Helper()
		resp, err := cl.Get(g.URL() + path)
		if err != nil {
			t.Fatalf("GET %s through the gateway: %v", path, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	for range 10 {
		if code := get(admin, "/api/v1/namespaces/default/configmaps?limit=1"); code != 200 {
			t.Fatalf("listing configmaps through the gateway: HTTP %d", code)
		}
	}
	refused := 0
	for range 3 { // a bucket of one token: the first reaches an apiserver (404, no such secret)
		switch code := get(admin, "/api/v1/namespaces/default/secrets/skewcheck-none"); code {
		case 429:
			refused++
		case 404:
		default:
			t.Fatalf("getting a missing secret through the gateway: HTTP %d, want 404 or 429", code)
		}
	}
	if code := get(admin, "/version"); code != 403 {
		t.Fatalf("/version, which no policy matches: HTTP %d, want 403", code)
	}
	// A server name no cluster lists: the gateway's own /version answers (what the harness's
	// readiness check must tell from an apiserver's), anything else is 503.
	if code := get(client("unknown.gateway.test"), "/api/v1/namespaces/default/configmaps?limit=1"); code != 503 {
		t.Fatalf("a server name no cluster lists: HTTP %d, want 503", code)
	}
	m := scrape(t, g.MetricsURL())
	want := []struct {
		name   string
		labels map[string]string
		value  float64
	}{
		{"skewcheck_gateway_requests_total", map[string]string{"cluster": "metrics", "policy": "1", "upstream": s1, "code": "200"}, 5},
		{"skewcheck_gateway_requests_total", map[string]string{"cluster": "metrics", "policy": "1", "upstream": s2, "code": "200"}, 5},
		{"skewcheck_gateway_requests_total", map[string]string{"cluster": "metrics", "policy": "0", "upstream": "none", "code": "429"}, float64(refused)},
		{"skewcheck_gateway_requests_total", map[string]string{"cluster": "metrics", "policy": "none", "upstream": "none", "code": "403"}, 1},
		{"skewcheck_gateway_requests_total", map[string]string{"cluster": "none", "policy": "none", "upstream": "none", "code": "503"}, 1},
		{"skewcheck_gateway_flowcontrol_rejected_total", map[string]string{"cluster": "metrics", "policy": "0", "schema": "one-per-second", "kind": "TokenBucket"}, float64(refused)},
		{"skewcheck_gateway_upstream_healthy", map[string]string{"cluster": "metrics", "upstream": s1}, 1},
		{"skewcheck_gateway_upstream_healthy", map[string]string{"cluster": "metrics", "upstream": s2}, 1},
		{"skewcheck_gateway_config_reloads_total", map[string]string{"result": "applied"}, 1},
		{"skewcheck_gateway_config_invalid", nil, 0},
	}
	if refused == 0 {
		t.Errorf("3 GETs at once against a bucket of one token per second: none refused")
	}
	notFound := sum(m, "skewcheck_gateway_requests_total", map[string]string{"cluster": "metrics", "policy": "0", "code": "404"})
	if notFound+float64(refused) != 3 {
		t.Errorf("the token-bucket policy's requests: %v answered 404 by an apiserver and %d refused, want 3 in all", notFound, refused)
	}
	for _, w := range want {
		if got := sum(m, w.name, w.labels); got != w.value {
			t.Errorf("%s%v = %v, want %v", w.name, w.labels, got, w.value)
		}
	}

	// A refused configuration, then the good one again.
	write([]byte(strings.Replace(string(good), "secrets", "secrets/*", 1)))
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := gateway.WaitApplied(wctx, dir, ""); err == nil || !strings.Contains(err.Error(), "secrets/*") {
		t.Fatalf("a configuration with secrets/*: %v, want it refused naming secrets/*", err)
	}
	m = scrape(t, g.MetricsURL())
	for name, want := range map[string]float64{"skewcheck_gateway_config_invalid": 1, "skewcheck_gateway_config_reloads_total": 2} {
		if got := sum(m, name, nil); got != want {
			t.Errorf("after a refused configuration: %s = %v, want %v", name, got, want)
		}
	}
	if got := sum(m, "skewcheck_gateway_config_reloads_total", map[string]string{"result": "invalid"}); got != 1 {
		t.Errorf(`skewcheck_gateway_config_reloads_total{result="invalid"} = %v, want 1`, got)
	}
	write(good)
	if err := gateway.WaitApplied(wctx, dir, ""); err != nil {
		t.Fatalf("the good configuration again: %v", err)
	}
	if got := sum(scrape(t, g.MetricsURL()), "skewcheck_gateway_config_invalid", nil); got != 0 {
		t.Errorf("back to the good configuration: skewcheck_gateway_config_invalid = %v, want 0", got)
	}

	// A killed upstream: the request that meets it is retried on the other and counts one
	// error; the upstream is out at once (no health check runs in between).
	if err := c.Servers[1].Kill(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if code := get(admin, "/api/v1/namespaces/default/configmaps?limit=1"); code != 200 {
			t.Fatalf("listing configmaps with %s killed: HTTP %d", s2, code)
		}
	}
	m = scrape(t, g.MetricsURL())
	for _, w := range []struct {
		name   string
		labels map[string]string
		value  float64
	}{
		{"skewcheck_gateway_upstream_errors_total", map[string]string{"cluster": "metrics", "upstream": s2}, 1},
		{"skewcheck_gateway_upstream_errors_total", map[string]string{"cluster": "metrics", "upstream": s1}, 0},
		{"skewcheck_gateway_upstream_healthy", map[string]string{"cluster": "metrics", "upstream": s2}, 0},
		{"skewcheck_gateway_requests_total", map[string]string{"cluster": "metrics", "policy": "1", "upstream": s1, "code": "200"}, 7},
		{"skewcheck_gateway_requests_total", map[string]string{"cluster": "metrics", "policy": "1", "upstream": s2, "code": "200"}, 5},
	} {
		if got := sum(m, w.name, w.labels); got != w.value {
			t.Errorf("with %s killed: %s%v = %v, want %v", s2, w.name, w.labels, got, w.value)
		}
	}
}

// scrape reads the gateway's /metrics as Prometheus does.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("scraping %s: %v", url, err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	m, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing %s: %v", url, err)
	}
	return m
}

// sum adds up the samples of a counter or gauge whose labels include these.
func sum(m map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	f := m[name]
	if f == nil {
		return 0
	}
	total := 0.0
	for _, s := range f.GetMetric() {
		have := map[string]string{}
		for _, l := range s.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		match := true
		for k, v := range labels {
			match = match && have[k] == v
		}
		if !match {
			continue
		}
		switch {
		case s.Counter != nil:
			total += s.GetCounter().GetValue()
		case s.Gauge != nil:
			total += s.GetGauge().GetValue()
		}
	}
	return total
}
