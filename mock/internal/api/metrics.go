package api

import (
	"maps"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/fault"
)

// metrics are the server's Prometheus metrics, in a registry of its own
// (two Servers share nothing), served at /__mock/metrics.
type metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	faults   *prometheus.CounterVec
	warnings *prometheus.CounterVec

	// The vectors' children by label values, so that a request does not
	// format and hash its labels. A request's count and latency children
	// are found by one lookup.
	requestsBy childCache[requestLabels, requestChildren]
	faultsBy   childCache[faultLabels, prometheus.Counter]
	warningsBy childCache[warnKind, prometheus.Counter]
}

type requestLabels struct {
	route    string
	status   int
	scenario string
}

// requestChildren are the children a request with some labels counts in.
type requestChildren struct {
	requests prometheus.Counter
	latency  prometheus.Observer // by route alone
}

type faultLabels struct{ kind, scenario string }

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
			Help: "Client mistakes the API warned about (X-Mock-Warning), by kind (unknown_parameter, upstream_name, near_miss, empty_parameter, wrong_operation, body_on_get, content_type).",
		}, []string{"kind"}),
	}
	m.registry.MustRegister(m.requests, m.latency, m.faults, m.warnings,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.requestsBy.create = func(l requestLabels) requestChildren {
		return requestChildren{m.requests.WithLabelValues(l.route, strconv.Itoa(l.status), l.scenario), m.latency.WithLabelValues(l.route)}
	}
	m.faultsBy.create = func(l faultLabels) prometheus.Counter { return m.faults.WithLabelValues(l.kind, l.scenario) }
	m.warningsBy.create = func(k warnKind) prometheus.Counter { return m.warnings.WithLabelValues(warnKindNames[k]) }
	return m
}

// The kind label's values of replymock_injected_faults_total beyond the
// fault kinds': the answers auth and the rate limit gave.
const (
	metricUnauthorized = "unauthorized"
	metricRateLimited  = "rate_limited"
)

// faultMetricKinds lists the kind label's values: each fault kind's (the
// kind table's), then auth's and the rate limit's.
func faultMetricKinds() []string {
	var out []string
	for _, k := range fault.Kinds() {
		out = append(out, k.Name)
	}
	return append(out, metricUnauthorized, metricRateLimited)
}

// childCache keeps a metric vector's children by their label values. A
// child is made on first use, as WithLabelValues would, so that no series
// shows before it counts something. Label values are bounded (routes,
// statuses, scenarios, fault kinds), and so is the cache, like the vector.
type childCache[K comparable, M any] struct {
	create   func(K) M
	children atomic.Pointer[map[K]M] // replaced, never changed in place: read without a lock
	mu       sync.Mutex              // serializes additions
}

// get returns the child of label values k, made on first use.
func (c *childCache[K, M]) get(k K) M {
	if m := c.children.Load(); m != nil {
		if child, ok := (*m)[k]; ok {
			return child
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.children.Load()
	if old != nil {
		if child, ok := (*old)[k]; ok {
			return child
		}
	}
	m := make(map[K]M)
	if old != nil {
		maps.Copy(m, *old)
	}
	child := c.create(k)
	m[k] = child
	c.children.Store(&m)
	return child
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
	c := m.requestsBy.get(requestLabels{route, status, scenario})
	c.requests.Inc()
	c.latency.Observe(took.Seconds())
	if p == nil {
		return
	}
	add := func(kind string) { m.faultsBy.get(faultLabels{kind, scenario}).Inc() }
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
			m.warningsBy.get(warnKind(k)).Add(float64(n))
		}
	}
}
