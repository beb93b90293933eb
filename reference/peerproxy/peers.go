package peerproxy

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework/discovery"
)

// The reference registers itself rather than reading the upstream identity leases: it must
// work in front of apiservers whose version or configuration lacks the proxy, where those
// leases carry no peer address. A lease per proxy names the apiserver it fronts.
const (
	leaseNamespace   = "kube-system"
	leaseLabel       = "skewcheck.io/peerproxy"
	leaseAPIServer   = "skewcheck.io/apiserver-url"
	leaseDuration    = 15 * time.Second
	leaseRenewPeriod = 5 * time.Second
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

// registry keeps this proxy's lease alive and learns the peers and what they serve.
type registry struct {
	id           string
	localURL     string
	advertiseURL string // what peers are told to dial
	client       kubernetes.Interface
	peerCfg      func(url string) *rest.Config
	localCfg     *rest.Config
	onSync       func(ok bool)
	mu           sync.RWMutex
	local        view
	peers        map[string]view // by lease name; only peers whose lease is live
	syncEvery    time.Duration
}

// run renews the lease and refreshes local and peer views until ctx ends.
func (r *registry) run(ctx context.Context) {
	renew := time.NewTicker(leaseRenewPeriod)
	defer renew.Stop()
	sync := time.NewTicker(r.syncEvery)
	defer sync.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-renew.C:
			r.renew(ctx)
		case <-sync.C:
			r.sync(ctx)
		}
	}
}

// advertised is the URL peers are told to dial for the fronted apiserver.
func (r *registry) advertised() string {
	if r.advertiseURL != "" {
		return r.advertiseURL
	}
	return r.localURL
}

func (r *registry) leaseName() string { return "skewcheck-peerproxy-" + r.id }

// renew writes this proxy's lease (creating it if needed).
func (r *registry) renew(ctx context.Context) error {
	leases := r.client.CoordinationV1().Leases(leaseNamespace)
	now := metav1.NewMicroTime(time.Now())
	secs := int32(leaseDuration / time.Second)
	l, err := leases.Get(ctx, r.leaseName(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, err = leases.Create(ctx, &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Name: r.leaseName(), Labels: map[string]string{leaseLabel: "true"},
				Annotations: map[string]string{leaseAPIServer: r.advertised()}},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: &r.id, LeaseDurationSeconds: &secs, RenewTime: &now},
		}, metav1.CreateOptions{})
		return err
	}
	if err != nil {
		return err
	}
	l.Spec.RenewTime, l.Spec.LeaseDurationSeconds = &now, &secs
	_, err = leases.Update(ctx, l, metav1.UpdateOptions{})
	return err
}

// deregister deletes the lease: a graceful stop tells peers at once that this server left.
func (r *registry) deregister(ctx context.Context) {
	r.client.CoordinationV1().Leases(leaseNamespace).Delete(ctx, r.leaseName(), metav1.DeleteOptions{})
}

// sync refreshes what the local apiserver serves and which live peers serve what. A peer
// whose lease is live but whose discovery cannot be read keeps its last known view: it has
// crashed or is cut off, and requests for what it served must get 503, not 404.
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

func leaseLive(l coordinationv1.Lease) bool {
	if l.Spec.RenewTime == nil || l.Spec.LeaseDurationSeconds == nil {
		return false
	}
	return time.Since(l.Spec.RenewTime.Time) < time.Duration(*l.Spec.LeaseDurationSeconds)*time.Second
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
