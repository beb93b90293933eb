package peerproxy

import (
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics count what the proxy decided and what failed, like upstream's
// apiserver_rerouted_request_total and apiserver_peer_proxy_errors_total.
type metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	errors   prometheus.Counter
	syncs    *prometheus.CounterVec
	ignored  *prometheus.GaugeVec
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "skewcheck_peerproxy_requests_total",
			Help: "Requests by where their answer came from: local, peer, or unavailable (no server could be reached: 503). Each request counts once."}, []string{"route"}),
		errors: prometheus.NewCounter(prometheus.CounterOpts{Name: "skewcheck_peerproxy_peer_errors_total",
			Help: "Failed attempts to reach a peer (each retry counts)."}),
		syncs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "skewcheck_peerproxy_discovery_syncs_total",
			Help: "Discovery and lease syncs by result."}, []string{"result"}),
		ignored: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "skewcheck_peerproxy_peer_leases_ignored",
			Help: "Live peer leases the last sync did not read, by reason: url (not https://<host>[:<port>]) or over-cap (more peers than the proxy reads)."}, []string{"reason"}),
	}
	m.registry.MustRegister(m.requests, m.errors, m.syncs, m.ignored)
	return m
}

func (m *metrics) route(r string) { m.requests.WithLabelValues(r).Inc() }
func (m *metrics) peerError()     { m.errors.Inc() }
func (m *metrics) sync(ok bool) {
	if ok {
		m.syncs.WithLabelValues("ok").Inc()
	} else {
		m.syncs.WithLabelValues("error").Inc()
	}
}

func (m *metrics) leasesIgnored(badURL, overCap int) {
	m.ignored.WithLabelValues("url").Set(float64(badURL))
	m.ignored.WithLabelValues("over-cap").Set(float64(overCap))
}

// serveMetrics serves reg at /metrics on addr. The listener is opened before it returns,
// so a port in use fails the proxy's start instead of leaving its metrics silently missing.
func serveMetrics(addr string, reg *prometheus.Registry) (*http.Server, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening for metrics on %s: %w (is the port in use? leave MetricsListen empty for none)", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(l)
	return srv, nil
}
