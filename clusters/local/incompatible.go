package local

import "strings"

// knownIncompatibility names an upstream defect that keeps servers of these versions from
// ever converging, so a convergence timeout says why instead of only that it happened.
//
// kube-apiserver 1.35 creates the storage of its peer endpoint leases (etcd, under
// /peerserverleases/) with that prefix as the resource prefix; 1.34 and older create it
// without one (k8s.io/apiserver pkg/reconcilers/peer_endpoint_lease.go, storagefactory.Create).
// A 1.34 server then finds no address for a 1.35+ peer ("failed to get host port info from
// identity lease ...: missing port in address" in its log), drops the peer after its
// retries, and answers 404 for everything only that peer serves. Seen on 1.34.4 + 1.35.4.
func knownIncompatibility(versions []string) string {
	var old, newer []string
	for _, v := range versions {
		switch m := minor(v); {
		case m > 0 && m <= 34:
			old = append(old, v)
		case m >= 35:
			newer = append(newer, v)
		}
	}
	if len(old) == 0 || len(newer) == 0 {
		return ""
	}
	return "known upstream incompatibility: kube-apiserver " + strings.Join(old, ", ") + " cannot find the address of a 1.35+ peer (" +
		strings.Join(newer, ", ") + "): 1.35 stores peer endpoint leases under a storage resource prefix 1.34 does not use " +
		"(k8s.io/apiserver pkg/reconcilers/peer_endpoint_lease.go), so the older server logs \"missing port in address\" and answers 404 " +
		"for what only newer peers serve: upstream's mixed version proxy cannot work across this pair; skew versions from 1.35 on"
}
