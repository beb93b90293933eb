package gateway

import (
	"crypto/tls"
	"io"
	"log"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	gwapi "github.com/skewcheck/skewcheck/framework/apis/gateway/v1alpha1"
)

// validDoc is a document every case starts from.
const validDoc = `apiVersion: proxy.kubegateway.io/v1alpha1
kind: UpstreamCluster
metadata: {name: prod}
spec:
  servers: [{endpoint: "https://127.0.0.1:6443"}, {endpoint: "https://127.0.0.2:6443"}]
  clientConfig: {insecure: true, bearerToken: t}
  secureServing: {serverNames: [prod.example]}
  flowControl:
    flowControlSchemas: [{name: slow, tokenBucket: {qps: 1, burst: 1}}]
  dispatchPolicies:
  - rules: [{verbs: ["*"], apiGroups: ["*"], resources: ["*"], nonResourceURLs: ["*"]}]
    flowControlSchemaName: slow
`

func problemsOf(t *testing.T, edit func(*gwapi.UpstreamCluster)) []Problem {
	t.Helper()
	d := &document{source: "clusters.yaml"}
	if err := yaml.UnmarshalStrict([]byte(validDoc), &d.cluster); err != nil {
		t.Fatal(err)
	}
	edit(&d.cluster)
	return validate(d)
}

func TestValidate(t *testing.T) {
	rule := func(c *gwapi.UpstreamCluster) *gwapi.DispatchPolicyRule { return &c.Spec.DispatchPolicies[0].Rules[0] }
	cases := []struct {
		name  string
		edit  func(*gwapi.UpstreamCluster)
		field string // "" means valid
		text  string
	}{
		{"valid", func(*gwapi.UpstreamCluster) {}, "", ""},
		{"mixed negation is valid (its negated entries are ignored)", func(c *gwapi.UpstreamCluster) { rule(c).Resources = []string{"pods", "-pods/log"} }, "", ""},
		{"r/* is refused", func(c *gwapi.UpstreamCluster) { rule(c).Resources = []string{"pods/*"} }, "spec.dispatchPolicies[0].rules[0].resources[0]", "list the subresources"},
		{"-r/* is refused too", func(c *gwapi.UpstreamCluster) { rule(c).Resources = []string{"-pods/*"} }, "spec.dispatchPolicies[0].rules[0].resources[0]", "not allowed"},
		{"unknown flow-control schema", func(c *gwapi.UpstreamCluster) { c.Spec.DispatchPolicies[0].FlowControlSchemaName = "fast" }, "spec.dispatchPolicies[0].flowControlSchemaName", `"fast" names no schema`},
		{"no servers", func(c *gwapi.UpstreamCluster) { c.Spec.Servers = nil }, "spec.servers", "list at least one apiserver"},
		{"an http endpoint", func(c *gwapi.UpstreamCluster) { c.Spec.Servers[0].Endpoint = "http://127.0.0.1:8080" }, "spec.servers[0].endpoint", "TLS only"},
		// A query would be added to every request forwarded there (ReverseProxy's SetURL);
		// credentials and fragments are not the gateway's to send (FuzzUpstreamCluster).
		{"an endpoint with a query", func(c *gwapi.UpstreamCluster) { c.Spec.Servers[0].Endpoint = "https://127.0.0.1:6443?watch=true" }, "spec.servers[0].endpoint", "give only https://host:port"},
		{"an endpoint with credentials", func(c *gwapi.UpstreamCluster) { c.Spec.Servers[0].Endpoint = "https://u:p@127.0.0.1:6443" }, "spec.servers[0].endpoint", "give only https://host:port"},
		{"an endpoint with a fragment", func(c *gwapi.UpstreamCluster) { c.Spec.Servers[0].Endpoint = "https://127.0.0.1:6443#x" }, "spec.servers[0].endpoint", "give only https://host:port"},
		{"a subset naming an unknown server", func(c *gwapi.UpstreamCluster) {
			c.Spec.DispatchPolicies[0].UpstreamSubset = []string{"https://10.0.0.1:6443"}
		}, "spec.dispatchPolicies[0].upstreamSubset[0]", "not in spec.servers"},
		{"negated serviceAccounts", func(c *gwapi.UpstreamCluster) {
			rule(c).ServiceAccounts = []gwapi.ServiceAccountRef{{Namespace: "ns", Name: "-sa"}}
		}, "spec.dispatchPolicies[0].rules[0].serviceAccounts[0]", "cannot be negated"},
		{"negated nonResourceURLs", func(c *gwapi.UpstreamCluster) { rule(c).NonResourceURLs = []string{"-/version"} }, "spec.dispatchPolicies[0].rules[0].nonResourceURLs[0]", "cannot be negated"},
		{"a schema with two kinds", func(c *gwapi.UpstreamCluster) {
			c.Spec.FlowControl.Schemas[0].MaxRequestsInflight = &gwapi.MaxRequestsInflightFlowControlSchema{Max: 1}
		}, "spec.flowControl.flowControlSchemas[0]", "exactly one"},
		{"no policies", func(c *gwapi.UpstreamCluster) { c.Spec.DispatchPolicies = nil }, "spec.dispatchPolicies", "at least one"},
		{"no verbs", func(c *gwapi.UpstreamCluster) { rule(c).Verbs = nil }, "spec.dispatchPolicies[0].rules[0].verbs", "match nothing"},
		{"unknown strategy", func(c *gwapi.UpstreamCluster) { c.Spec.DispatchPolicies[0].Strategy = "Random" }, "spec.dispatchPolicies[0].strategy", "RoundRobin"},
		{"no server names", func(c *gwapi.UpstreamCluster) { c.Spec.SecureServing.ServerNames = nil }, "spec.secureServing.serverNames", "SNI"},
	}
	for _, c := range cases {
		ps := problemsOf(t, c.edit)
		if c.field == "" {
			if len(ps) > 0 {
				t.Errorf("%s: want valid, got %v", c.name, ps)
			}
			continue
		}
		found := false
		for _, p := range ps {
			if p.Field == c.field && strings.Contains(p.Message, c.text) && strings.HasPrefix(p.String(), `clusters.yaml (UpstreamCluster "prod"): `+c.field) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: want a problem at %s saying %q, got %v", c.name, c.field, c.text, ps)
		}
	}
}

func TestParseDocumentsStrict(t *testing.T) {
	_, ps := parseDocuments(map[string][]byte{"/d/a.yaml": []byte(validDoc + "  unknownField: 1\n")})
	if len(ps) != 1 || !strings.Contains(ps[0].Message, "unknownField") {
		t.Errorf("an unknown field must be refused by name: %v", ps)
	}
	docs, ps := parseDocuments(map[string][]byte{"/d/a.yaml": []byte(validDoc + "---\n# only a comment\n---\n" + strings.Replace(validDoc, "name: prod", "name: dev", 1))})
	if len(ps) != 0 || len(docs) != 2 || docs[1].source != "a.yaml#2" {
		t.Errorf("two documents in one file: %d docs, %v", len(docs), ps)
	}
	_, ps = parseDocuments(map[string][]byte{"/d/a.yaml": []byte(strings.Replace(validDoc, "kind: UpstreamCluster", "kind: Cluster", 1))})
	if len(ps) != 1 || ps[0].Field != "apiVersion/kind" {
		t.Errorf("a wrong kind: %v", ps)
	}
}

func TestValidateAllDuplicates(t *testing.T) {
	docs, _ := parseDocuments(map[string][]byte{"/d/a.yaml": []byte(validDoc), "/d/b.yaml": []byte(validDoc)})
	ps := validateAll(docs)
	var msgs []string
	for _, p := range ps {
		msgs = append(msgs, p.String())
	}
	all := strings.Join(msgs, "\n")
	if !strings.Contains(all, "names are unique") || !strings.Contains(all, "each server name selects one cluster") {
		t.Errorf("duplicate names and server names must both be refused: %s", all)
	}
}

// TestApplyInvalidDefect: as shipped an invalid document is refused whole; with
// apply-invalid it is applied.
func TestApplyInvalidDefect(t *testing.T) {
	invalid := strings.Replace(validDoc, `resources: ["*"]`, `resources: ["pods/*"]`, 1)
	for _, defects := range []Defects{{}, {ApplyInvalid: true}} {
		g := &Gateway{cfg: Config{ConfigDir: "/d", Defects: defects}, defaults: servingDefaults{cert: &tls.Certificate{}},
			errorLog: log.New(io.Discard, "", 0), metrics: newMetrics(),
			pool: newPool(100*time.Millisecond, timings{healthEvery: time.Hour, healthTimeout: 100 * time.Millisecond, discoveryEvery: time.Hour, discoveryTimeout: 100 * time.Millisecond}, func(*upstream, bool) {}, func(*upstream) {})}
		st, err := g.build(map[string][]byte{"/d/a.yaml": []byte(invalid)}, [32]byte{1}, nil)
		g.pool.closeAll()
		if applied := err == nil && st != nil; applied != defects.ApplyInvalid {
			t.Errorf("%+v: a resource pods/* applied %v (%v), want %v", defects, applied, err, defects.ApplyInvalid)
		}
	}
}
