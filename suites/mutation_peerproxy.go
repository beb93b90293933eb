package suites

import "github.com/skewcheck/skewcheck/framework/matrix"

// Fragments several claims of the peer proxy's flaws share.
const (
	// assertRegistered (suites/chaos): a 404 while the faulted server is registered.
	stillRegistered404 = "although the only server serving the GVR is still registered"
	// assertRegistered: no 503 within the fault's bound.
	no503Within = "no 503 within"
	// the chaos and races scenarios: the path never answered 200 again within the bound.
	no200Within = "no 200 within"
	// anonymousDenied is what a peer that sees a user as anonymous answers the user's
	// request with: RBAC's 403 for system:anonymous, the name in the Status's message.
	anonymousDenied = `User \"system:anonymous\" cannot`
)

// peerproxyCatches are the claims of the reference peer proxy's flaws
// (reference/peerproxy/flaw.go), run on three servers through mvp, discovery, chaos and
// races.
var peerproxyCatches = matrix.Catches{
	// The user's identity is left behind: the peer authorizes the proxy, an admin, so the
	// ungranted user and anonymous get in (200, the websocket watch 101), the audit log
	// names the proxy (the local cluster's admin, whose certificate the reference has),
	// and an ungranted user may impersonate. Each value as a flawed run observed it
	// (reference/peerproxy's TestFlawedReferenceFailsIdentityTests checks them too).
	"peerproxy/forward-as-itself": {
		"MVP-040": seesStatus("the unprivileged user must be denied through", 200),
		"MVP-043": sees("user at the peer", "skewcheck-admin"),
		"MVP-044": seesStatus("identity headers sent by the client changed who it is at", 200),
		"MVP-045": seesStatus("a websocket watch as the ungranted user through", 101),
		"MVP-046": seesStatus("anonymous through", 200), // the status compared alone: "<int>: 200"
		"MVP-047": seesStatus("Impersonate headers through", 200),
		"MVP-049": seesStatus("-upgrade watch as the ungranted user through", 200),
	},
	// The admin impersonating the user stays the admin: 200 where the user gets 403.
	"peerproxy/drop-impersonation": {"MVP-042": seesStatus("must be authorized as", 200)},
	// X-Remote-Group: system:masters from the client makes it an admin: 200, not 403.
	"peerproxy/trust-client-identity": {"MVP-044": seesStatus("identity headers sent by the client changed who it is at", 200)},
	// A watch's events come only when the watch ends.
	"peerproxy/buffer-responses": {"MVP-012": textOnly("ended without the peer's ADDED event")},
	// A read one peer answered goes to the other peer that serves it too.
	"peerproxy/hedge-reads": {"MVP-014": textOnly("should reach exactly one other server, once")},
	// Legacy group-version documents are left to each apiserver: what only a peer serves
	// is missing from them.
	"peerproxy/local-legacy-discovery": {"DISC-005": textOnly("GVRs some server serves not listed")},
	// A crashed, frozen or cut-off peer is forgotten after 5 s while its lease stands.
	"peerproxy/forget-unreachable-peer": {
		"RACE-002":  textOnly("200s while the peer was down"),
		"CHAOS-001": textOnly(stillRegistered404), "CHAOS-002": textOnly(stillRegistered404), "CHAOS-004": textOnly(stillRegistered404), "CHAOS-005": textOnly(stillRegistered404),
	},
	// A client whose body trickles in holds up every other client.
	"peerproxy/bodies-in-turn": {"CHAOS-006": textOnly("other clients noticed")},
	// A peer whose clock is behind looks expired at every renewal: its resources get 404.
	"peerproxy/trust-renew-time": {"CHAOS-007": textOnly("must go unnoticed")},
	// A peer whose certificate cannot be verified is taken for one that serves nothing:
	// 404 where 503 is due.
	"peerproxy/untrusted-peer-not-found": {"CHAOS-008": textOnly(stillRegistered404)},
	// A CRD or aggregated API made after start is taken for the peer's that lists it: once
	// the server it was made through is down, its resources get 503 through the others
	// (MVP-051's list, get and create each say "... is down").
	"peerproxy/proxy-custom-resources": {
		"MVP-050": textOnly("was proxied to a peer"), "MVP-051": textOnly("is down"), "MVP-052": textOnly("was proxied to a peer"),
		"MVP-053": textOnly("was proxied to a peer"), "DISC-006": textOnly("an extension listed as a peer's"), "DISC-007": textOnly("an extension listed as a peer's"),
	},
	// A request a peer already forwarded is forwarded again, and documents asked as a
	// peer asks them are answered for the control plane.
	"peerproxy/ignore-marker": {
		"MVP-030": seesStatus("forwarded a request already marked as proxied", 200), "MVP-031": textOnly("asked as already proxied"),
		"DISC-002": textOnly("asked with the request marked proxied"), "DISC-003": textOnly("(asked as already proxied) lists"),
	},
	// A crashed peer's resources get 404, not 503: while it is down, and while it restarts
	// with the same identity.
	"peerproxy/unavailable-as-not-found": {"MVP-022": seesStatus("should answer 503 for", 404), "RACE-003": textOnly("404s while the crashed peer's lease stood")},
	// The nopeer view lists the peers' resources too.
	"peerproxy/merge-nopeer": {"DISC-002": textOnly("nopeer /apis lists")},
	// Users reach the peers as anonymous: what RBAC grants them is denied there, the
	// admin's reads and writes included.
	"peerproxy/forward-as-anonymous": {
		"MVP-041": sees("get as the allowed user through", anonymousDenied), "MVP-010": sees("which does not serve it", anonymousDenied),
		"MVP-011": sees("create ", anonymousDenied), "MVP-013": sees("/status through", anonymousDenied),
	},
	// A rejected token is served as anonymous (403) instead of answered 401.
	"peerproxy/rejected-token-anonymous": {"MVP-048": seesStatus("must be answered as", 403)},
	// What the entry's own apiserver serves goes to a peer: the entry never audits it.
	"peerproxy/peers-first": {"MVP-001": sees("should have audited request", "len:0")},
	// A group-version nobody serves gets a JSON Status, not the mux's plain text.
	"peerproxy/not-found-status": {"MVP-020": sees("a group-version no server serves", "HTTP 404 application/json")},
	// An unknown resource of a served group-version gets plain text, not a Status.
	"peerproxy/not-found-text": {"MVP-021": sees("an unknown resource in apps/v1", "HTTP 404 text/plain")},
	// No bound on reaching a peer: a silent peer holds requests until the client gives up.
	"peerproxy/no-peer-timeout": {"CHAOS-002": textOnly(no503Within), "CHAOS-004": textOnly(no503Within), "CHAOS-005": textOnly(no503Within)},
	// A peer dropped once (its lease gone: a graceful stop, a deletion) is taken back only
	// 120 s after it registers again: what only it serves is 404 past the converge bound.
	"peerproxy/slow-relearn-peer": {"RACE-001": textOnly(no200Within), "RACE-004": textOnly(no200Within), "CHAOS-003": textOnly(no200Within)},
	// One unreadable peer empties the peer set: every peer's resources get 404.
	"peerproxy/all-or-nothing-sync": {
		"CHAOS-001": textOnly(stillRegistered404), "CHAOS-002": textOnly(stillRegistered404), "CHAOS-004": textOnly(stillRegistered404), "CHAOS-005": textOnly(stillRegistered404),
		"RACE-005": textOnly("answers other than 200"),
	},
	// A peer that failed is left alone 120 s after its last failure, its failed probes
	// included: a peer that was down through a held fault stays 503 past the converge
	// bound once it is back.
	"peerproxy/circuit-breaker": {
		"CHAOS-001": textOnly(no200Within), "CHAOS-002": textOnly(no200Within), "CHAOS-004": textOnly(no200Within), "CHAOS-005": textOnly(no200Within), "CHAOS-008": textOnly(no200Within),
	},
	// Merged /apis is the local apiserver's own view.
	"peerproxy/unmerged-discovery": {"DISC-001": textOnly("GVRs some server serves that")},
	// A peer that left stays in merged /apis 100 s.
	"peerproxy/linger-in-discovery": {"DISC-004": textOnly("still lists what only it served")},
	// A peer's discovery is read again only after a read of it failed: a CRD and an
	// aggregated API it listed when read come back in merged /apis once their grace ends.
	"peerproxy/stale-peer-discovery": {"SOAK-001": textOnly("lists group-versions no server's nopeer view lists")},
}
