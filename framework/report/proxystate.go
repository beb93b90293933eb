package report

import (
	"fmt"
	"io"
	"strings"
)

// ProxyState is what skewcheck read of the Mixed Version Proxy (KEP-4020) at each server
// of the target before any test ran. It is in the report because one cause (kubeadm never
// sets --peer-ca-file, and upstream builds no proxy without it) shows up as a page of
// unrelated-looking failures; the report names the cause once, with its fix.
type ProxyState struct {
	// Servers has one entry per endpoint, in the target's order.
	Servers []ProxyServer `json:"servers"`
	// Verdict is one sentence over every server.
	Verdict string `json:"verdict"`
	// Inert names the servers that do not proxy a request only a peer can serve: the
	// cause the console summary leads with. Empty when none was found.
	Inert []string `json:"inert,omitempty"`
	// Fix says how to make the proxy active, for the way the cluster was made (kubeadm,
	// skewcheck's own flags, plain kube-apiserver flags); set when Inert is.
	Fix string `json:"fix,omitempty"`
	// Issue is the upstream issue behind the cause, when there is one.
	Issue string `json:"issue,omitempty"`
}

// ProxyServer is the proxy's state at one server.
type ProxyServer struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Behind names the apiserver behind a front the harness put there: Gate, PeerProxy
	// and the lease are that apiserver's, Proxying and Discovery what the front answers.
	Behind string    `json:"behind,omitempty"`
	Gate   ProxyGate `json:"gate"`
	// PeerProxy says whether the server built its proxy: PeerProxyBuilt, PeerProxyNotBuilt
	// or CannotTell.
	PeerProxy Finding `json:"peerProxy"`
	// Proxying is what a request for a GVR only a peer serves got: ProxyActive,
	// ProxyInert or CannotTell.
	Proxying Finding `json:"proxying"`
	// Discovery is whether /api and /apis merge the peers' resources: DiscoveryMerged,
	// DiscoveryLocal or CannotTell.
	Discovery Finding `json:"discovery"`
	// PeerOnly are the GVRs a peer serves and this server does not: what its clients get
	// 404 for while the proxy is inert.
	PeerOnly []string `json:"peerOnly,omitempty"`
	// PeerAdvertiseAddress is the address the server's identity lease gives its peers
	// (annotation kubernetes.io/peer-advertise-address), Lease that lease's name, and
	// LeaseNote why either is missing.
	PeerAdvertiseAddress string `json:"peerAdvertiseAddress,omitempty"`
	Lease                string `json:"lease,omitempty"`
	LeaseNote            string `json:"leaseNote,omitempty"`
	// PeerAddressTLS is whether PeerAdvertiseAddress answers TLS as a peer dials it: the
	// server name kubernetes.default.svc, verified against the cluster's CA (the pod's
	// ServiceAccount ca.crt). Peers whose --peer-ca-file is that CA cannot pass requests to
	// a server that fails it, nor (1.35 to 1.37, as read) fetch its discovery. PeerTLSVerified,
	// PeerTLSUnverified (with the x509 error), PeerTLSUnreachable (with the dial error), or
	// NotChecked with why: only a run inside the cluster (certify) dials it.
	PeerAddressTLS *Finding `json:"peerAddressTLS,omitempty"`
}

// ProxyGate is the gate UnknownVersionInteroperabilityProxy at one server.
type ProxyGate struct {
	State string `json:"state"` // GateOn, GateOff, GateAbsent
	// Stage is the gate's stage as the server gave it (kubernetes_feature_enabled's stage
	// label: ALPHA, BETA, "" for GA) or as the release declares it when inferred.
	Stage string `json:"stage,omitempty"`
	// Source is GateFromMetrics or GateInferred (the release's default: nobody's
	// --feature-gates can be seen).
	Source   string `json:"source"`
	Evidence string `json:"evidence"`
}

// Finding is one thing read of a server: a state and what it was read from.
type Finding struct {
	State    string `json:"state"`
	Evidence string `json:"evidence"`
}

// The states a ProxyState's fields take.
const (
	GateOn     = "on"
	GateOff    = "off"
	GateAbsent = "absent" // before 1.28: the server has no Mixed Version Proxy at all

	GateFromMetrics = "metrics"
	GateInferred    = "inferred"

	PeerProxyBuilt    = "built"
	PeerProxyNotBuilt = "not built"

	ProxyActive = "active"
	ProxyInert  = "inert"

	DiscoveryMerged = "peer-aggregated"
	DiscoveryLocal  = "local"

	PeerTLSVerified    = "verified"
	PeerTLSUnverified  = "unverified"
	PeerTLSUnreachable = "unreachable"
	NotChecked         = "not checked"

	CannotTell = "cannot tell"
)

// NotCheckedOutside is why a peer address was not dialled: it is an address on the control
// plane's network, which a run outside the cluster need not reach, so a failure from there
// would say nothing of the peers. Lines leave it out: it would be on every one.
const NotCheckedOutside = "not checked from outside the cluster: skewcheck certify checks it from inside"

// Line is the server's state on one line, for a terminal.
func (s ProxyServer) Line() string {
	name := s.Name + " " + s.Version
	if s.Behind != "" {
		name += " (in front of " + s.Behind + ")"
	}
	gate := "gate " + s.Gate.State + " (" + s.Gate.Source
	if s.Gate.Stage != "" {
		gate += ", " + s.Gate.Stage
	}
	gate += ": " + s.Gate.Evidence + ")"
	lease := "peer address " + s.PeerAdvertiseAddress + " (lease " + s.Lease + ")"
	if s.PeerAdvertiseAddress == "" {
		lease = "no peer address: " + s.LeaseNote
	}
	clauses := []string{name + ": " + gate,
		"peer proxy " + s.PeerProxy.State + " (" + s.PeerProxy.Evidence + ")",
		"proxying " + s.Proxying.State + " (" + s.Proxying.Evidence + ")",
		"discovery " + s.Discovery.State + " (" + s.Discovery.Evidence + ")",
		lease}
	if t := s.PeerAddressTLS; t != nil && s.PeerAdvertiseAddress != "" && t.Evidence != NotCheckedOutside {
		clauses = append(clauses, "peer TLS "+t.State+" ("+t.Evidence+")")
	}
	return strings.Join(clauses, "; ")
}

// WriteProxyState writes the state read before the tests: a line per server, the verdict,
// and the fix when a server's proxy is inert.
func WriteProxyState(w io.Writer, p *ProxyState) {
	if p == nil {
		return
	}
	fmt.Fprintln(w, "the Mixed Version Proxy at each server, before any test:")
	for _, s := range p.Servers {
		fmt.Fprintln(w, "  "+s.Line())
	}
	fmt.Fprintln(w, p.Verdict)
	writeFix(w, p)
}

// WriteProxyCause leads a run's summary with the one cause when a server's proxy is
// inert, so a reader meets it before the failures it explains; nothing otherwise.
func WriteProxyCause(w io.Writer, p *ProxyState) {
	if p == nil || len(p.Inert) == 0 {
		return
	}
	fmt.Fprintln(w, "ONE CAUSE: "+p.Verdict+" The tests that need the proxy there fail below for that reason.")
	writeFix(w, p)
	fmt.Fprintln(w)
}

func writeFix(w io.Writer, p *ProxyState) {
	if p.Fix != "" {
		fmt.Fprintln(w, "fix: "+strings.ReplaceAll(p.Fix, "\n", "\n  "))
	}
	if p.Issue != "" {
		fmt.Fprintln(w, "upstream: "+p.Issue)
	}
}
