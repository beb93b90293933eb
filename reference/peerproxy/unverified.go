package peerproxy

import "time"

// Anyone who may write Leases in kube-system can write one that names any address, so a
// lease is only a candidate until its server has answered a discovery read over verified
// TLS. A sync reads at most maxPeers leases; had candidates kept their place by creation
// time alone, a flood of leases made before a new peer, at servers that never verify,
// would take every slot at every sync and fail every time, and the new peer would never be
// read. So a candidate whose read failed waits behind the candidates not yet tried, and the
// failed ones take turns, least recently failed first: a flood of N such leases delays a
// new peer by at most N/maxPeers syncs. Creating more leases puts them behind the peer (a
// creation time is the apiserver's), and rewriting a lease does not wipe its failure (it
// is remembered by name until the lease is gone).
type failedReads map[string]time.Time // by lease name: when its latest read failed

// record notes the outcome of reading a candidate: failed at now, or verified.
func (f failedReads) record(name string, err error, now time.Time) {
	if err != nil {
		f[name] = now
		return
	}
	delete(f, name)
}

// forgetExcept drops every lease not named in listed.
func (f failedReads) forgetExcept(listed map[string]bool) {
	for name := range f {
		if !listed[name] {
			delete(f, name)
		}
	}
}
