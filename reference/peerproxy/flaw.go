package peerproxy

import (
	"bytes"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/skewcheck/skewcheck/reference/internal/authn"
)

// Flaw makes the reference wrong in one deliberate way, so that a test can show the
// identity tests catch exactly that (as the reference-ignoring-ipmode dataplane does for
// ipMode). It exists for that evidence only: a real proxy runs with NoFlaw.
type Flaw string

const (
	NoFlaw Flaw = ""
	// FlawForwardAsItself forwards every request it passes to a peer with the proxy's own
	// control identity, the user's identity left behind: the commonest way a proxy
	// escalates its clients. Like every identity flaw, it leaves what is served locally
	// right (ServeHTTP), so only a test's proxied assertion can catch it.
	FlawForwardAsItself Flaw = "forward-as-itself"
	// FlawDropImpersonation removes the Impersonate-* headers before forwarding to a peer,
	// so an impersonating client acts as itself there.
	FlawDropImpersonation Flaw = "drop-impersonation"
	// FlawTrustClientIdentity takes the X-Remote-* headers a client sends as who it is, on
	// what it forwards to a peer.
	FlawTrustClientIdentity Flaw = "trust-client-identity"
	// FlawBufferResponses reads every answer whole before passing it on, so a watch's
	// events arrive only when the watch ends.
	FlawBufferResponses Flaw = "buffer-responses"
	// FlawHedgeReads also sends every read a peer answered to the next peer that serves it,
	// the answer thrown away: a "hedged request" that doubles the peers' load and audit.
	FlawHedgeReads Flaw = "hedge-reads"
	// FlawLocalLegacyDiscovery answers legacy /apis and /apis/<group>/<version> from the
	// local apiserver alone, as upstream does: a legacy discovery client misses, or fails
	// on, what only a peer serves.
	FlawLocalLegacyDiscovery Flaw = "local-legacy-discovery"
	// FlawForgetUnreachablePeer drops a peer whose discovery it has not read for
	// forgetAfter, though the peer's lease is still valid: a health check that evicts
	// peers. A crashed or frozen peer's resources then get 404 (no such thing) instead of
	// 503 (retry), the spurious 404 the proxy exists to prevent.
	FlawForgetUnreachablePeer Flaw = "forget-unreachable-peer"
	// FlawBodiesInTurn reads each request's body whole before forwarding it (so that it
	// could be sent again), one request at a time under a single lock: a client whose body
	// trickles in (a slow-loris upload) holds up every other client, reads included.
	FlawBodiesInTurn Flaw = "bodies-in-turn"
	// FlawTrustRenewTime judges a peer's lease by its renewTime against this proxy's
	// clock, as if every server's clock were right: a peer whose clock is over an hour
	// behind looks expired at every renewal and its resources get 404 while it serves
	// them; one whose clock is ahead looks alive long after it crashed (renewals.go).
	FlawTrustRenewTime Flaw = "trust-renew-time"
	// FlawUntrustedPeerNotFound answers 404 when the peers that serve a resource present a
	// certificate it cannot verify (expired, or from another CA), as if a peer it cannot
	// trust served nothing: the resource is still served, by a registered peer, so the
	// honest answer is 503. The chaos table's expired-serving row catches it.
	FlawUntrustedPeerNotFound Flaw = "untrusted-peer-not-found"
	// FlawProxyCustomResources routes the resources of CRDs (and aggregated APIs) like
	// built-in ones: it does not leave their group-versions out of its peers' views
	// (extensions.go), and reads its own apiserver's view once, at start, as upstream keeps
	// its local discovery cache for 30 minutes (k8s.io/apiserver v0.36.3
	// pkg/util/peerproxy/peerproxy.go:50). A CRD made after start is then taken for the
	// peers' that list it: its resources are forwarded to them (503 when they are down,
	// although the local apiserver serves them), and merged discovery lists them as theirs.
	FlawProxyCustomResources Flaw = "proxy-custom-resources"
	// FlawIgnoreMarker ignores x-kubernetes-peer-proxied: a request a peer already
	// forwarded is forwarded again, and a group-version document asked as a peer asks is
	// answered for the control plane. MVP-030 and MVP-031 must catch it.
	FlawIgnoreMarker Flaw = "ignore-marker"
	// FlawUnavailableAsNotFound answers 404 when no peer that serves a resource can be
	// reached (a crashed peer), as if nothing served it: the spurious 404 the proxy exists
	// to prevent. MVP-022 and RACE-003 (a peer restarting with the same identity) must
	// catch it.
	FlawUnavailableAsNotFound Flaw = "unavailable-as-not-found"
	// FlawMergeNopeer merges the peers into /apis asked with profile=nopeer too, which must
	// be the local apiserver's own view: a peer reading it would take its peers' resources
	// for the entry's. DISC-002 must catch it.
	FlawMergeNopeer Flaw = "merge-nopeer"
	// FlawForwardAsAnonymous forwards what goes to a peer without the user's identity and
	// without credentials: the peer sees system:anonymous, so a user RBAC granted read is
	// denied there (requests its own apiserver serves keep the user). MVP-041 must catch it.
	FlawForwardAsAnonymous Flaw = "forward-as-anonymous"
	// FlawRejectedTokenAnonymous serves a request for a peer whose bearer token the
	// apiservers reject as anonymous instead of answering 401, which keeps client-go's
	// credential plugins from refreshing. MVP-048 must catch it.
	FlawRejectedTokenAnonymous Flaw = "rejected-token-anonymous"
	// FlawPeersFirst sends a request for a resource a live peer serves to that peer even
	// when its own apiserver serves it too: routing that asks the peers before the local
	// apiserver (or spreads the load over every server that serves it). Upstream serves
	// locally whatever its apiserver serves. MVP-001 must catch it.
	FlawPeersFirst Flaw = "peers-first"
	// FlawNotFoundStatus answers a request for a resource no live server serves with a 404
	// Status of its own instead of its apiserver's answer: right for an unknown resource
	// of a served group-version, but for a group-version no server serves an apiserver's
	// not-found handler answers `404 page not found` (plain text up to 1.37, a Status of
	// those words from 1.38). MVP-020 must catch it.
	FlawNotFoundStatus Flaw = "not-found-status"
	// FlawNotFoundText answers a request for a resource no live server serves with the
	// mux's plain-text `404 page not found` instead of its apiserver's answer: right for a
	// group-version no server serves, but an unknown resource of a served group-version is
	// a 404 JSON Status at an apiserver. MVP-021 must catch it.
	FlawNotFoundText Flaw = "not-found-text"
	// FlawNoPeerTimeout forwards with no bound of its own (no dial, handshake or HTTP/2
	// ping timeout), to a peer and to its own apiserver alike (one set of transports
	// serves both): a frozen or black-holed peer holds each request until the client
	// gives up, where a bounded proxy answers 503 within the unavailable bound.
	// CHAOS-002, CHAOS-004 and CHAOS-005 must catch it.
	FlawNoPeerTimeout Flaw = "no-peer-timeout"
	// FlawSlowRelearnPeer takes a peer it dropped back only relearnAfter after it
	// registers again: a negative cache of departed peers, counted from the return. Once
	// a peer's lease is gone (a graceful stop deletes it), the same peer registering again
	// stays unused past the converge bound, whenever it comes back, and what only it
	// serves gets 404. RACE-001, RACE-004 and CHAOS-003 must catch it, each through the
	// stop or the deletion it makes itself. (A proxy that never takes a peer back would be
	// caught the same way, but would leave every later test of a run waiting on a cluster
	// that never converges.)
	FlawSlowRelearnPeer Flaw = "slow-relearn-peer"
	// FlawAllOrNothingSync keeps no peer from a sync that could not read one of them: a
	// single unreachable registration (a lease naming an address where nothing listens,
	// or a crashed peer) makes every peer's resources 404. RACE-005 and the held faults of
	// CHAOS-001, -002, -004 and -005 must catch it. (Not RACE-003: a peer restarting at once
	// may be back before a sync fails to read it, 1.6 s in a focused run, so its 404 is
	// timing, not the flaw's.)
	FlawAllOrNothingSync Flaw = "all-or-nothing-sync"
	// FlawCircuitBreaker stops trying a peer that failed a request: for breakerOpen after
	// its last failure it answers 503 for the peer without a try, probing the peer's
	// /version on the side every probeEvery; a failed probe opens the breaker again, and
	// one that succeeds is disregarded (the breaker waits out its time). A peer down for a
	// while stays unavailable past the converge bound after it is back: CHAOS-001,
	// CHAOS-002, CHAOS-004, CHAOS-005 and CHAOS-008 must catch it, each through the failed
	// probes of its own fault.
	FlawCircuitBreaker Flaw = "circuit-breaker"
	// FlawUnmergedDiscovery routes to the peers but leaves them out of merged /apis: it
	// answers the local apiserver's own view, as a proxy written before peer-aggregated
	// discovery does, so clients never learn of what only a peer serves. DISC-001 must
	// catch it.
	FlawUnmergedDiscovery Flaw = "unmerged-discovery"
	// FlawLingerInDiscovery keeps a peer that left (its lease gone, as at a graceful
	// stop) in merged /apis for lingerFor, while routing drops it at once: a discovery
	// cache with a lifetime of its own, so clients are told of resources nobody serves.
	// DISC-004 must catch it.
	FlawLingerInDiscovery Flaw = "linger-in-discovery"
	// FlawStalePeerDiscovery keeps the first discovery it reads of a peer, and reads it
	// again only after a read failed (the peer was down): upstream's raw peer discovery
	// cache, fetched only when a peer's identity lease changes. A peer read while a CRD
	// stood keeps listing its group-version after the CRD is deleted, and once the
	// extension's grace (extensionGrace) ends, merged /apis lists it again although no
	// server serves it. SOAK-001 must catch it.
	FlawStalePeerDiscovery Flaw = "stale-peer-discovery"
)

// flaws is every flaw, in the order they were added: the registry the CLI's
// --reference-flaw and `skewcheck mutation` read, so a flaw added here is selectable and
// joins the mutation matrix with no other edit (TestEveryFlawIsRegistered checks that
// each constant above is listed).
var flaws = []Flaw{FlawForwardAsItself, FlawDropImpersonation, FlawTrustClientIdentity, FlawBufferResponses, FlawHedgeReads, FlawLocalLegacyDiscovery, FlawForgetUnreachablePeer, FlawBodiesInTurn, FlawTrustRenewTime, FlawUntrustedPeerNotFound, FlawProxyCustomResources,
	FlawIgnoreMarker, FlawUnavailableAsNotFound, FlawMergeNopeer, FlawForwardAsAnonymous, FlawRejectedTokenAnonymous,
	FlawPeersFirst, FlawNotFoundStatus, FlawNotFoundText, FlawNoPeerTimeout, FlawSlowRelearnPeer, FlawAllOrNothingSync,
	FlawCircuitBreaker, FlawUnmergedDiscovery, FlawLingerInDiscovery, FlawStalePeerDiscovery}

// Flaws lists every deliberate flaw, NoFlaw aside.
func Flaws() []Flaw { return append([]Flaw(nil), flaws...) }

// ParseFlaw reads a flaw's name (see Flaws); "" is NoFlaw.
func ParseFlaw(name string) (Flaw, error) {
	if name == "" {
		return NoFlaw, nil
	}
	var names []string
	for _, f := range flaws {
		if string(f) == name {
			return f, nil
		}
		names = append(names, string(f))
	}
	return NoFlaw, fmt.Errorf("unknown peer proxy flaw %q: the flaws are %s", name, strings.Join(names, ", "))
}

// hedges says whether a request of this method is also sent to a second peer.
func (f Flaw) hedges(method string) bool { return f == FlawHedgeReads && idempotent(method) }

// localDocuments says whether legacy discovery documents are left to the local apiserver.
func (f Flaw) localDocuments() bool { return f == FlawLocalLegacyDiscovery }

// forgetAfter is how long FlawForgetUnreachablePeer keeps a peer it cannot read: longer
// than MVP-022 watches a crashed peer (its 503s come at once), so the flaw is left to
// what holds a crash longer (RACE-002, CHAOS-001 and 002), and a sync that fails once
// does not drop a peer by itself.
const forgetAfter = 5 * time.Second

// forgets says whether a sync that could not read a peer, last read at fetched, drops it
// although its lease is live (only FlawForgetUnreachablePeer does).
func (f Flaw) forgets(fetched, now time.Time) bool {
	return f == FlawForgetUnreachablePeer && now.Sub(fetched) > forgetAfter
}

// notFoundFor says whether a peer that could not be reached because of err is answered
// 404: FlawUntrustedPeerNotFound does for a certificate it cannot verify,
// FlawUnavailableAsNotFound for any failure.
func (f Flaw) notFoundFor(err error) bool {
	var verify *tls.CertificateVerificationError
	return f == FlawUnavailableAsNotFound || f == FlawUntrustedPeerNotFound && errors.As(err, &verify)
}

// peerTimeout is the bound on reaching a peer that forwarding uses: d, or none (0) with
// FlawNoPeerTimeout.
func (f Flaw) peerTimeout(d time.Duration) time.Duration {
	if f == FlawNoPeerTimeout {
		return 0
	}
	return d
}

// keepsNone says whether a sync that could not read a peer keeps no peer at all (only
// FlawAllOrNothingSync).
func (f Flaw) keepsNone(unread bool) bool { return f == FlawAllOrNothingSync && unread }

// breaks says whether failed peers are left alone for a while (only FlawCircuitBreaker).
func (f Flaw) breaks() bool { return f == FlawCircuitBreaker }

// mergesPeers says whether merged /apis lists the peers' resources (all but
// FlawUnmergedDiscovery).
func (f Flaw) mergesPeers() bool { return f != FlawUnmergedDiscovery }

// keptReads is what FlawStalePeerDiscovery knows of each peer after a sync that read the
// peers of leases (fetched[i] and errs[i] are the read of leases[i]): the view kept
// from an earlier sync while the peer's reads keep succeeding, else this sync's read. A
// failed read forgets the peer, so the next read that succeeds is kept. fetched is updated
// in place to what the sync uses. Every other flaw keeps nothing (nil): each read is used.
func (f Flaw) keptReads(kept map[string]view, leases []peerLease, fetched []view, errs []error) map[string]view {
	if f != FlawStalePeerDiscovery {
		return nil
	}
	out := map[string]view{}
	for i, l := range leases {
		if errs[i] != nil {
			continue
		}
		if v, ok := kept[l.name]; ok {
			fetched[i] = v
		}
		out[l.name] = fetched[i]
	}
	return out
}

// lingerFor is how long FlawLingerInDiscovery lists a departed peer: past the suites'
// discovery-leave bound, short enough that the peer's restart (which brings it back in
// anyway) and the next test meet a true view.
const lingerFor = 100 * time.Second

// lingers says whether a peer that left at departed is still listed in merged /apis at
// now (only FlawLingerInDiscovery).
func (f Flaw) lingers(departed, now time.Time) bool {
	return f == FlawLingerInDiscovery && now.Sub(departed) < lingerFor
}

// relearnAfter is how long FlawSlowRelearnPeer keeps out a dropped peer after it is back:
// past the suites' converge bound (90 s) with room for a restart's seconds, short enough
// that the next test meets a converged cluster again.
const relearnAfter = 120 * time.Second

// relearnsAtOnce says whether a peer dropped once is taken back as soon as it registers
// again (all but FlawSlowRelearnPeer).
func (f Flaw) relearnsAtOnce() bool { return f != FlawSlowRelearnPeer }

// ignoresMarker says whether x-kubernetes-peer-proxied is disregarded.
func (f Flaw) ignoresMarker() bool { return f == FlawIgnoreMarker }

// peerUser is who a request forwarded to a peer goes as: u, or nobody with
// FlawForwardAsAnonymous.
func (f Flaw) peerUser(u *authn.User) *authn.User {
	if f == FlawForwardAsAnonymous {
		return nil
	}
	return u
}

// servesRejectedTokens says whether a rejected bearer token is served as anonymous.
func (f Flaw) servesRejectedTokens() bool { return f == FlawRejectedTokenAnonymous }

// peersFirst says whether a resource the local apiserver serves goes to the peers that
// serve it too.
func (f Flaw) peersFirst() bool { return f == FlawPeersFirst }

// answersNotFound says whether a request for a resource no live server serves gets the
// flaw's own 404 (writeNotFound); the reference leaves that answer to its apiserver, whose
// shape tells an unknown group-version (plain text) from an unknown resource (a Status).
func (f Flaw) answersNotFound() bool { return f == FlawNotFoundStatus || f == FlawNotFoundText }

// writeNotFound is that 404: the mux's plain text for FlawNotFoundText, else a Status.
func (f Flaw) writeNotFound(w http.ResponseWriter, r *http.Request) {
	if f == FlawNotFoundText {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	w.Write(statusBody(http.StatusNotFound, "NotFound", "no server serves "+r.URL.Path))
}

// mergesNopeer says whether /apis with profile=nopeer is merged all the same.
func (f Flaw) mergesNopeer() bool { return f == FlawMergeNopeer }

// proxiesExtensions says whether CRDs' and aggregated APIs' group-versions are routed
// and listed as the peers' that serve them, not left out of the peers' views.
func (f Flaw) proxiesExtensions() bool { return f == FlawProxyCustomResources }

// keepsLocalView says whether the local apiserver's view is read once only.
func (f Flaw) keepsLocalView() bool { return f == FlawProxyCustomResources }

// buffer reads resp's body whole when the flaw says so.
func (f Flaw) buffer(resp *http.Response) error {
	if f != FlawBufferResponses {
		return nil
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	return err
}

// readInTurn reads r's body whole under turn when the flaw says so; an error is the
// client's body failing to arrive.
func (f Flaw) readInTurn(r *http.Request, turn *sync.Mutex) error {
	if f != FlawBodiesInTurn {
		return nil
	}
	turn.Lock()
	defer turn.Unlock()
	b, err := io.ReadAll(r.Body)
	r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(b))
	return err
}

// apply bends a request the way the flaw says, after authentication found u; it returns
// the user to forward as (nil forwards as nobody, with no credentials, or, for
// FlawForwardAsItself, as the proxy: see transportFor).
func (f Flaw) apply(r *http.Request, u *authn.User) *authn.User {
	switch f {
	case FlawForwardAsItself:
		return nil
	case FlawDropImpersonation:
		for k := range r.Header {
			if strings.HasPrefix(http.CanonicalHeaderKey(k), "Impersonate-") {
				r.Header.Del(k)
			}
		}
	case FlawTrustClientIdentity:
		if name := r.Header.Get(frontProxyHeaders.User); name != "" {
			return &authn.User{Name: name, Groups: r.Header.Values(frontProxyHeaders.Group)}
		}
	}
	return u
}

// departure is a peer that left, as FlawLingerInDiscovery remembers it.
type departure struct {
	view
	at time.Time
}

// stillListed is the departed peers FlawLingerInDiscovery lists after a sync that went
// from old to peers at now: those that left now join, those back or past lingerFor go.
// Without the flaw it is always empty.
func (f Flaw) stillListed(departed map[string]departure, old, peers map[string]view, now time.Time) map[string]departure {
	if f != FlawLingerInDiscovery {
		return nil
	}
	out := map[string]departure{}
	for name, d := range departed {
		if _, back := peers[name]; !back && f.lingers(d.at, now) {
			out[name] = d
		}
	}
	for name, v := range old {
		if _, kept := peers[name]; !kept {
			out[name] = departure{view: v, at: now}
		}
	}
	return out
}
