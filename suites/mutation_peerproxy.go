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
	// In the family's cluster (clusters.HighlyAvailable: apiserver-1 the older
	// without batch/v1, apiserver-2 and -3 the newer without autoscaling/v2), whatever the
	// versions: a resource only apiserver-1's peers serve, and one only apiserver-1 serves,
	// as gomega prints them in a list of GVR keys.
	peersOnlyGVR = `"batch/v1/jobs"`
	firstOnlyGVR = `"autoscaling/v2/horizontalpodautoscalers"`
)

// absentFor404s is assertRegistered's count of 404s told while the faulted server was
// registered, as a flaw that takes it for absent for the rest of the fault makes it: tens
// or hundreds (a read every 200 ms), where a sync that dropped it for a moment would tell
// a few.
var absentFor404s = seesCount(stillRegistered404, 10)

// heldWithout503 is what assertRegistered's 503 observes when none came (-1) and reads got
// no answer at all (status 0, the first of the statuses in order): requests held, where a
// proxy answering some other status would show that status first. lastAnswer404 and
// lastAnswer503 are what the path still answered when the recover bound after healing ran
// out (assertRecovered's, and the races' no 200 within it).
var (
	heldWithout503 = sees(no503Within, `{Seconds: -1, Answers: "map[0:`)
	lastAnswer404  = sees(no200Within, "(the last answer: 404)")
	lastAnswer503  = sees(no200Within, "(the last answer: 503)")
)

// A claim on an assertion of a yes or no ("yes or no" at the claim) stays text only: it
// observes true where false is due, which its text already says, and nothing but the flaw
// fails it (a failed read fails before it, at an assertion of its own); the GVR its
// description names is the first of a list that depends on the versions.

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
	// (client-go's legacy discovery through apiserver-1 gets 404 for batch/v1's document,
	// which only its peers serve.)
	"peerproxy/local-legacy-discovery": {"DISC-005": sees("client-go's legacy discovery through", "batch/v1: the server could not find the requested resource")},
	// A crashed, frozen or cut-off peer is forgotten after 5 s while its lease stands.
	// The 404s counted: from 5 s into the fault to its end, 20 s past the first 503 with
	// a read every 200 ms (48 to 88 in a flawed run, seed 13, 2026-12-03); the race's
	// violation counts them beside no 200 (105 404s).
	"peerproxy/forget-unreachable-peer": {
		"RACE-002":  sees("200s while the peer was down", "404s and 0 200s"),
		"CHAOS-001": absentFor404s, "CHAOS-002": absentFor404s, "CHAOS-004": absentFor404s, "CHAOS-005": absentFor404s,
	},
	// A client whose body trickles in holds up every other client.
	// The load's requests wait for the fault's end (9.4 s), not failed: the chaos verdict's
	// stall (seed 13, 2026-12-03).
	"peerproxy/bodies-in-turn": {"CHAOS-006": sees("other clients noticed", "the front let one client hold up others")},
	// A peer whose clock is behind looks expired at every renewal: its resources get 404.
	// The chaos verdict's 404s (26 spurious 404s, seed 13, 2026-12-03), not an error or a stall.
	"peerproxy/trust-renew-time": {"CHAOS-007": sees("must go unnoticed", "spurious 404s while the server was still registered")},
	// A peer whose certificate cannot be verified is taken for one that serves nothing:
	// 404 where 503 is due.
	"peerproxy/untrusted-peer-not-found": {"CHAOS-008": absentFor404s}, // 273 404s, nothing else (seed 13, 2026-12-03)
	// A CRD or aggregated API made after start is taken for the peer's that lists it: once
	// the server it was made through is down, its resources get 503 through the others
	// (MVP-051's list, get and create each say "... is down").
	"peerproxy/proxy-custom-resources": {
		"MVP-050": textOnly("was proxied to a peer"), "MVP-051": textOnly("is down"), "MVP-052": textOnly("was proxied to a peer"),
		"MVP-053": textOnly("was proxied to a peer"),
		// yes or no: merged /apis lists the extension while the nopeer view does not
		"DISC-006": textOnly("an extension listed as a peer's"), "DISC-007": textOnly("an extension listed as a peer's"),
	},
	// A request a peer already forwarded is forwarded again, and documents asked as a
	// peer asks them are answered for the control plane.
	"peerproxy/ignore-marker": {
		"MVP-030": seesStatus("forwarded a request already marked as proxied", 200), "MVP-031": textOnly("asked as already proxied"),
		"DISC-002": seesStatus("asked with the request marked proxied", 200), // the status compared alone: "<int>: 200"
		"DISC-003": textOnly("(asked as already proxied) lists"),             // yes or no: the entry's own legacy discovery lists a peer's GVR
	},
	// A crashed peer's resources get 404, not 503: while it is down, and while it restarts
	// with the same identity.
	// RACE-003's violations: no 503 at all, 404s instead (map[200:1 404:23] before the
	// first 200, seed 13, 2026-12-03).
	"peerproxy/unavailable-as-not-found": {"MVP-022": seesStatus("should answer 503 for", 404), "RACE-003": sees("404s while the crashed peer's lease stood", "no 503 while the peer was down")},
	// The nopeer view lists the peers' resources too.
	"peerproxy/merge-nopeer": {"DISC-002": textOnly("nopeer /apis lists")}, // yes or no: the nopeer view lists a GVR its server does not serve
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
	// No 503 at all, and reads without an answer: the one read of the load was held until
	// the client gave up (answers by status map[0:1], seed 13, 2026-12-03).
	"peerproxy/no-peer-timeout": {"CHAOS-002": heldWithout503, "CHAOS-004": heldWithout503, "CHAOS-005": heldWithout503},
	// A peer dropped once (its lease gone: a graceful stop, a deletion) is taken back only
	// 120 s after it registers again: what only it serves is 404 past the converge bound.
	"peerproxy/slow-relearn-peer": {"RACE-001": lastAnswer404, "RACE-004": lastAnswer404, "CHAOS-003": lastAnswer404},
	// One unreadable peer empties the peer set: every peer's resources get 404.
	// (49 to 87 404s in the held faults; RACE-005's answers by status map[200:4 404:12]:
	// 404 among them, a status as a key of Go's print of the counts, seed 13, 2026-12-03.)
	"peerproxy/all-or-nothing-sync": {
		"CHAOS-001": absentFor404s, "CHAOS-002": absentFor404s, "CHAOS-004": absentFor404s, "CHAOS-005": absentFor404s,
		"RACE-005": sees("answers other than 200", "404:"),
	},
	// A peer that failed is left alone 120 s after its last failure, its failed probes
	// included: a peer that was down through a held fault stays 503 past the converge
	// bound once it is back.
	"peerproxy/circuit-breaker": {
		"CHAOS-001": lastAnswer503, "CHAOS-002": lastAnswer503, "CHAOS-004": lastAnswer503, "CHAOS-005": lastAnswer503, "CHAOS-008": lastAnswer503,
	},
	// Merged /apis is the local apiserver's own view.
	"peerproxy/unmerged-discovery": {"DISC-001": sees("GVRs some server serves that", peersOnlyGVR)}, // the GVRs missing from apiserver-1's merged view: what only its peers serve
	// A peer that left stays in merged /apis 100 s.
	"peerproxy/linger-in-discovery": {"DISC-004": sees("still lists what only it served", firstOnlyGVR)}, // apiserver-1 stopped, its resource still listed
	// A peer's discovery is read again only after a read of it failed: a CRD and an
	// aggregated API it listed when read come back in merged /apis once their grace ends.
	"peerproxy/stale-peer-discovery": {"SOAK-001": textOnly("lists group-versions no server's nopeer view lists")},
}
