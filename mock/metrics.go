package mock

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the server's Prometheus metrics, in a registry of its own
// (two Servers share nothing), served at /__mock/metrics.
type metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	faults   *prometheus.CounterVec
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "replymock_requests_total",
			Help: "API requests answered, by route, status and scenario.",
		}, []string{"route", "status", "scenario"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "replymock_request_duration_seconds",
			Help:    "Time to answer an API request, injected delays included, by route.",
			Buckets: []float64{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60},
		}, []string{"route"}),
		faults: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "replymock_injected_faults_total",
			Help: "Faults injected into API requests, by kind (latency, error, drop, truncate, unauthorized, rate_limited) and scenario.",
		}, []string{"kind", "scenario"}),
	}
	m.registry.MustRegister(m.requests, m.latency, m.faults,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// apiRoute is the route label of an API path: a known route, or "other",
// so that unknown paths cannot grow the metrics without end.
func apiRoute(path string) string {
	switch path {
	case APIPrefix + "/feedbacks", APIPrefix + "/settings/ai":
		return path
	}
	return "other"
}

// observe records one API request.
func (m *metrics) observe(route string, status int, scenario string, took time.Duration, p *plan) {
	m.requests.WithLabelValues(route, strconv.Itoa(status), scenario).Inc()
	m.latency.WithLabelValues(route).Observe(took.Seconds())
	if p == nil {
		return
	}
	add := func(kind string) { m.faults.WithLabelValues(kind, scenario).Inc() }
	if p.delay > 0 {
		add("latency")
	}
	switch {
	case p.answer != nil && p.answer.Error != nil:
		add("error")
	case p.answer != nil && p.answer.Drop:
		add("drop")
	case p.deny == errUnauthorized:
		add("unauthorized")
	case p.deny != nil:
		add("rate_limited")
	}
	if p.truncate {
		add("truncate")
	}
}
