package mock_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"testing"

	"github.com/replymock/replymock/mock"
)

func TestMetrics(t *testing.T) {
	h := newServer(t, mock.Options{})
	get(t, h, "/api/v1/feedbacks?limit=1")
	get(t, h, "/api/v1/feedbacks?limit=0")
	get(t, h, "/api/v1/settings/ai", "X-Mock-Scenario", "down")
	get(t, h, "/api/v1/no/such/path/1")
	get(t, h, "/api/v1/no/such/path/2")
	get(t, h, "/api/v1/feedbacks", "X-Mock-Scenario", "unauthorized")
	r := get(t, h, "/__mock/metrics")
	if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/plain") {
		t.Fatalf("metrics: %d %q", r.status, r.header.Get("Content-Type"))
	}
	body := string(r.body)
	for _, want := range []string{
		`replymock_requests_total{route="/api/v1/feedbacks",scenario="default",status="200"} 1`,
		`replymock_requests_total{route="/api/v1/feedbacks",scenario="default",status="400"} 1`,
		`replymock_requests_total{route="/api/v1/settings/ai",scenario="down",status="503"} 1`,
		`replymock_requests_total{route="other",scenario="default",status="404"} 2`,
		`replymock_injected_faults_total{kind="error",scenario="down"} 1`,
		`replymock_injected_faults_total{kind="unauthorized",scenario="unauthorized"} 1`,
		`replymock_request_duration_seconds_count{route="/api/v1/feedbacks"} 3`,
		`go_goroutines `,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	// Two servers count separately.
	if other := get(t, newServer(t, mock.Options{}), "/__mock/metrics"); strings.Contains(string(other.body), "replymock_requests_total{") {
		t.Error("a new server's metrics count another server's requests")
	}
}

func TestRequestLog(t *testing.T) {
	var logs bytes.Buffer
	h := newServer(t, mock.Options{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	get(t, h, "/api/v1/feedbacks?limit=1", "X-Mock-Session", "log-test", "X-Request-Id", "req-7")
	get(t, h, "/__mock/scenarios")
	get(t, h, "/__mock/health")
	out := logs.String()
	for _, want := range []string{`"msg":"request"`, `"method":"GET"`, `"path":"/api/v1/feedbacks"`, `"status":200`, `"duration_ms":`,
		`"session":"log-test"`, `"scenario":"default"`, `"request_id":"req-7"`, `"msg":"admin request"`, `"path":"/__mock/scenarios"`} {
		if !strings.Contains(out, want) {
			t.Errorf("request log lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, `"path":"/__mock/health"`) {
		t.Error("health checks are logged at info level")
	}
}

// A handler that adds the source of a record finds the request line's in
// API.Serve, as a logger's own call would give it.
func TestRequestLogSource(t *testing.T) {
	var logs bytes.Buffer
	h := newServer(t, mock.Options{Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{AddSource: true}))})
	for range 2 { // the first line finds the caller, the second is given it
		get(t, h, "/api/v1/feedbacks?limit=1")
	}
	n := 0
	for l := range strings.SplitSeq(strings.TrimSpace(logs.String()), "\n") {
		var line struct {
			Msg    string
			Source struct{ Function, File string }
		}
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatal(err)
		}
		if line.Msg != "request" {
			continue
		}
		n++
		if !strings.Contains(line.Source.Function, "API).Serve") || !strings.HasSuffix(line.Source.File, "pipeline.go") {
			t.Errorf("the request line's source is %s (%s), want Serve's", line.Source.Function, line.Source.File)
		}
	}
	if n != 2 {
		t.Errorf("%d request lines, want 2:\n%s", n, logs.String())
	}
}

// The memory budgets show in the metrics: the journal's and the living
// shops' bytes, and the shops evicted to keep within theirs.
func TestMetricsOfBudgets(t *testing.T) {
	h := newServer(t, mock.Options{MaxShopBytes: 1})
	value := func(name string) float64 {
		t.Helper()
		for line := range strings.SplitSeq(string(get(t, h, "/__mock/metrics").body), "\n") {
			if v, ok := strings.CutPrefix(line, name+" "); ok {
				f, err := strconv.ParseFloat(v, 64)
				if err != nil {
					t.Fatal(err)
				}
				return f
			}
		}
		t.Fatalf("metrics lack %s", name)
		return 0
	}
	if j, e := value("replymock_journal_bytes"), value("replymock_shop_evictions_total"); j != 0 || e != 0 {
		t.Errorf("a new server: journal %v bytes, %v evictions", j, e)
	}
	get(t, h, "/api/v1/feedbacks?limit=1&search="+strings.Repeat("x", 100))
	if j := value("replymock_journal_bytes"); j < 100 {
		t.Errorf("journal bytes %v after a request with a 100-byte query", j)
	}
	// Every shop is over a budget of one byte: each new one evicts.
	for _, sid := range []string{"a", "b", "c"} {
		get(t, h, "/api/v1/feedbacks?limit=1", "X-Mock-Scenario", "demo-frozen", "X-Mock-Session", sid)
	}
	if e := value("replymock_shop_evictions_total"); e < 2 {
		t.Errorf("%v shops evicted with a budget of one byte and 3 shops", e)
	}
	if b := value("replymock_shop_bytes"); b > 1 {
		t.Errorf("the shops keep %v bytes over a budget of 1", b)
	}
}
