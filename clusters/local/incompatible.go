package local

import (
	"os"
	"strings"
)

// KnownDefectPrefix begins every line in which skewcheck names a known upstream defect as
// the cause of an error.
const KnownDefectPrefix = "known upstream defect: "

// KnownDefect is an upstream defect skewcheck names, on a line of its own (Line), as the
// cause of an error: a nightly run that ends on it is not a failure of the night, so a line
// counts only when it is exactly one of these, for a version that has it (NamedDefect).
type KnownDefect struct {
	Since, Until int // the kube-apiserver minor versions that have it: 33, 34
	Text         string
}

// Line is the whole line of output that names the defect.
func (d KnownDefect) Line() string { return KnownDefectPrefix + d.Text }

// KnownDefects are every defect skewcheck names.
var KnownDefects = []KnownDefect{givesUpOnPeer, nilPointerOnSync}

// NamedDefect is the known defect that line names, when line is exactly that defect's Line
// and one of versions ("v1.34.4") has it.
func NamedDefect(line string, versions ...string) (KnownDefect, bool) {
	for _, d := range KnownDefects {
		if line != d.Line() {
			continue
		}
		for _, v := range versions {
			if m := minor(v); m >= d.Since && m <= d.Until {
				return d, true
			}
		}
	}
	return KnownDefect{}, false
}

var givesUpOnPeer = KnownDefect{Since: 33, Until: 34, Text: "kube-apiserver 1.33 and 1.34 give up on a peer whose endpoint lease is not yet written " +
	"after 5 retries in about 160 ms (\"missing port in address\" in its log) and ignore it until an identity lease changes holder; " +
	"1.35 retries 20 times (k8s.io/apiserver pkg/util/peerproxy/peer_discovery.go maxRetries). skewcheck adds and deletes an identity lease once at bring-up so they look again; " +
	"a server that restarts later is missed again until some identity lease is added or deleted"}

var nilPointerOnSync = KnownDefect{Since: 33, Until: 34, Text: "kube-apiserver 1.33 and 1.34 crash (nil pointer) when a registered peer cannot be reached while they sync their peer discovery cache " +
	"(k8s.io/apiserver pkg/util/peerproxy/peer_discovery.go fetchNewDiscoveryFor tests err instead of discoveryErr; fixed in 1.35): " +
	"start them while every registered peer is up, or use 1.35 or newer"}

// knownIncompatibility names an upstream defect that keeps servers of these versions from
// converging, so a convergence timeout says why instead of only that it happened.
//
// A kube-apiserver writes its identity lease before its peer endpoint lease (the latter
// only once it is ready). Up to 1.34 a server retries a failed peer discovery sync 5 times
// with backoff from 5 ms, about 160 ms in all, then drops the peer's lease from its queue
// ("missing port in address" in its log) and does not look at that peer again until some
// identity lease is added, deleted or changes holder. 1.35 raised the retries to 20 for
// exactly this race (k8s.io/apiserver pkg/util/peerproxy/peer_discovery.go, maxRetries).
// Seen on 1.33.13 + 1.34.4 and 1.34.4 + 1.35.4: the older server answers 404 for all the
// newer one serves. 1.28 to 1.32 have no peer discovery (their proxy goes by
// StorageVersions), so no such defect.
func knownIncompatibility(versions []string) string {
	if _, ok := NamedDefect(givesUpOnPeer.Line(), versions...); !ok || len(versions) < 2 {
		return ""
	}
	return givesUpOnPeer.Line()
}

// knownCrash names the upstream defect behind a crash when a server's log shows it.
//
// kube-apiserver 1.33 and 1.34 fetch each peer's discovery and test the wrong error
// (err, not discoveryErr, in fetchNewDiscoveryFor of k8s.io/apiserver
// pkg/util/peerproxy/peer_discovery.go), so a peer that cannot be reached, while its
// endpoint lease still stands, gives them a nil response to read: a nil pointer panic in
// a worker goroutine, which ends the process. A server that starts while a registered peer
// is down crashes so. Fixed in 1.35. Seen in the rolling upgrade 1.33.13 -> 1.34.4 with a
// crash fault on the next server.
func knownCrash(version, log string) string {
	if _, ok := NamedDefect(nilPointerOnSync.Line(), version); !ok {
		return ""
	}
	b, err := os.ReadFile(log)
	if err != nil || !strings.Contains(string(b), "pkg/util/peerproxy/peer_discovery.go") || !strings.Contains(string(b), "nil pointer dereference") {
		return ""
	}
	return nilPointerOnSync.Line()
}
