package gateway

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/yaml"

	gwapi "github.com/skewcheck/skewcheck/framework/apis/gateway/v1alpha1"
)

// malformedRule says why validation must refuse r, judged from the rule grammar of
// rules.go, or "" when nothing is wrong with it.
func malformedRule(r gwapi.DispatchPolicyRule) string {
	resourceRule := len(r.APIGroups) > 0 || len(r.Resources) > 0 || len(r.ResourceNames) > 0
	switch {
	case len(r.Verbs) == 0:
		return "no verbs"
	case !resourceRule && len(r.NonResourceURLs) == 0:
		return "neither resources nor URLs"
	case resourceRule && (len(r.APIGroups) == 0 || len(r.Resources) == 0):
		return "resources without groups, or groups without resources"
	}
	for _, res := range r.Resources {
		if strings.HasSuffix(res, "/*") || strings.Count(strings.TrimPrefix(res, "-"), "/") > 1 {
			return "resource " + res
		}
	}
	for _, sa := range r.ServiceAccounts {
		if sa.Name == "" || sa.Namespace == "" || strings.HasPrefix(sa.Name, "-") || strings.HasPrefix(sa.Namespace, "-") {
			return "service account " + sa.Namespace + "/" + sa.Name
		}
	}
	for _, u := range r.NonResourceURLs {
		if u != "*" && (!strings.HasPrefix(u, "/") || strings.Contains(strings.TrimSuffix(u, "*"), "*")) {
			return "URL " + u
		}
	}
	return ""
}

// malformedEndpoint says why an endpoint is not https://host[:port], or "".
func malformedEndpoint(e string) string {
	u, err := url.Parse(e)
	switch {
	case err != nil:
		return err.Error()
	case u.Scheme != "https" || u.Host == "":
		return "not https://host"
	case u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.Opaque != "" || (u.Path != "" && u.Path != "/"):
		return "more than https://host:port"
	}
	return ""
}

func hasProblemAt(ps []Problem, field string) bool {
	for _, p := range ps {
		if strings.HasPrefix(p.Field, field) {
			return true
		}
	}
	return false
}

// FuzzUpstreamCluster reads any configuration file as the gateway does and checks:
//   - a rule validation must refuse (no verbs, "r/*", a negated service account or URL,
//     a URL that is no path, ...) is refused at its field (TestValidate);
//   - a server endpoint that is not https://host[:port] is refused at its field
//     (TestValidate: "an http endpoint");
//   - a document that validates, written out again and read back, is the same document
//     and still validates: what the gateway serves is what the file says
//     (TestParseDocumentsStrict, TestValidate: "valid").
func FuzzUpstreamCluster(f *testing.F) {
	f.Add([]byte(validDoc))
	f.Add([]byte(validDoc + "---\n# only a comment\n---\n" + strings.Replace(validDoc, "name: prod", "name: dev", 1)))
	for _, edit := range [][2]string{
		{`resources: ["*"]`, `resources: ["pods", "-pods/log"]`},
		{`resources: ["*"]`, `resources: ["pods/*"]`},
		{`resources: ["*"]`, `resources: ["-pods/*", "a/b/c"]`},
		{`nonResourceURLs: ["*"]`, `nonResourceURLs: ["-/version", "version", "/a*b"]`},
		{`verbs: ["*"]`, `verbs: []`},
		{`verbs: ["*"]`, `verbs: ["-*"]`},
		{`verbs: ["*"], `, `verbs: ["*"], serviceAccounts: [{namespace: ns, name: "-sa"}], users: ["-system:serviceaccount:ns:sa", "system:node:*"], userGroups: ["-ops"], `},
		{`"https://127.0.0.1:6443"`, `"http://127.0.0.1:8080"`},
		{`"https://127.0.0.1:6443"`, `"https://127.0.0.1:6443/proxy"`},
		{`"https://127.0.0.1:6443"`, `"https://u:p@127.0.0.1:6443"`},
		{`"https://127.0.0.1:6443"`, `"https://127.0.0.1:6443?watch=true"`},
		{`"https://127.0.0.1:6443"`, `"https://127.0.0.1:6443#x"`},
		{`"https://127.0.0.2:6443"`, `"https://127.0.0.1:6443"`},
		{`serverNames: [prod.example]`, `serverNames: ["prod.example:443", ""]`},
		{`tokenBucket: {qps: 1, burst: 1}`, `tokenBucket: {qps: 2, burst: 1}, exempt: {}`},
		{`    flowControlSchemaName: slow`, `    flowControlSchemaName: fast\n    strategy: Random\n    upstreamSubset: ["https://10.0.0.1:6443"]`},
		{`kind: UpstreamCluster`, `kind: Cluster`},
		{`metadata: {name: prod}`, `metadata: {name: prod}\nunknownField: 1`},
	} {
		f.Add([]byte(strings.Replace(validDoc, edit[0], edit[1], 1)))
	}
	f.Fuzz(func(t *testing.T, file []byte) {
		docs, _ := parseDocuments(map[string][]byte{"/d/clusters.yaml": file})
		for _, d := range docs {
			ps := validate(d)
			s := d.cluster.Spec
			for i, srv := range s.Servers {
				if why := malformedEndpoint(srv.Endpoint); why != "" && !hasProblemAt(ps, fmt.Sprintf("spec.servers[%d].endpoint", i)) {
					t.Fatalf("%s: endpoint %q (%s) is not refused: %v", d, srv.Endpoint, why, ps)
				}
			}
			for i, p := range s.DispatchPolicies {
				for k, r := range p.Rules {
					field := fmt.Sprintf("spec.dispatchPolicies[%d].rules[%d]", i, k)
					if why := malformedRule(r); why != "" && !hasProblemAt(ps, field) {
						t.Fatalf("%s: %s %+v (%s) is not refused: %v", d, field, r, why, ps)
					}
				}
			}
			if len(ps) > 0 {
				continue
			}
			out, err := yaml.Marshal(d.cluster)
			if err != nil {
				t.Fatalf("%s validates, and cannot be written out: %v", d, err)
			}
			again, problems := parseDocuments(map[string][]byte{"/d/again.yaml": out})
			if len(problems) > 0 || len(again) != 1 {
				t.Fatalf("%s validates, and written out reads as %d documents, %v:\n%s", d, len(again), problems, out)
			}
			if !equality.Semantic.DeepEqual(again[0].cluster, d.cluster) {
				t.Fatalf("%s written out and read back is another document:\n%s\nwas %+v, is %+v", d, out, d.cluster, again[0].cluster)
			}
			if ps := validate(again[0]); len(ps) > 0 {
				t.Fatalf("%s validates, and written out and read back does not: %v", d, ps)
			}
		}
	})
}
