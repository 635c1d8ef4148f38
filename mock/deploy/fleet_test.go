package deploy_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/mock/internal/fleettest"
	"github.com/replymock/replymock/mock/internal/redistest"
	"github.com/replymock/replymock/mock/internal/scenariotest"
)

// Both variants of the recipe load in nginx (nginx -t) as the tests run
// them.
func TestNginxRecipeLoads(t *testing.T) {
	needTools(t, "nginx")
	for _, variant := range []string{"round-robin", "session-affinity"} {
		dir := t.TempDir()
		conf := renderNginx(t, dir, variant, fleettest.FreePort(t), []string{"127.0.0.1:18081", "127.0.0.1:18082", "127.0.0.1:18083"})
		if err := fleettest.NginxConfigTest(dir, conf); err != nil {
			t.Errorf("%s: %v", variant, err)
		}
	}
}

// One replica behind the recipe: the probe's rules hold through nginx,
// writes included; the Host check still refuses a name it does not
// serve; a body over the API's limit gets the replica's 413, not
// nginx's; with the replica gone, nginx answers the API's envelope.
func TestProbeThroughNginx(t *testing.T) {
	needTools(t, "nginx")
	f := startFleet(t, "round-robin", 1)
	runProbe(t, f.url)

	req, _ := http.NewRequest(http.MethodGet, f.url+"/api/v1/feedbacks", nil)
	req.Host = "rebound.example.test"
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || resp.Header.Get("X-Upstream-Addr") == "" {
		t.Errorf("Host rebound.example.test through nginx: %d from %q, want the replica's 403", resp.StatusCode, resp.Header.Get("X-Upstream-Addr"))
	}

	big := `{"feedback":[{"rating":5,"signature":"` + strings.Repeat("x", 3<<19) + `"}]}`
	if a := do(t, http.MethodPatch, f.url+"/api/v1/settings/ai", "", big); a.status != http.StatusRequestEntityTooLarge ||
		a.upstream == "" || !strings.Contains(string(a.body), `"payload_too_large"`) {
		t.Errorf("a 1.5 MiB PATCH: %d from %q: %.200s; want the replica's 413 envelope", a.status, a.upstream, a.body)
	}

	// A body over nginx's bound: its own 413, as the API's envelope,
	// answered on the announced length, before the body is sent.
	conn, err := net.Dial("tcp", strings.TrimPrefix(f.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "PATCH /api/v1/settings/ai HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", 100<<20)
	resp, err = http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || resp.Header.Get("Content-Type") != "application/json" || !strings.Contains(string(body), `"code":"payload_too_large"`) {
		t.Errorf("a 100 MiB body: %d %s %s, want nginx's 413 as the envelope", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}

	// A long poll passes through: it waits, then answers with the
	// request it waited for.
	poll := make(chan answer, 1)
	go func() { poll <- get(f.url + "/__mock/requests?session=lp&path=/api/v1/feedbacks&wait=20s") }()
	do(t, http.MethodGet, f.url+"/api/v1/feedbacks?limit=1", "lp", "")
	if n := requestCount(t, <-poll); n != 1 {
		t.Errorf("the long poll through nginx answered %d requests, want 1", n)
	}

	f.replicas[0].Stop()
	a := do(t, http.MethodGet, f.url+"/api/v1/feedbacks", "", "")
	var env struct {
		Success *bool `json:"success"`
		Error   struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(a.body, &env); a.status != http.StatusBadGateway || err != nil || env.Success == nil || *env.Success || env.Error.Code != "bad_gateway" {
		t.Errorf("no replica: %d %s (%v), want 502 with the envelope's bad_gateway", a.status, a.body, err)
	}
}

// With affinity (the consistent hash on X-Mock-Session), a session's
// requests all land on one replica, which sees its writes even without a
// shared store, and sessions spread over the replicas.
func TestAffinityKeepsASessionOnOneReplica(t *testing.T) {
	needTools(t, "nginx")
	f := startFleet(t, "session-affinity", 3)
	used := map[string]bool{}
	for i := range 12 {
		session := fmt.Sprintf("affinity-%d", i)
		want := fmt.Sprintf("v%d", i)
		p := do(t, http.MethodPatch, f.url+"/api/v1/settings/ai", session, `{"feedback":[{"rating":5,"signature":"`+want+`"}]}`)
		if got := signature(t, p); got != want {
			t.Fatalf("PATCH answered signature %q, want %q", got, want)
		}
		used[p.upstream] = true
		for range 4 {
			g := do(t, http.MethodGet, f.url+"/api/v1/settings/ai", session, "")
			if g.upstream != p.upstream {
				t.Errorf("session %s: PATCH on %s, GET on %s", session, p.upstream, g.upstream)
			}
			if got := signature(t, g); got != want {
				t.Errorf("session %s: GET answered signature %q after a PATCH to %q", session, got, want)
			}
		}
	}
	if len(used) < 2 {
		t.Errorf("12 sessions all hashed to %v: affinity spreads none", used)
	}
}

// The fleet of the recipe with a shared store (round robin, no affinity):
// three replicas on one redis-server behind nginx. Each check needs the
// replicas to share their state (--store).
func TestFleetRoundRobin(t *testing.T) {
	needTools(t, "nginx", "redis-server")
	redis := redistest.Start(t)
	f := startFleet(t, "round-robin", 3, "--store", redis.URL())

	t.Run("spread", func(t *testing.T) {
		seen := map[string]bool{}
		for range 9 {
			a := do(t, http.MethodGet, f.url+"/api/v1/feedbacks?limit=1", "", "")
			if a.status != http.StatusOK {
				t.Fatalf("GET: %d %s", a.status, a.body)
			}
			seen[a.upstream] = true
		}
		if len(seen) != 3 {
			t.Errorf("9 requests reached %d replicas (%v), want 3", len(seen), seen)
		}
	})
	t.Run("read your writes", func(t *testing.T) { readYourWrites(t, f) })
	t.Run("probe", func(t *testing.T) { runProbe(t, f.url) })
	t.Run("fault counted fleet-wide", func(t *testing.T) { faultCount(t, f) })
	t.Run("journal long poll", func(t *testing.T) { journalWait(t, f) })
	t.Run("health", func(t *testing.T) {
		for _, r := range f.replicas {
			var env struct {
				Data struct {
					Status string `json:"status"`
					Store  struct {
						Kind  string `json:"kind"`
						State string `json:"state"`
					} `json:"store"`
				} `json:"data"`
			}
			a := do(t, http.MethodGet, r.URL()+"/__mock/health", "", "")
			if err := json.Unmarshal(a.body, &env); a.status != http.StatusOK || err != nil ||
				env.Data.Status != "ok" || env.Data.Store.Kind != "redis" || env.Data.Store.State != "ok" {
				t.Errorf("%s: /__mock/health answered %d %s (%v), want ok on the redis store", r.Name, a.status, a.body, err)
			}
		}
	})
	// Last: a dropped connection counts against its replica in nginx's
	// passive checks.
	t.Run("scenarios", func(t *testing.T) { shippedScenarios(t, f) })
}

// shippedScenarios runs every shipped scenario's checks (the same as
// mock's TestShippedScenariosBehave runs in process) through the
// balancer, round robin: each request picks its scenario with
// X-Mock-Scenario, in sessions of the scenario's own. A check that
// sends several requests sends them to several replicas, which must
// answer as one server would: a fault's first two answers, a rate
// limit's window, a living shop's clock are the fleet's.
func shippedScenarios(t *testing.T, f *fleet) {
	rec := &upstreams{seen: map[string]map[string]int{}}
	c := &http.Client{Timeout: client.Timeout, Transport: rec}
	scenariotest.Run(t, func(t *testing.T, name string) scenariotest.Target {
		return &scenariotest.Remote{URL: f.url, Scenario: name, Session: "scenario-" + name,
			Balancer: true, Margin: 200 * time.Millisecond, Client: c}
	})
	all := map[string]bool{}
	for name, by := range rec.seen {
		n := 0
		for addr, k := range by {
			all[addr] = true
			n += k
		}
		if n >= 3 && len(by) < 2 {
			t.Errorf("scenario %s: its %d requests all reached %v", name, n, by)
		}
	}
	if len(all) != len(f.replicas) {
		t.Errorf("the scenarios' requests reached %v, want each of the %d replicas", all, len(f.replicas))
	}
}

// upstreams counts, by scenario, the replicas that answered
// (X-Upstream-Addr) the requests sent through it.
type upstreams struct {
	mu   sync.Mutex
	seen map[string]map[string]int // scenario: replica: requests
}

func (u *upstreams) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err == nil && resp.Header.Get("X-Upstream-Addr") != "" {
		u.mu.Lock()
		defer u.mu.Unlock()
		name := req.Header.Get(mock.HeaderScenario)
		if u.seen[name] == nil {
			u.seen[name] = map[string]int{}
		}
		u.seen[name][resp.Header.Get("X-Upstream-Addr")]++
	}
	return resp, err
}

// readYourWrites PATCHes the settings through the balancer, then reads
// them back: each GET, on whichever replica, sees the PATCH it follows,
// and the GETs land on replicas other than the PATCH's.
func readYourWrites(t *testing.T, f *fleet) {
	for _, session := range []string{"", "ryw"} {
		elsewhere := 0
		for i := range 6 {
			want := fmt.Sprintf("ryw-%q-%d", session, i)
			p := do(t, http.MethodPatch, f.url+"/api/v1/settings/ai", session, `{"feedback":[{"rating":5,"signature":`+fmt.Sprintf("%q", want)+`}]}`)
			if got := signature(t, p); got != want {
				t.Fatalf("PATCH answered signature %q, want %q", got, want)
			}
			for range 3 {
				g := do(t, http.MethodGet, f.url+"/api/v1/settings/ai", session, "")
				if got := signature(t, g); got != want {
					t.Errorf("session %q: GET on %s answered signature %q after a PATCH on %s to %q", session, g.upstream, got, p.upstream, want)
				}
				if g.upstream != p.upstream {
					elsewhere++
				}
			}
		}
		if elsewhere == 0 {
			t.Errorf("session %q: every GET landed on its PATCH's replica: round robin spread nothing", session)
		}
	}
}

// faultCount adds a fault limited to 3 answers for a session and sends 6
// requests round robin: the first 3 fail, each on another replica, and
// the next 3 pass. (Replicas that each kept their own faults would fail
// only those that reach the replica the fault was added on.)
func faultCount(t *testing.T, f *fleet) {
	a := do(t, http.MethodPost, f.url+"/__mock/faults?session=faults", "", `{"path":"/feedbacks","times":3,"error":{"status":503}}`)
	if a.status != http.StatusCreated {
		t.Fatalf("POST /__mock/faults: %d %s", a.status, a.body)
	}
	var statuses []int
	failedOn := map[string]bool{}
	for range 6 {
		a := do(t, http.MethodGet, f.url+"/api/v1/feedbacks?limit=1", "faults", "")
		statuses = append(statuses, a.status)
		if a.status == http.StatusServiceUnavailable {
			failedOn[a.upstream] = true
		}
	}
	if want := []int{503, 503, 503, 200, 200, 200}; !slices.Equal(statuses, want) || len(failedOn) != 3 {
		t.Errorf("a fault of 3 answers: statuses %v, failed on %d replicas; want %v, on 3", statuses, len(failedOn), want)
	}
}

// journalWait holds a long poll of the journal while requests go round
// robin; then the journal, read on each replica, holds every request the
// fleet served.
func journalWait(t *testing.T, f *fleet) {
	got := make(chan answer, 1)
	go func() { got <- get(f.url + "/__mock/requests?session=poll&path=/api/v1/feedbacks&wait=20s") }()
	for range 3 {
		do(t, http.MethodGet, f.url+"/api/v1/feedbacks?limit=1", "poll", "")
	}
	a := <-got
	if n := requestCount(t, a); n < 1 {
		t.Errorf("the long poll on %s answered %d requests, want at least 1", a.upstream, n)
	}
	for range 3 { // round robin: once on each replica
		a := do(t, http.MethodGet, f.url+"/__mock/requests?session=poll&path=/api/v1/feedbacks", "", "")
		if n := requestCount(t, a); n != 3 {
			t.Errorf("the journal on %s lists %d of the 3 requests served", a.upstream, n)
		}
	}
}

// requestCount is the count of a GET /__mock/requests answer.
func requestCount(t *testing.T, a answer) int {
	t.Helper()
	var env struct {
		Data struct {
			Count int `json:"count"`
		} `json:"data"`
	}
	if err := json.Unmarshal(a.body, &env); a.status != http.StatusOK || err != nil {
		t.Fatalf("GET /__mock/requests on %s: %d %.300s (%v)", a.upstream, a.status, a.body, err)
	}
	return env.Data.Count
}

// The recipe's bounds against the server's: nginx takes every body a
// replica takes (so the replica answers its own 413), waits longer than
// the longest long poll and injected delay with the replica's write
// timeout's margin (MaxLatency and 30 s), and sends no request twice.
func TestNginxRecipeBounds(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("nginx", "replymock-proxy.conf"))
	if err != nil {
		t.Fatal(err)
	}
	conf := string(b)
	directive := func(name, unit string) int64 {
		m := regexp.MustCompile(`(?m)^\s*` + name + `\s+(\d+)` + unit + `;`).FindStringSubmatch(conf)
		if m == nil {
			t.Fatalf("replymock-proxy.conf: no %s in %s", name, unit)
		}
		n, _ := strconv.ParseInt(m[1], 10, 64)
		return n
	}
	if body := directive("client_max_body_size", "m") << 20; body < max(mock.MaxBodyBytes, mock.MaxSeedBodyBytes, mock.MaxSnapshotBytes) {
		t.Errorf("client_max_body_size %d bytes: under the server's largest body (%d, %d, %d)", body, mock.MaxBodyBytes, mock.MaxSeedBodyBytes, mock.MaxSnapshotBytes)
	}
	read := time.Duration(directive("proxy_read_timeout", "s")) * time.Second
	if read <= mock.MaxWait || read <= mock.MaxLatency+30*time.Second {
		t.Errorf("proxy_read_timeout %s: not over the longest wait (%s) and delay with its answer (%s)", read, mock.MaxWait, mock.MaxLatency+30*time.Second)
	}
	if !regexp.MustCompile(`(?m)^\s*proxy_next_upstream off;`).MatchString(conf) {
		t.Error("replymock-proxy.conf: proxy_next_upstream is not off: a request may go to a second replica")
	}
}

// get is a GET for another goroutine than the test's: a failure is a
// status of -1.
func get(url string) answer {
	a := answer{status: -1}
	if resp, err := client.Get(url); err == nil {
		a.status, a.upstream = resp.StatusCode, resp.Header.Get("X-Upstream-Addr")
		a.body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	return a
}
