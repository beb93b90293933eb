package local

import "strings"

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
// newer one serves.
func knownIncompatibility(versions []string) string {
	var old []string
	for _, v := range versions {
		if m := minor(v); m > 0 && m <= 34 {
			old = append(old, v)
		}
	}
	if len(old) == 0 || len(versions) < 2 {
		return ""
	}
	return "known upstream defect: kube-apiserver " + strings.Join(old, ", ") + " gives up on a peer whose endpoint lease is not yet written " +
		"after 5 retries in about 160 ms (\"missing port in address\" in its log) and ignores it until an identity lease changes holder; " +
		"1.35 retries 20 times (k8s.io/apiserver pkg/util/peerproxy/peer_discovery.go maxRetries). skewcheck adds and deletes an identity lease once at bring-up so they look again; " +
		"a server that restarts later is missed again until some identity lease is added or deleted"
}
