package proxystate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/skewcheck/skewcheck/framework/report"
)

// judge sets p's verdict, inert servers, fix and issue from its servers. made is asked
// only when a fix is due: it may cost a request.
func judge(p *report.ProxyState, made func() maker) {
	var noPeerCA, gateOff, unsynced, fronts, active, unknown []report.ProxyServer
	for _, s := range p.Servers {
		inert := s.Proxying.State == report.ProxyInert
		switch {
		case s.Behind != "":
			// A front's proxying is the front's own: its apiserver runs with the gate off.
			if inert {
				fronts = append(fronts, s)
			}
		// Without a GVR only a peer serves (a cluster at one version, before its upgrade)
		// nothing can be proxied, but a server that built no proxy will not proxy either:
		// the gate read off, or on with no peer CA, and no proxy's post-start hook.
		case inert && s.Gate.State != report.GateOn,
			s.Proxying.State == report.CannotTell && s.Gate.State != report.GateOn && s.PeerProxy.State == report.PeerProxyNotBuilt:
			gateOff = append(gateOff, s)
		case inert && s.PeerProxy.State == report.PeerProxyBuilt:
			unsynced = append(unsynced, s)
		case inert, s.Proxying.State == report.CannotTell && s.Gate.State == report.GateOn && s.PeerProxy.State == report.PeerProxyNotBuilt:
			noPeerCA = append(noPeerCA, s)
		}
		switch s.Proxying.State {
		case report.ProxyActive:
			active = append(active, s)
		case report.CannotTell:
			unknown = append(unknown, s)
		}
	}
	var clauses []string
	if len(noPeerCA) > 0 {
		gate := "the gate is on"
		if slices.ContainsFunc(noPeerCA, func(s report.ProxyServer) bool { return s.Gate.Source == report.GateInferred }) {
			gate = "the gate is on (by its release's default: /metrics could not tell)"
		}
		why := gate + ", but no --peer-ca-file"
		if slices.ContainsFunc(noPeerCA, func(s report.ProxyServer) bool { return s.PeerProxy.State != report.PeerProxyNotBuilt }) {
			why = gate + ", but it does not proxy, most likely for want of --peer-ca-file (/readyz?verbose could not tell)"
		}
		clauses = append(clauses, fmt.Sprintf("the Mixed Version Proxy is inert on %s: %s; during an upgrade clients get 404 for %s", names(noPeerCA), why, peerOnly(noPeerCA)))
		p.Issue = Issue
	}
	if len(gateOff) > 0 {
		why := "the gate " + Gate + " is off"
		if slices.ContainsFunc(gateOff, func(s report.ProxyServer) bool { return s.Gate.Source == report.GateInferred }) {
			why += " (by its release's default: /metrics could not tell)"
		}
		if slices.ContainsFunc(gateOff, func(s report.ProxyServer) bool { return s.Gate.State == report.GateAbsent }) {
			why += " (or absent: 1.27 and older have no such proxy)"
		}
		clauses = append(clauses, fmt.Sprintf("the Mixed Version Proxy is off on %s: %s; clients get 404 for %s", names(gateOff), why, peerOnly(gateOff)))
	}
	if len(unsynced) > 0 {
		clauses = append(clauses, fmt.Sprintf("the Mixed Version Proxy on %s is built but answered 404 for %s: it has not learned its peers yet (it takes seconds after a start) or cannot read their discovery", names(unsynced), peerOnly(unsynced)))
	}
	if len(fronts) > 0 {
		clauses = append(clauses, fmt.Sprintf("the front %s answered 404 for %s, which a peer serves: it sent the request to no server that serves it", names(fronts), peerOnly(fronts)))
	}
	// In the target's order, whatever the cause: the report's data reads as its servers do.
	for _, s := range p.Servers {
		if slices.ContainsFunc([][]report.ProxyServer{noPeerCA, gateOff, unsynced, fronts}, func(g []report.ProxyServer) bool {
			return slices.ContainsFunc(g, func(x report.ProxyServer) bool { return x.Name == s.Name })
		}) {
			p.Inert = append(p.Inert, s.Name)
		}
	}
	if len(noPeerCA)+len(gateOff) > 0 {
		p.Fix = fix(made(), len(gateOff) > 0)
	}
	if len(active) > 0 {
		clauses = append(clauses, "the Mixed Version Proxy is active on "+names(active)+": it passed a request only a peer can serve on to the peer")
	}
	if cannot := withoutInert(unknown, p.Inert); len(cannot) > 0 {
		clauses = append(clauses, "cannot tell whether the Mixed Version Proxy on "+names(cannot)+" proxies: "+reasons(cannot))
	}
	p.Verdict = upper(strings.Join(clauses, "; ")) + "."
}

func names(servers []report.ProxyServer) string {
	var out []string
	for _, s := range servers {
		out = append(out, s.Name)
	}
	return strings.Join(out, ", ")
}

// peerOnly names what the servers' clients get 404 for: the GVRs only a peer serves.
func peerOnly(servers []report.ProxyServer) string {
	var all []string
	for _, s := range servers {
		for _, g := range s.PeerOnly {
			if !slices.Contains(all, g) {
				all = append(all, g)
			}
		}
	}
	if len(all) == 0 {
		return "what only a server of another version serves"
	}
	slices.Sort(all)
	return few(all)
}

// reasons are the distinct reasons the servers' proxying could not be told.
func reasons(servers []report.ProxyServer) string {
	var out []string
	for _, s := range servers {
		if !slices.Contains(out, s.Proxying.Evidence) {
			out = append(out, s.Proxying.Evidence)
		}
	}
	return strings.Join(out, "; ")
}

func withoutInert(servers []report.ProxyServer, inert []string) []report.ProxyServer {
	return slices.DeleteFunc(slices.Clone(servers), func(s report.ProxyServer) bool { return slices.Contains(inert, s.Name) })
}

func upper(s string) string {
	if s == "" {
		return "No server to read"
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
