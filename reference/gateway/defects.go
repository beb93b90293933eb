package gateway

import (
	"fmt"
	"sort"
	"strings"
)

// Defects are deliberate mistakes a gateway could make, switched on to show that the
// gateway profile catches them (each makes named tests fail). Never for real use.
type Defects struct {
	// NegationOred: a list of negated entries matches what any one of them allows, so
	// ["-pods", "-deployments"] matches both (KubeGateway's code does this).
	NegationOred bool
	// NoImpersonation: requests reach the upstreams as the gateway itself, with the
	// gateway's rights instead of the client's.
	NoImpersonation bool
	// IgnoreDiscovery: any server of the policy takes any request, so a GVR only some of
	// them serve gets 404 from the others.
	IgnoreDiscovery bool
	// IgnoreSNI: the cluster is chosen without looking at the server name the client
	// asked for, nor its Host: every request is served by the default server name's
	// cluster (else the first document's).
	IgnoreSNI bool
	// DropUID: the user's UID is not passed on (no Impersonate-Uid), so a service
	// account's requests run upstream without the UID its token carries.
	DropUID bool
	// UpgradeAsItself: upgrade requests (exec, attach, port-forward, websocket watches)
	// reach the upstreams as the gateway itself, as the requests of k8s.io/apiserver's
	// upgrade-aware proxy reach a peer without the user's identity headers.
	UpgradeAsItself bool
	// ConnectionPerClient: every client connection gets upstream connections of its
	// own, as a gateway has that builds an HTTP client per user or per connection.
	ConnectionPerClient bool
	// GoTransport: every request (upgrades aside) goes through one Go http.Transport with
	// HTTP/2, as the reference did before lanes: when every connection to a server
	// carries the 100 streams kube-apiserver allows, it dials a new one for each request
	// that finds them full.
	GoTransport bool
	// ImpersonationBeforeHopByHop: the client's impersonation is written on the incoming
	// request, before ReverseProxy removes the headers the client's Connection names, and
	// such a Connection is not refused: a client that names Impersonate-User and
	// Impersonate-Group there reaches the upstreams as the gateway itself (the reference
	// did this until issue 24).
	ImpersonationBeforeHopByHop bool
	// NoPolicyInternalError: a request no dispatch policy matches is answered 500
	// InternalError instead of 403 Forbidden (the reference did this until issue 24).
	NoPolicyInternalError bool

	// The defects below each make one test of the gateway profile fail that no other
	// defect fails (issue 37: every test proven able to fail); the comment names it.

	// IgnoreVerbs: a rule's verbs are not looked at, so a rule for list and create takes
	// gets and watches too (GW-010).
	IgnoreVerbs bool
	// IgnoreSubresource: a request is matched by its resource alone, its subresource
	// dropped, so "pods/log" and "*/status" match nothing and "pods" takes pods/status
	// (GW-011).
	IgnoreSubresource bool
	// NamesMatchLists: resourceNames do not hold back a request that names no object, so
	// a rule for one ConfigMap by name takes every list of ConfigMaps (GW-012).
	NamesMatchLists bool
	// IgnoreSubjects: users, serviceAccounts and userGroups are not looked at, so a rule
	// for one user takes everybody's requests (GW-013).
	IgnoreSubjects bool
	// URLRulesMatchResources: empty apiGroups and resources match every group and
	// resource (as empty resourceNames do), so a rule of nonResourceURLs only takes every
	// resource request too (GW-014).
	URLRulesMatchResources bool
	// URLEntriesArePrefixes: a nonResourceURLs entry without a trailing * matches every
	// path it begins, so "/version" takes "/version/x" (GW-014).
	URLEntriesArePrefixes bool
	// LastMatchWins: of the policies that match, the last takes the request, as if later
	// policies overrode earlier ones (GW-016).
	LastMatchWins bool
	// IgnoreSubset: a policy's requests go to every enabled server of the cluster, its
	// upstreamSubset disregarded (GW-020).
	IgnoreSubset bool
	// DisabledChosen: disabled servers stay in the subsets that name them (GW-021).
	DisabledChosen bool
	// FirstServerOnly: every request goes to the first server that can take it, the
	// others only when it fails: no rotation (GW-022).
	FirstServerOnly bool
	// InflightCountsWatches: long-running requests (watches) take a MaxRequestsInflight
	// slot as any other, so idle watches fill the limit (GW-040).
	InflightCountsWatches bool
	// NoTokenBucket: a TokenBucket schema admits everything, as if it were Exempt
	// (GW-041).
	NoTokenBucket bool
	// RefuseExempt: an Exempt schema is built as a MaxRequestsInflight whose max is
	// left at zero, so its policy refuses every request 429 (GW-042).
	RefuseExempt bool
	// KeepKilledUpstream: the gateway does not track its servers' health: a request goes
	// to the round-robin pick of the whole subset, dead or not, and to that one only (the
	// reference's retry on the next healthy server would answer a dead server's GETs, and
	// GW-050 sends GETs), so a killed server's share of the requests fails for as long as
	// it is dead (GW-050, GW-051).
	KeepKilledUpstream bool
	// ApplyInvalid: the validation's problems are logged and the configuration applied
	// anyway (GW-061).
	ApplyInvalid bool
	// BodiesInTurn: every request's body is read whole before it is forwarded, one
	// request at a time under a single lock (as the peer proxy's bodies-in-turn flaw):
	// a client whose body trickles in holds up every other client, reads included
	// (GW-090).
	BodiesInTurn bool
	// SharedLanes: an upstream's streams are shared by all clients together, first come
	// first served, and a request waits for one with no bound but its own context, as the
	// reference did until issue 57: a client that holds every stream with slow requests
	// holds up every other client's requests, the gateway's health checks too (GW-091).
	SharedLanes bool
	// HostRoutesSNIAuthenticates: the cluster is chosen by the Host, and a Host that names
	// another cluster than the TLS server name is not refused: the client certificate,
	// verified at the handshake against the server name's cluster's client CA, is trusted
	// for the Host's cluster, so one cluster's clients get into the other (GW-072).
	HostRoutesSNIAuthenticates bool
}

var defectNames = map[string]func(*Defects){
	"negation-or":                     func(d *Defects) { d.NegationOred = true },
	"no-impersonation":                func(d *Defects) { d.NoImpersonation = true },
	"ignore-discovery":                func(d *Defects) { d.IgnoreDiscovery = true },
	"ignore-sni":                      func(d *Defects) { d.IgnoreSNI = true },
	"upgrade-as-itself":               func(d *Defects) { d.UpgradeAsItself = true },
	"connection-per-client":           func(d *Defects) { d.ConnectionPerClient = true },
	"go-transport":                    func(d *Defects) { d.GoTransport = true },
	"impersonation-before-hop-by-hop": func(d *Defects) { d.ImpersonationBeforeHopByHop = true },
	"no-policy-500":                   func(d *Defects) { d.NoPolicyInternalError = true },
	"drop-uid":                        func(d *Defects) { d.DropUID = true },
	"ignore-verbs":                    func(d *Defects) { d.IgnoreVerbs = true },
	"ignore-subresource":              func(d *Defects) { d.IgnoreSubresource = true },
	"names-match-lists":               func(d *Defects) { d.NamesMatchLists = true },
	"ignore-subjects":                 func(d *Defects) { d.IgnoreSubjects = true },
	"url-rules-match-resources":       func(d *Defects) { d.URLRulesMatchResources = true },
	"url-entries-are-prefixes":        func(d *Defects) { d.URLEntriesArePrefixes = true },
	"last-match-wins":                 func(d *Defects) { d.LastMatchWins = true },
	"ignore-subset":                   func(d *Defects) { d.IgnoreSubset = true },
	"disabled-chosen":                 func(d *Defects) { d.DisabledChosen = true },
	"first-server-only":               func(d *Defects) { d.FirstServerOnly = true },
	"inflight-counts-watches":         func(d *Defects) { d.InflightCountsWatches = true },
	"no-token-bucket":                 func(d *Defects) { d.NoTokenBucket = true },
	"refuse-exempt":                   func(d *Defects) { d.RefuseExempt = true },
	"keep-killed-upstream":            func(d *Defects) { d.KeepKilledUpstream = true },
	"apply-invalid":                   func(d *Defects) { d.ApplyInvalid = true },
	"bodies-in-turn":                  func(d *Defects) { d.BodiesInTurn = true },
	"host-routes-sni-authenticates":   func(d *Defects) { d.HostRoutesSNIAuthenticates = true },
	"shared-lanes":                    func(d *Defects) { d.SharedLanes = true },
}

// DefectNames lists what ParseDefects accepts.
func DefectNames() []string {
	var out []string
	for n := range defectNames {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// ParseDefects reads defect names (see DefectNames).
func ParseDefects(names []string) (Defects, error) {
	var d Defects
	for _, n := range names {
		set, ok := defectNames[strings.TrimSpace(n)]
		if !ok {
			return d, fmt.Errorf("unknown defect %q: the defects are %s", n, strings.Join(DefectNames(), ", "))
		}
		set(&d)
	}
	return d, nil
}

// Any reports whether any defect is on (every field is a bool: none on is the zero value).
func (d Defects) Any() bool { return d != Defects{} }
