package gateway

import (
	"fmt"
	"net/url"
	"strings"

	gwapi "github.com/skewcheck/skewcheck/framework/apis/gateway/v1alpha1"
)

// Problem is one thing wrong with the configuration: in which document, at which field
// path, and what to do about it.
type Problem struct {
	Document string // "clusters.yaml#2 (UpstreamCluster \"prod\")"
	Field    string // "spec.dispatchPolicies[0].rules[1].resources[2]"
	Message  string
}

func (p Problem) String() string {
	if p.Field == "" {
		return p.Document + ": " + p.Message
	}
	return p.Document + ": " + p.Field + ": " + p.Message
}

// ConfigError is an invalid configuration directory: every problem found, not only the
// first, so one edit can fix them all.
type ConfigError struct {
	Dir      string
	Problems []Problem
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "gateway configuration in %s is invalid (%d problem(s)):", e.Dir, len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n  - " + p.String())
	}
	return b.String()
}

// validator collects the problems of one document.
type validator struct {
	doc      *document
	problems []Problem
}

func (v *validator) add(field, format string, args ...any) {
	v.problems = append(v.problems, Problem{Document: v.doc.String(), Field: field, Message: fmt.Sprintf(format, args...)})
}

// validate checks everything that does not need the certificates' contents (compile
// checks those): the shape KubeGateway's validation checks, and the rule grammar.
func validate(d *document) []Problem {
	v := &validator{doc: d}
	s := &d.cluster.Spec
	if d.cluster.Name == "" {
		v.add("metadata.name", "is empty; give every UpstreamCluster a name (it labels metrics and errors)")
	}
	servers := v.servers(s.Servers)
	v.clientConfig(&s.ClientConfig)
	v.secureServing(&s.SecureServing)
	schemas := v.flowControl(s.FlowControl.Schemas)
	if len(s.DispatchPolicies) == 0 {
		v.add("spec.dispatchPolicies", "is empty; a request no policy matches is refused, so add at least one (a catch-all: verbs, apiGroups, resources and nonResourceURLs all [\"*\"])")
	}
	for i, p := range s.DispatchPolicies {
		v.policy(fmt.Sprintf("spec.dispatchPolicies[%d]", i), p, servers, schemas)
	}
	return v.problems
}

func (v *validator) servers(servers []gwapi.UpstreamClusterServer) map[string]bool {
	known := map[string]bool{}
	if len(servers) == 0 {
		v.add("spec.servers", "is empty; list at least one apiserver as {endpoint: https://host:port}")
	}
	for i, s := range servers {
		field := fmt.Sprintf("spec.servers[%d].endpoint", i)
		u, err := url.Parse(s.Endpoint)
		switch {
		case s.Endpoint == "":
			v.add(field, "is empty; give the apiserver's URL, https://host:port")
		case err != nil || u.Scheme != "https" || u.Host == "":
			v.add(field, "%q is not an https://host:port URL; the gateway reaches apiservers over TLS only", s.Endpoint)
		case u.Path != "" && u.Path != "/":
			v.add(field, "%q has a path; give only https://host:port", s.Endpoint)
		case u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.Opaque != "":
			// A query would be added to every request forwarded there.
			v.add(field, "%q has credentials, a query or a fragment; give only https://host:port", s.Endpoint)
		case known[s.Endpoint]:
			v.add(field, "%q is listed twice; list each apiserver once", s.Endpoint)
		}
		known[s.Endpoint] = true
	}
	return known
}

func (v *validator) clientConfig(c *gwapi.ClientConfig) {
	v.onePEM("spec.clientConfig.caData", "spec.clientConfig.caFile", c.CAData, c.CAFile)
	v.onePEM("spec.clientConfig.certData", "spec.clientConfig.certFile", c.CertData, c.CertFile)
	v.onePEM("spec.clientConfig.keyData", "spec.clientConfig.keyFile", c.KeyData, c.KeyFile)
	hasCert, hasKey := len(c.CertData) > 0 || c.CertFile != "", len(c.KeyData) > 0 || c.KeyFile != ""
	switch {
	case hasCert != hasKey:
		v.add("spec.clientConfig", "has a client certificate without its key or a key without its certificate; give both")
	case !hasCert && c.BearerToken == "":
		v.add("spec.clientConfig", "gives the gateway no identity; give certData/keyData (or certFile/keyFile) or bearerToken of an identity that may impersonate users, groups, uids, userextras and serviceaccounts")
	}
	if !c.Insecure && len(c.CAData) == 0 && c.CAFile == "" {
		v.add("spec.clientConfig.caData", "is empty; give the CA that signs the apiservers' serving certificates (or insecure: true, for tests only)")
	}
}

func (v *validator) secureServing(s *gwapi.SecureServing) {
	if len(s.ServerNames) == 0 {
		v.add("spec.secureServing.serverNames", "is empty; clients select a cluster by the TLS server name (SNI) they ask for, so list at least one")
	}
	for i, n := range s.ServerNames {
		if n == "" || strings.ContainsAny(n, " /:") {
			v.add(fmt.Sprintf("spec.secureServing.serverNames[%d]", i), "%q is not a DNS name; SNI carries host names only (no port, no IP address)", n)
		}
	}
	v.onePEM("spec.secureServing.certData", "spec.secureServing.certFile", s.CertData, s.CertFile)
	v.onePEM("spec.secureServing.keyData", "spec.secureServing.keyFile", s.KeyData, s.KeyFile)
	v.onePEM("spec.secureServing.clientCAData", "spec.secureServing.clientCAFile", s.ClientCAData, s.ClientCAFile)
	if (len(s.CertData) > 0 || s.CertFile != "") != (len(s.KeyData) > 0 || s.KeyFile != "") {
		v.add("spec.secureServing", "has a serving certificate without its key or a key without its certificate; give both, or neither to use the gateway's own")
	}
}

func (v *validator) onePEM(dataField, fileField string, data []byte, file string) {
	if len(data) > 0 && file != "" {
		v.add(dataField, "and %s are both set; give one", fileField[strings.LastIndex(fileField, ".")+1:])
	}
}

func (v *validator) flowControl(schemas []gwapi.FlowControlSchema) map[string]bool {
	names := map[string]bool{}
	for i, s := range schemas {
		field := fmt.Sprintf("spec.flowControl.flowControlSchemas[%d]", i)
		switch {
		case s.Name == "":
			v.add(field+".name", "is empty; policies refer to a schema by name")
		case names[s.Name]:
			v.add(field+".name", "%q is used twice; schema names are unique", s.Name)
		}
		names[s.Name] = true
		kinds := 0
		if s.Exempt != nil {
			kinds++
		}
		if s.MaxRequestsInflight != nil {
			kinds++
			if s.MaxRequestsInflight.Max <= 0 {
				v.add(field+".maxRequestsInflight.max", "is %d; give a positive number (use exempt for no limit)", s.MaxRequestsInflight.Max)
			}
		}
		if s.TokenBucket != nil {
			kinds++
			if s.TokenBucket.QPS <= 0 {
				v.add(field+".tokenBucket.qps", "is %d; give a positive number (use exempt for no limit)", s.TokenBucket.QPS)
			}
			if s.TokenBucket.Burst < s.TokenBucket.QPS {
				v.add(field+".tokenBucket.burst", "is %d, less than qps %d; give a burst of at least qps", s.TokenBucket.Burst, s.TokenBucket.QPS)
			}
		}
		if kinds != 1 {
			v.add(field, "has %d kinds of limit; give exactly one of exempt, maxRequestsInflight, tokenBucket", kinds)
		}
	}
	return names
}

func (v *validator) policy(field string, p gwapi.DispatchPolicy, servers, schemas map[string]bool) {
	if p.Strategy != "" && p.Strategy != gwapi.RoundRobin {
		v.add(field+".strategy", "%q is not supported; use RoundRobin (or leave it empty)", p.Strategy)
	}
	for j, e := range p.UpstreamSubset {
		if !servers[e] {
			v.add(fmt.Sprintf("%s.upstreamSubset[%d]", field, j), "%q is not in spec.servers; list endpoints exactly as spec.servers does", e)
		}
	}
	if p.FlowControlSchemaName != "" && !schemas[p.FlowControlSchemaName] {
		v.add(field+".flowControlSchemaName", "%q names no schema of spec.flowControl.flowControlSchemas; add it there or fix the name", p.FlowControlSchemaName)
	}
	if len(p.Rules) == 0 {
		v.add(field+".rules", "is empty; a policy without rules matches nothing, add at least one")
	}
	for k, r := range p.Rules {
		v.rule(fmt.Sprintf("%s.rules[%d]", field, k), r)
	}
}

func (v *validator) rule(field string, r gwapi.DispatchPolicyRule) {
	if len(r.Verbs) == 0 {
		v.add(field+".verbs", "is empty and would match nothing; list verbs, or [\"*\"] for all")
	}
	resourceRule := len(r.APIGroups) > 0 || len(r.Resources) > 0 || len(r.ResourceNames) > 0
	switch {
	case !resourceRule && len(r.NonResourceURLs) == 0:
		v.add(field, "names neither resources nor nonResourceURLs and would match nothing; give apiGroups and resources, or nonResourceURLs")
	case resourceRule && len(r.APIGroups) == 0:
		v.add(field+".apiGroups", "is empty and would match no resource; list groups (\"\" is the core group), or [\"*\"] for all")
	case resourceRule && len(r.Resources) == 0:
		v.add(field+".resources", "is empty and would match no resource; list resources, or [\"*\"] for all")
	}
	for i, res := range r.Resources {
		if strings.HasSuffix(res, "/*") {
			v.add(fmt.Sprintf("%s.resources[%d]", field, i), "%q is not allowed (as in KubeGateway): list the subresources (\"r/status\"), or use \"*/sub\" for one subresource of every resource", res)
		}
		if strings.Count(strings.TrimPrefix(res, "-"), "/") > 1 {
			v.add(fmt.Sprintf("%s.resources[%d]", field, i), "%q has more than one \"/\"; write resource or resource/subresource", res)
		}
	}
	for i, sa := range r.ServiceAccounts {
		f := fmt.Sprintf("%s.serviceAccounts[%d]", field, i)
		switch {
		case sa.Name == "" || sa.Namespace == "":
			v.add(f, "needs both namespace and name")
		case strings.HasPrefix(sa.Name, "-") || strings.HasPrefix(sa.Namespace, "-"):
			v.add(f, "%s/%s: serviceAccounts cannot be negated; negate the user instead (users: [\"-system:serviceaccount:%s:%s\"])",
				sa.Namespace, sa.Name, strings.TrimPrefix(sa.Namespace, "-"), strings.TrimPrefix(sa.Name, "-"))
		}
	}
	for i, u := range r.NonResourceURLs {
		f := fmt.Sprintf("%s.nonResourceURLs[%d]", field, i)
		switch {
		case strings.HasPrefix(u, "-"):
			v.add(f, "%q: nonResourceURLs cannot be negated; list the URLs to match", u)
		case u != "*" && !strings.HasPrefix(u, "/"):
			v.add(f, "%q is not a path; write /path, /prefix/*, or \"*\"", u)
		case strings.Contains(strings.TrimSuffix(u, "*"), "*"):
			v.add(f, "%q: \"*\" may only end a URL, as a prefix match", u)
		}
	}
}

// validateAll validates each document and what documents must agree on: unique names and
// server names.
func validateAll(docs []*document) []Problem {
	var problems []Problem
	names, serverNames := map[string]string{}, map[string]string{}
	for _, d := range docs {
		problems = append(problems, validate(d)...)
		if other, ok := names[d.cluster.Name]; ok && d.cluster.Name != "" {
			problems = append(problems, Problem{Document: d.String(), Field: "metadata.name",
				Message: fmt.Sprintf("is also the name of %s; names are unique", other)})
		}
		names[d.cluster.Name] = d.source
		for i, n := range d.cluster.Spec.SecureServing.ServerNames {
			n = strings.ToLower(n)
			if other, ok := serverNames[n]; ok {
				problems = append(problems, Problem{Document: d.String(), Field: fmt.Sprintf("spec.secureServing.serverNames[%d]", i),
					Message: fmt.Sprintf("%q is also a server name of %s; each server name selects one cluster", n, other)})
			}
			serverNames[n] = d.String()
		}
	}
	return problems
}
