package peerproxy

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework/apis/discovery"
)

// view is what a proxy knows of one server: its apiserver URL and what it serves, as the
// Set for routing and the document for merged discovery.
type view struct {
	id      string
	url     string
	served  discovery.Set
	apis    *apidiscoveryv2.APIGroupDiscoveryList
	fetched time.Time
}

// registry keeps this proxy's lease alive (lease.go) and learns the peers and what they
// serve.
type registry struct {
	id           string
	localURL     string
	advertiseURL string // what peers are told to dial
	// client lists leases and leaseClient writes this proxy's own: two clients, so their
	// rate limits are separate and syncing never starves renewal.
	client, leaseClient kubernetes.Interface
	leaseDuration       time.Duration
	peerCfg             func(url string) *rest.Config
	localCfg            *rest.Config
	onSync              func(ok bool)
	onIgnored           func(badURL, overCap int) // leases a sync did not read, and why
	mu                  sync.RWMutex
	local               view
	peers               map[string]view // by lease name; only peers whose lease is live
	peerLeaseClients    map[string]kubernetes.Interface
	syncEvery           time.Duration
	flaw                Flaw // NoFlaw but in the suites' evidence (flaw.go)
	// dropped are the peers a sync dropped, with when each came back (zero while it has
	// not), which FlawSlowRelearnPeer keeps out for relearnAfter from then; written and
	// read by sync only.
	dropped map[string]time.Time
	// departed are the peers FlawLingerInDiscovery still lists in merged /apis, with when
	// they left; guarded by mu.
	departed map[string]departure
	// kept are the views of its peers FlawStalePeerDiscovery keeps (Flaw.keptReads);
	// written and read by sync only.
	kept map[string]view
	// failed are the candidates whose latest read failed, which pickPeers puts behind the
	// candidates not yet tried (unverified.go); written and read by sync only.
	failed failedReads
	// renewals judges the peers' leases live by this proxy's clock, not theirs
	// (renewals.go).
	renewals renewals
	// ext are the CRDs' and aggregated APIServices' group-versions, never a peer's
	// (extensions.go), as readExt lists them from the local apiserver; written by sync only.
	ext     extensions
	readExt func(context.Context) ([]string, error)
}

// newRegistry is the registry of the proxy cfg describes, reading and writing through c.
func newRegistry(cfg Config, c clients, m *metrics) *registry {
	return &registry{id: cfg.ID, localURL: cfg.APIServer, advertiseURL: cfg.AdvertiseURL, client: c.sync, leaseClient: c.lease,
		leaseDuration: cfg.LeaseDuration, localCfg: controlConfig(cfg, cfg.APIServer), syncEvery: cfg.SyncEvery, flaw: cfg.Flaw,
		onSync: m.sync, onIgnored: m.leasesIgnored, peerCfg: func(url string) *rest.Config { return controlConfig(cfg, url) },
		readExt: func(ctx context.Context) ([]string, error) { return readExtensions(ctx, c.sync) }}
}

// run renews the lease and refreshes local and peer views until ctx ends, each in a loop
// of its own: a sync stuck on frozen peers must not let the lease lapse.
func (r *registry) run(ctx context.Context) {
	go r.renewLoop(ctx)
	t := time.NewTicker(r.syncEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			r.sync(ctx)
		}
	}
}

// maxPeers bounds how many peers a proxy reads and routes to. Control planes run 3 or 5
// apiservers (rarely 7: they follow etcd's quorum sizes), and a surge upgrade at most
// doubles that for a while; 32 leaves room for several addresses of each and still bounds
// what a flood of leases costs: at most 32 discovery reads at once per sync, 32 clients
// to write the lease through, 32 views in merged discovery.
const maxPeers = 32

// sync refreshes what the local apiserver serves and which live peers serve what. A peer
// whose lease is live but whose discovery cannot be read keeps its last known view, however
// long that lasts: it has crashed, is frozen or is cut off, and requests for what it served
// must get 503, not 404, until its lease ends (lease.go says when that is). Only a lease
// that is gone or expired drops a peer.
//
// Peers are read at once, not one after another: a lease at an address that never answers
// costs one fetch timeout per sync, not one per lease.
func (r *registry) sync(ctx context.Context) {
	ok := true
	if r.local.served == nil || !r.flaw.keepsLocalView() {
		if v, err := fetchView(ctx, r.localCfg, r.id, r.localURL); err == nil {
			r.mu.Lock()
			r.local = v
			r.mu.Unlock()
		} else {
			ok = false
		}
	}
	list, err := r.client.CoordinationV1().Leases(LeaseNamespace).List(ctx, metav1.ListOptions{LabelSelector: LeaseLabel + "=true"})
	if err != nil {
		r.onSync(false)
		return
	}
	r.mu.RLock()
	old := r.peers
	r.mu.RUnlock()
	picked := r.pickPeers(list.Items, old)
	if r.onIgnored != nil {
		r.onIgnored(picked.badURL, picked.overCap)
	}
	fetched := make([]view, len(picked.leases))
	errs := make([]error, len(picked.leases))
	var wg sync.WaitGroup
	for i, l := range picked.leases {
		wg.Go(func() {
			cfg, err := r.peerConfig(l.url)
			if err == nil {
				fetched[i], err = fetchView(ctx, cfg, l.name, l.url)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	r.kept = r.flaw.keptReads(r.kept, picked.leases, fetched, errs)
	for i, l := range picked.leases {
		if !l.known {
			r.failed.record(l.name, errs[i], time.Now())
		}
	}
	peers := map[string]view{}
	for i, l := range picked.leases {
		v := fetched[i]
		if errs[i] != nil {
			ok = false
			prev, known := old[l.name]
			if !known || r.flaw.forgets(prev.fetched, time.Now()) {
				continue
			}
			v = prev
		}
		peers[l.name] = v
	}
	if !r.flaw.relearnsAtOnce() {
		r.keepOutDropped(old, peers, time.Now())
	}
	if r.flaw.keepsNone(slices.ContainsFunc(errs, func(err error) bool { return err != nil })) {
		peers = map[string]view{}
	}
	// After the peers' views are read, so an extension a peer's view lists was already
	// made when the extensions are listed, and is among them.
	if !r.stripExtensions(ctx, peers) {
		ok = false
	}
	r.mu.Lock()
	r.departed = r.flaw.stillListed(r.departed, old, peers, time.Now())
	r.peers = peers
	r.mu.Unlock()
	r.onSync(ok)
}

// keepOutDropped is FlawSlowRelearnPeer: it remembers every peer this sync drops (in old,
// not in peers), and removes from peers every dropped peer that came back less than
// relearnAfter before now.
func (r *registry) keepOutDropped(old, peers map[string]view, now time.Time) {
	if r.dropped == nil {
		r.dropped = map[string]time.Time{}
	}
	for name := range old {
		if _, kept := peers[name]; !kept {
			r.dropped[name] = time.Time{}
		}
	}
	// A peer kept out is not in old (r.peers lacks it): one that leaves again meanwhile
	// is gone again, and its keep-out counts from its next return.
	for name := range r.dropped {
		if _, present := peers[name]; !present {
			r.dropped[name] = time.Time{}
		}
	}
	for name := range peers {
		back, was := r.dropped[name]
		if !was {
			continue
		}
		if back.IsZero() {
			back = now
			r.dropped[name] = now
		}
		if now.Sub(back) < relearnAfter {
			delete(peers, name)
		} else {
			delete(r.dropped, name)
		}
	}
}

// peerLease is a live lease of another proxy, at a URL it may be reached at.
type peerLease struct {
	name, url string
	created   time.Time
	known     bool      // read before: a peer already verified
	failed    time.Time // when its latest read failed, if it is a candidate that did
}

// pickedPeers are the leases one sync reads, and how many it left out.
type pickedPeers struct {
	leases          []peerLease
	badURL, overCap int
}

// pickPeers chooses which leases a sync reads: live ones other than the proxy's own, at a
// URL peerURL accepts, one per URL, at most maxPeers. Peers already known (verified) keep
// their place; then candidates not yet tried, the oldest first: a creation time is set by
// the apiserver, so a flood of leases cannot push out the peers that were there before it;
// then candidates whose read failed, the least recently failed first (unverified.go), so a
// flood that never verifies cannot keep a newer peer out. Names, chosen by whoever writes
// the lease, decide only ties.
func (r *registry) pickPeers(leases []coordinationv1.Lease, known map[string]view) pickedPeers {
	var p pickedPeers
	var all []peerLease
	now, listed := time.Now(), map[string]bool{}
	for _, l := range leases {
		listed[l.Name] = true
		if l.Name == r.leaseName() || !r.live(l, now) {
			continue
		}
		u, err := peerURL(l.Annotations[LeaseURLAnnotation])
		if err != nil {
			p.badURL++
			continue
		}
		_, k := known[l.Name]
		all = append(all, peerLease{name: l.Name, url: u, created: l.CreationTimestamp.Time, known: k, failed: r.failed[l.Name]})
	}
	r.renewals.forgetExcept(listed)
	if r.failed == nil {
		r.failed = failedReads{}
	}
	r.failed.forgetExcept(listed)
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.known != b.known {
			return a.known
		}
		if !a.known && !a.failed.Equal(b.failed) {
			return a.failed.Before(b.failed) // the zero time (never failed) first
		}
		if !a.created.Equal(b.created) {
			return a.created.Before(b.created)
		}
		return a.name < b.name
	})
	seen := map[string]bool{}
	for _, l := range all {
		if seen[l.url] {
			continue
		}
		seen[l.url] = true
		if len(p.leases) == maxPeers {
			p.overCap++
			continue
		}
		p.leases = append(p.leases, l)
	}
	return p
}

// fetchView reads a server's own view (nopeer) of /api and /apis. The apiservers behind a
// reference proxy may be older than 1.35 or have the gate off: their v2 answer is local.
func fetchView(ctx context.Context, cfg *rest.Config, id, url string) (view, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	apis, err := discovery.Fetch(ctx, cfg, "/apis", discovery.AggregatedV2NoPeer)
	if err != nil {
		return view{}, err
	}
	core, err := discovery.Fetch(ctx, cfg, "/api", discovery.AggregatedV2NoPeer)
	if err != nil {
		return view{}, err
	}
	served := discovery.Union(discovery.FromList(apis), discovery.FromList(core))
	return view{id: id, url: url, served: served, apis: apis, fetched: time.Now()}, nil
}

// localServes reports whether the fronted apiserver serves key.
func (r *registry) localServes(key string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.local.served.Has(key)
}

// capablePeers lists the apiserver URLs of live peers that serve key, in a stable order.
func (r *registry) capablePeers(key string) []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var urls []string
	for _, p := range r.peers {
		if p.served.Has(key) {
			urls = append(urls, p.url)
		}
	}
	sort.Strings(urls)
	return urls
}

// views returns the local view and the peers' views, for merged discovery.
func (r *registry) views() (view, []view) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.local, r.peerViews()
}

// discoveryViews are the views merged /apis is made of: views(), and with
// FlawLingerInDiscovery the peers that left less than lingerFor ago, read under one lock
// so a peer leaving meanwhile is in one list or the other, never both.
func (r *registry) discoveryViews() (view, []view) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	peers := r.peerViews()
	for _, d := range r.departed {
		peers = append(peers, d.view)
	}
	return r.local, peers
}

// peerViews are the current peers' views by id; r.mu must be held.
func (r *registry) peerViews() []view {
	var peers []view
	for _, p := range r.peers {
		peers = append(peers, p)
	}
	sort.Slice(peers, func(i, j int) bool { return peers[i].id < peers[j].id })
	return peers
}

// ready reports whether the local view has been read at least once.
func (r *registry) ready() error {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.local.served == nil {
		return fmt.Errorf("has not read its apiserver's discovery yet")
	}
	return nil
}
