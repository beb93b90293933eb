package peerproxy

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework/discovery"
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
	mu                  sync.RWMutex
	local               view
	peers               map[string]view // by lease name; only peers whose lease is live
	peerLeaseClients    map[string]kubernetes.Interface
	syncEvery           time.Duration
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

// sync refreshes what the local apiserver serves and which live peers serve what. A peer
// whose lease is live but whose discovery cannot be read keeps its last known view, however
// long that lasts: it has crashed, is frozen or is cut off, and requests for what it served
// must get 503, not 404, until its lease ends (lease.go says when that is). Only a lease
// that is gone or expired drops a peer.
func (r *registry) sync(ctx context.Context) {
	ok := true
	if v, err := fetchView(ctx, r.localCfg, r.id, r.localURL); err == nil {
		r.mu.Lock()
		r.local = v
		r.mu.Unlock()
	} else {
		ok = false
	}
	list, err := r.client.CoordinationV1().Leases(leaseNamespace).List(ctx, metav1.ListOptions{LabelSelector: leaseLabel + "=true"})
	if err != nil {
		r.onSync(false)
		return
	}
	r.mu.RLock()
	old := r.peers
	r.mu.RUnlock()
	peers := map[string]view{}
	for _, l := range list.Items {
		if l.Name == r.leaseName() || !leaseLive(l) {
			continue
		}
		url := l.Annotations[leaseAPIServer]
		v, err := fetchView(ctx, r.peerCfg(url), l.Name, url)
		if err != nil {
			ok = false
			prev, known := old[l.Name]
			if !known {
				continue
			}
			v = prev
		}
		peers[l.Name] = v
	}
	r.mu.Lock()
	r.peers = peers
	r.mu.Unlock()
	r.onSync(ok)
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
	var peers []view
	for _, p := range r.peers {
		peers = append(peers, p)
	}
	sort.Slice(peers, func(i, j int) bool { return peers[i].id < peers[j].id })
	return r.local, peers
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
