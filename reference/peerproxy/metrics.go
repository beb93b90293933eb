package peerproxy

import "github.com/prometheus/client_golang/prometheus"

// metrics count what the proxy decided and what failed, like upstream's
// apiserver_rerouted_request_total and apiserver_peer_proxy_errors_total.
type metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	errors   prometheus.Counter
	syncs    *prometheus.CounterVec
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "skewcheck_peerproxy_requests_total",
			Help: "Requests by where they were routed: local, peer, or unavailable (503)."}, []string{"route"}),
		errors: prometheus.NewCounter(prometheus.CounterOpts{Name: "skewcheck_peerproxy_peer_errors_total",
			Help: "Failed attempts to reach a peer (each retry counts)."}),
		syncs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "skewcheck_peerproxy_discovery_syncs_total",
			Help: "Discovery and lease syncs by result."}, []string{"result"}),
	}
	m.registry.MustRegister(m.requests, m.errors, m.syncs)
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
