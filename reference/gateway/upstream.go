package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/rest"

	"github.com/skewcheck/skewcheck/framework/apis/discovery"
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
	// slowChecks counts the health checks in a row that timed out while the upstream was
	// in the rotation (slowChecksToEvict).
	slowChecks atomic.Int32
	served     atomic.Pointer[discovery.Set]
	lastErr    atomic.Pointer[string]

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

// slowChecksToEvict is how many health checks in a row must time out before an upstream
// in the rotation leaves it. One slow /readyz is what a live apiserver gives when it, or
// the gateway's connection to it, is busy: under 200 clients here, single checks took
// over 2 s and both upstreams of a gateway left the rotation within a second, so every
// request got 503 although both servers were answering. Three in a row, each a check
// every HealthEvery bounded by UpstreamTimeout, is 6 to 9 s with the defaults, inside
// the 15 s a frozen upstream may take to leave (GW-051); a frozen server is usually out
// sooner anyway, through the first request that finds its connection dead (markFailed).
// A server that answers "not ready", or refuses the connection, leaves at once: it said
// so, and waiting would only send it more requests it cannot serve.
const slowChecksToEvict = 3

// healthCheck is one health check's verdict on the upstream.
func (u *upstream) healthCheck(ctx context.Context, timeout time.Duration) {
	err := u.probe(ctx, timeout)
	switch {
	case err == nil:
		u.slowChecks.Store(0)
		u.setHealthy(true, nil)
	case isTimeout(err) && u.healthy.Load() && u.slowChecks.Add(1) < slowChecksToEvict:
		u.recordErr(fmt.Errorf("%w (%d of %d slow checks in a row before it leaves the rotation)", err, u.slowChecks.Load(), slowChecksToEvict))
	default:
		u.slowChecks.Store(0)
		u.setHealthy(false, err)
	}
}

// isTimeout: nothing answered in time (a deadline, a dial or TLS handshake timeout), as
// opposed to an answer that says no (a refused connection, a reset, a status).
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

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
		every(ctx, t.healthEvery, func() { u.healthCheck(ctx, t.healthTimeout) })
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
	u.healthCheck(ctx, t.healthTimeout)
	if u.healthy.Load() {
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
