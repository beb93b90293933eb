package gateway

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are what an operator of a gateway watches: where requests went and how they
// ended, what flow control refused, which upstreams are healthy, and whether the last
// configuration change took.
type metrics struct {
	registry  *prometheus.Registry
	requests  *prometheus.CounterVec
	rejected  *prometheus.CounterVec
	healthy   *prometheus.GaugeVec
	errors    *prometheus.CounterVec
	reloads   *prometheus.CounterVec
	configBad prometheus.Gauge
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "skewcheck_gateway_requests_total",
			Help: "Requests by cluster, dispatch policy (its index; \"none\" when none matched), the upstream that answered (\"none\" when the gateway answered itself) and HTTP code."},
			[]string{"cluster", "policy", "upstream", "code"}),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "skewcheck_gateway_flowcontrol_rejected_total",
			Help: "Requests refused with 429 by flow control, by cluster, policy, schema and the schema's kind."},
			[]string{"cluster", "policy", "schema", "kind"}),
		healthy: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "skewcheck_gateway_upstream_healthy",
			Help: "1 while the upstream passes its health checks (GET /readyz), else 0."}, []string{"cluster", "upstream"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "skewcheck_gateway_upstream_errors_total",
			Help: "Requests that could not reach an upstream (each retry counts)."}, []string{"cluster", "upstream"}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "skewcheck_gateway_config_reloads_total",
			Help: "Configuration loads by result: applied, or invalid (the last good configuration stays)."}, []string{"result"}),
		configBad: prometheus.NewGauge(prometheus.GaugeOpts{Name: "skewcheck_gateway_config_invalid",
			Help: "1 while the configuration directory holds an invalid configuration that was not applied."}),
	}
	m.registry.MustRegister(m.requests, m.rejected, m.healthy, m.errors, m.reloads, m.configBad)
	return m
}

func (m *metrics) request(cluster, policy, upstream string, code int) {
	m.requests.WithLabelValues(cluster, policy, upstream, strconv.Itoa(code)).Inc()
}

func (m *metrics) health(u *upstream, ok bool) {
	v := 0.0
	if ok {
		v = 1
	}
	m.healthy.WithLabelValues(u.cluster, u.endpoint).Set(v)
}

func (m *metrics) forget(u *upstream) { m.healthy.DeleteLabelValues(u.cluster, u.endpoint) }
