package api

import (
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/fault"
)

// metrics are the server's Prometheus metrics, in a registry of its own
// (two Servers share nothing).
type metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	faults   *prometheus.CounterVec
	warnings *prometheus.CounterVec
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
			Help: "Faults injected into API requests, by kind (" + strings.Join(faultMetricKinds(), ", ") + ") and scenario.",
		}, []string{"kind", "scenario"}),
		warnings: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "replymock_client_warnings_total",
			Help: "Client mistakes the API warned about (X-Mock-Warning), by kind (" + strings.Join(warnKindNames[:], ", ") + ").",
		}, []string{"kind"}),
	}
	m.registry.MustRegister(m.requests, m.latency, m.faults, m.warnings,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// The kind label's values of replymock_injected_faults_total for the
// answers of auth and the rate limit.
const (
	metricUnauthorized = "unauthorized"
	metricRateLimited  = "rate_limited"
)

// faultMetricKinds lists the kind label's values.
func faultMetricKinds() []string {
	var out []string
	for _, k := range fault.Kinds() {
		out = append(out, k.Name)
	}
	return append(out, metricUnauthorized, metricRateLimited)
}

// apiRoute is the route label of an API path: a known route, or "other",
// so that unknown paths cannot grow the metrics without end.
func apiRoute(path string) string {
	if p, ok := strings.CutPrefix(path, Prefix); ok {
		for _, op := range operations {
			if op.path == p {
				return path
			}
		}
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
	for kind := range p.Metrics() {
		add(kind)
	}
	switch {
	case p.deny == access.ErrUnauthorized:
		add(metricUnauthorized)
	case p.deny != nil:
		add(metricRateLimited)
	}
}

// warned counts a request's warnings by kind.
func (m *metrics) warned(c *clientWarnings) {
	for k, n := range c.counts {
		if n > 0 {
			m.warnings.WithLabelValues(warnKindNames[k]).Add(float64(n))
		}
	}
}
