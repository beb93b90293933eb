package upgrade

import "strings"

// Where in a window an allowance holds: through any server; through the server that is
// out (restarting, or faulted); or, for a read of a GVR some version does not serve,
// through another server, which may have proxied it to the one that is out and relays
// its answer ("proxied: the peer's status and body", at most one hop).
const (
	anyServer = iota
	itsServer
	relayedRead
)

// allowance is a kind of failed answer an upgrade gives inside a window, where it gives it,
// and the name reports give it.
type allowance struct {
	kinds []string // each a kind, or the start of kinds ("no answer" covers "no answer: reset")
	where []int
	only  string // the one kind of request it holds for ("write"); "" for any
	name  string
}

// allowances are exactly the failed answers a rolling restart of kube-apiservers gives, read
// from upstream (k8s.io/kubernetes v1.36.3, k8s.io/apiserver v0.36.3). Anything else inside
// a window, and everything outside the windows, is a violation. Not allowed, and why:
//   - 401: the load authenticates by client certificate (verified against a CA loaded before
//     the server listens) or by a ServiceAccount token, whose getter falls back from an
//     unsynced lister to a live read (pkg/controller/serviceaccount/tokengetter.go): no
//     phase of a restart turns a valid credential away.
//   - 500 to a read, or through a server that is not out: a graceful stop drains requests
//     before storage goes, and reads carry no admission (see the 500 allowance below).
//   - 502: the peer proxy answers its own failures 503 through its responder
//     (util/peerproxy), never the reverse proxy's 502.
//   - 504: the request timeout filter's, after 60 s; no phase of a restart holds a request
//     that long (a frozen peer gives 503 after 10 s, or 45 s on a warm connection).
//   - 429 from priority and fairness: until its configuration informer syncs, a starting
//     server has only the mandatory exempt and catch-all levels (util/flowcontrol
//     apf_controller.go), and catch-all holds all its concurrency; the load's few requests
//     never fill it.
//   - no answer, or a watch cut short, through a server that is not out: its process runs.
var allowances = []allowance{
	// The mixed version proxy's window, as it always was: a graceful stop deletes the
	// identity lease (1.35+), so peers answer 404 for what only that server served until it
	// is back and found again; while it is down with its lease standing they answer 503 for
	// what they proxy to it; and a server just started answers 404 until its peer discovery
	// converged (measured: 404 right after /readyz, 200 a few seconds later).
	{kinds: []string{"404", "503"}, where: []int{anyServer}, name: "404 and 503 in a window (the mixed version proxy)"},
	// Its own clients while it is out: a graceful stop closes the listener (connection
	// refused), drains, then closes connections (GOAWAY, EOF, reset, and watch streams cut
	// short); a crash resets them; a frozen server times them out.
	{kinds: []string{NoAnswer, EndedEarly}, where: []int{itsServer}, name: "its server out"},
	// A starting server's watch cache answers lists and watches 429 "storage is
	// (re)initializing" until it has synced, and a stopping one 429 "apiserver cacher is
	// stopped" (KEP-4568, ResilientWatchCacheInitialization, on since 1.31:
	// pkg/storage/cacher/cacher.go); with --shutdown-send-retry-after a stopping server
	// answers every request 429 (pkg/server/filters/with_retry_after.go). A peer relays it.
	{kinds: []string{"429"}, where: []int{itsServer, relayedRead}, name: "429 from a server starting or stopping"},
	// A starting server authorizes with RBAC listers that are empty until their informers
	// sync (pkg/kubeapiserver/authorizer/config.go: rbac.New over listers, nothing waits),
	// so it forbids whoever RBAC grants (kubeadm's admin since 1.29, a ServiceAccount);
	// and admission answers 403 "not yet ready to handle request" when its informers have
	// not synced within 10 s (pkg/admission/handler.go WaitForReady; NamespaceLifecycle, on
	// every create). Authorization runs on the peer too, so a proxied read may carry it.
	{kinds: []string{"403"}, where: []int{itsServer, relayedRead}, name: "403 from a server starting"},
	// Admission on a starting server reads through its own loopback client where its
	// informers have not synced: ResourceQuota lists the namespace's quotas live
	// (plugin/resourcequota/resource_access.go GetQuotas, while its lister is unsynced) and
	// NamespaceLifecycle reads a namespace its cache lacks; a failed read answers the
	// create 500, as does a quota evaluation that takes over 10 s ("resource quota
	// evaluation timed out", controller.go). Reads carry no admission.
	{kinds: []string{"500"}, where: []int{itsServer}, only: "write", name: "500 from admission on a server starting"},
	// A restarted server's watch cache begins after the resourceVersion a watch resumes
	// from: 410 Gone (or an ERROR event), and the client relists.
	{kinds: []string{"410"}, where: []int{itsServer}, name: "410 from a restarted watch cache"},
}

// allowed names the allowance that covers an answer of that kind to e inside ws, "" when
// none does.
func (r *Result) allowed(e Event, kind string, ws []window) string {
	for _, a := range allowances {
		if !a.covers(kind) || a.only != "" && a.only != e.Kind {
			continue
		}
		for _, w := range ws {
			for _, where := range a.where {
				if r.holds(where, e, w) {
					return a.name
				}
			}
		}
	}
	return ""
}

func (a allowance) covers(kind string) bool {
	for _, k := range a.kinds {
		if strings.HasPrefix(kind, k) {
			return true
		}
	}
	return false
}

// holds says whether e was answered where in w.
func (r *Result) holds(where int, e Event, w window) bool {
	switch where {
	case itsServer:
		return e.Server == w.server
	case relayedRead:
		_, skewed := r.ServedBy[e.GVR]
		return e.Kind == "read" && skewed && e.Server != w.server
	}
	return true
}
