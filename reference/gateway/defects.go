package gateway

import (
	"fmt"
	"slices"
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

// Any reports whether any defect is on.
func (d Defects) Any() bool {
	return slices.Contains([]bool{d.NegationOred, d.NoImpersonation, d.IgnoreDiscovery, d.IgnoreSNI, d.UpgradeAsItself, d.ConnectionPerClient, d.GoTransport,
		d.ImpersonationBeforeHopByHop, d.NoPolicyInternalError, d.DropUID}, true)
}
