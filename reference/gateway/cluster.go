package gateway

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	gwapi "github.com/skewcheck/skewcheck/framework/apis/gateway/v1alpha1"
	"github.com/skewcheck/skewcheck/reference/internal/authn"
)

// cluster is a validated UpstreamCluster compiled for serving: its TLS config for the
// server names that select it, its servers, and its policies with their limiters.
type cluster struct {
	name          string
	serverNames   []string
	tls           *tls.Config
	conn          *connector
	servers       []*upstream // spec order, disabled ones included
	disabled      map[*upstream]bool
	policies      []*policy
	schemas       map[string]schemaLimiter
	auth          *authn.Authenticator
	impersonation *impersonationAuthorizer
	next          atomic.Uint64 // round robin for the gateway's own calls
	// anonymous is spec.anonymous: a request without credentials goes on as
	// system:anonymous instead of being refused 401.
	anonymous bool
	// lastMatchWins is the LastMatchWins defect.
	lastMatchWins bool
}

// policy is a compiled DispatchPolicy.
type policy struct {
	label   string // its index in spec.dispatchPolicies, for metrics and messages
	rules   []rule
	subset  []*upstream // the servers it may use, disabled ones removed
	schema  string      // flow-control schema name, "" for none
	limiter limiter
	next    atomic.Uint64
	// ignoreDiscovery is the IgnoreDiscovery defect.
	ignoreDiscovery bool
	// firstServerOnly and ignoreHealth are the FirstServerOnly and KeepKilledUpstream
	// defects.
	firstServerOnly, ignoreHealth bool
}

// schemaLimiter keeps a schema's definition with its limiter, so a reload that leaves the
// schema as it was keeps its state (requests in flight, tokens spent).
type schemaLimiter struct {
	def     gwapi.FlowControlSchema
	limiter limiter
}

// servingDefaults are the gateway's own certificate and client CA, for clusters that do
// not bring theirs.
type servingDefaults struct {
	cert      *tls.Certificate
	clientCAs *x509.CertPool
}

// upstreamPool hands out the upstream for an endpoint reached through a connector: the
// running one if the gateway has it, else a new one that is not started yet.
type upstreamPool interface {
	connector(key string, c resolvedClientConfig) *connector
	upstream(cluster string, conn *connector, endpoint string) *upstream
}

// compile turns a validated document into a cluster. prev is the cluster of the same name
// in the running configuration, if any, whose unchanged limiters are kept.
func compile(d *document, defaults servingDefaults, prev *cluster, pool upstreamPool, defects Defects) (*cluster, []Problem) {
	spec := &d.cluster.Spec
	var problems []Problem
	add := func(ps ...Problem) {
		for _, p := range ps {
			p.Document = d.String()
			problems = append(problems, p)
		}
	}
	cc, ps := resolveClientConfig(spec.ClientConfig, d.dir)
	add(ps...)
	tlsConfig, ps := servingTLS(spec.SecureServing, d.dir, defaults)
	add(ps...)
	if len(problems) > 0 {
		return nil, problems
	}

	c := &cluster{name: d.cluster.Name, tls: tlsConfig, disabled: map[*upstream]bool{}, schemas: map[string]schemaLimiter{},
		anonymous: spec.Anonymous, lastMatchWins: defects.LastMatchWins}
	for _, n := range spec.SecureServing.ServerNames {
		c.serverNames = append(c.serverNames, strings.ToLower(n))
	}
	c.conn = pool.connector(c.name+"/"+cc.fingerprint(), cc)
	byEndpoint := map[string]*upstream{}
	for _, s := range spec.Servers {
		u := pool.upstream(c.name, c.conn, s.Endpoint)
		c.servers = append(c.servers, u)
		byEndpoint[s.Endpoint] = u
		if s.Disabled != nil && *s.Disabled {
			c.disabled[u] = true
		}
	}
	for _, s := range spec.FlowControl.Schemas {
		if old, ok := prev.schema(s.Name); ok && reflect.DeepEqual(old.def, s) {
			c.schemas[s.Name] = old
			continue
		}
		c.schemas[s.Name] = schemaLimiter{def: s, limiter: newLimiter(s, defects)}
	}
	for i, p := range spec.DispatchPolicies {
		cp := &policy{label: strconv.Itoa(i), schema: p.FlowControlSchemaName, limiter: exempt{}, ignoreDiscovery: defects.IgnoreDiscovery,
			firstServerOnly: defects.FirstServerOnly, ignoreHealth: defects.KeepKilledUpstream}
		if s, ok := c.schemas[p.FlowControlSchemaName]; ok {
			cp.limiter = s.limiter
		}
		for _, r := range p.Rules {
			cp.rules = append(cp.rules, compileRule(r, defects))
		}
		subset := p.UpstreamSubset
		if len(subset) == 0 || defects.IgnoreSubset { // the defect: GW-020 must catch it
			subset = nil
			for _, s := range spec.Servers {
				subset = append(subset, s.Endpoint)
			}
		}
		for _, e := range subset {
			if u := byEndpoint[e]; !c.disabled[u] || defects.DisabledChosen { // the defect: GW-021 must catch it
				cp.subset = append(cp.subset, u)
			}
		}
		c.policies = append(c.policies, cp)
	}
	c.auth = &authn.Authenticator{Review: c.reviewToken}
	c.impersonation = &impersonationAuthorizer{review: c.reviewAccess}
	if prev != nil {
		// Tokens and grants already reviewed stay reviewed across a reload.
		c.auth.KeepReviews(prev.auth)
		c.impersonation.cache = prev.impersonation.snapshotCache()
	}
	return c, nil
}

func (c *cluster) schema(name string) (schemaLimiter, bool) {
	if c == nil {
		return schemaLimiter{}, false
	}
	s, ok := c.schemas[name]
	return s, ok
}

// match is the first policy one of whose rules matches: order is priority.
func (c *cluster) match(a attributes) *policy {
	var found *policy
	for _, p := range c.policies {
		if slices.ContainsFunc(p.rules, func(r rule) bool { return r.matches(a) }) {
			if !c.lastMatchWins { // the defect looks on: GW-016 must catch it
				return p
			}
			found = p
		}
	}
	return found
}

// servingTLS is what the gateway presents to this cluster's clients and how it verifies
// their certificates.
func servingTLS(s gwapi.SecureServing, dir string, defaults servingDefaults) (*tls.Config, []Problem) {
	var problems []Problem
	read := func(field string, data []byte, file string) []byte {
		b, err := pemFrom(data, file, dir)
		if err != nil {
			problems = append(problems, Problem{Field: field, Message: err.Error() + "; give a readable PEM file (relative paths are relative to the document's directory)"})
		}
		return b
	}
	certPEM := read("spec.secureServing.certFile", s.CertData, s.CertFile)
	keyPEM := read("spec.secureServing.keyFile", s.KeyData, s.KeyFile)
	caPEM := read("spec.secureServing.clientCAFile", s.ClientCAData, s.ClientCAFile)
	if len(problems) > 0 {
		return nil, problems
	}
	tc := &tls.Config{ClientAuth: tls.VerifyClientCertIfGiven, NextProtos: []string{"h2", "http/1.1"}, MinVersion: tls.VersionTLS12}
	switch {
	case len(certPEM) > 0:
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, []Problem{{Field: "spec.secureServing.certData", Message: "with keyData is not a usable serving certificate: " + err.Error()}}
		}
		tc.Certificates = []tls.Certificate{cert}
	case defaults.cert != nil:
		tc.Certificates = []tls.Certificate{*defaults.cert}
	default:
		return nil, []Problem{{Field: "spec.secureServing.certData", Message: "is empty and the gateway has no serving certificate of its own (Config.ServingCert, --tls-cert); give one of them"}}
	}
	switch {
	case len(caPEM) > 0:
		tc.ClientCAs = x509.NewCertPool()
		if !tc.ClientCAs.AppendCertsFromPEM(caPEM) {
			return nil, []Problem{{Field: "spec.secureServing.clientCAData", Message: "holds no PEM certificate; give the CA that signs client certificates"}}
		}
	case defaults.clientCAs != nil:
		tc.ClientCAs = defaults.clientCAs
	default:
		// No client CA: client certificates are not requested; clients use bearer tokens.
		tc.ClientAuth = tls.NoClientCert
	}
	return tc, nil
}

func (a *impersonationAuthorizer) snapshotCache() map[string]time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make(map[string]time.Time, len(a.cache))
	for k, v := range a.cache {
		out[k] = v
	}
	return out
}

func (c *cluster) String() string { return fmt.Sprintf("UpstreamCluster %q", c.name) }
