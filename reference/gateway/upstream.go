package gateway

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework/discovery"
)

// upstream is one apiserver as the gateway knows it: whether it answers /readyz, and what
// it serves itself (nopeer discovery). It outlives configuration reloads that keep its
// endpoint and client config, so a reload neither forgets its health nor drops its
// connection.
type upstream struct {
	cluster  string
	endpoint string
	url      *url.URL
	conn     *connector

	healthy atomic.Bool
	checked atomic.Bool // at least one health check finished
	served  atomic.Pointer[discovery.Set]
	lastErr atomic.Pointer[string]

	onHealth func(u *upstream, healthy bool)
	cancel   context.CancelFunc
	done     sync.WaitGroup
}

func newUpstream(cluster string, conn *connector, endpoint string, onHealth func(*upstream, bool)) *upstream {
	u, _ := url.Parse(endpoint) // validated: an https://host:port URL
	return &upstream{cluster: cluster, endpoint: endpoint, url: u, conn: conn, onHealth: onHealth}
}

// UpstreamStatus is what the gateway currently knows of one server.
type UpstreamStatus struct {
	Cluster, Endpoint string
	Healthy           bool
	// Checked is false until the first health check has finished.
	Checked bool
	// Served is the number of GVRs its discovery listed last time it was read (0: never).
	Served    int
	LastError string
}

func (u *upstream) status() UpstreamStatus {
	s := UpstreamStatus{Cluster: u.cluster, Endpoint: u.endpoint, Healthy: u.healthy.Load(), Checked: u.checked.Load()}
	if set := u.served.Load(); set != nil {
		s.Served = len(*set)
	}
	if e := u.lastErr.Load(); e != nil {
		s.LastError = *e
	}
	return s
}

// serves reports whether the upstream's last known discovery lists the GVR; known is false
// when its discovery was never read.
func (u *upstream) serves(key string) (serves, known bool) {
	set := u.served.Load()
	if set == nil {
		return false, false
	}
	return set.Has(key), true
}

func (u *upstream) servesGroupVersion(group, version string) (serves, known bool) {
	set := u.served.Load()
	if set == nil {
		return false, false
	}
	return set.HasGroupVersion(group, version), true
}

func (u *upstream) setHealthy(ok bool, err error) {
	if err != nil {
		msg := err.Error()
		u.lastErr.Store(&msg)
	}
	was := u.healthy.Swap(ok)
	u.checked.Store(true)
	if was != ok && u.onHealth != nil {
		u.onHealth(u, ok)
	}
}

// markFailed evicts the upstream at once after a request could not reach it; the next
// health check restores it if that was a fluke.
func (u *upstream) markFailed(err error) { u.setHealthy(false, err) }

// probe is one health check: GET /readyz, 200 within timeout.
func (u *upstream) probe(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.endpoint+"/readyz", nil)
	if err != nil {
		return err
	}
	resp, err := u.conn.rt.RoundTrip(req)
	if err != nil {
		return fmt.Errorf("GET %s/readyz: %w", u.endpoint, err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s/readyz: HTTP %d", u.endpoint, resp.StatusCode)
	}
	return nil
}

// readDiscovery reads what the upstream serves itself; the last known set is kept when
// that fails (a briefly unreachable server still serves what it served).
func (u *upstream) readDiscovery(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	set, err := discovery.Served(ctx, &rest.Config{Host: u.endpoint, Transport: u.conn.rt})
	if err != nil {
		return err
	}
	u.served.Store(&set)
	return nil
}

// timings are the loops' periods and bounds (Config, defaulted).
type timings struct {
	healthEvery, healthTimeout, discoveryEvery, discoveryTimeout time.Duration
}

// start checks the upstream once (so a fresh gateway does not answer 503 for servers it
// simply has not looked at yet), then keeps checking in the background.
func (u *upstream) start(t timings) {
	ctx, cancel := context.WithCancel(context.Background())
	u.cancel = cancel
	u.check(ctx, t)
	u.done.Add(2)
	go func() {
		defer u.done.Done()
		every(ctx, t.healthEvery, func() {
			err := u.probe(ctx, t.healthTimeout)
			u.setHealthy(err == nil, err)
		})
	}()
	go func() {
		defer u.done.Done()
		every(ctx, t.discoveryEvery, func() {
			if u.healthy.Load() {
				u.recordErr(u.readDiscovery(ctx, t.discoveryTimeout))
			}
		})
	}()
}

// check is one health check and, if healthy, one discovery read.
func (u *upstream) check(ctx context.Context, t timings) {
	err := u.probe(ctx, t.healthTimeout)
	u.setHealthy(err == nil, err)
	if err == nil {
		u.recordErr(u.readDiscovery(ctx, t.discoveryTimeout))
	}
}

func (u *upstream) recordErr(err error) {
	if err != nil {
		msg := err.Error()
		u.lastErr.Store(&msg)
	}
}

func (u *upstream) stop() {
	if u.cancel != nil {
		u.cancel()
	}
	u.done.Wait()
}

// every runs f every period until ctx ends (the first run after one period).
func every(ctx context.Context, period time.Duration, f func()) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			f()
		}
	}
}
