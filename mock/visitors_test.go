package mock_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
)

// liveHeap is the heap's live bytes, after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// twoDayDemo is the demo scenario with o's limits, its first visitor
// there at its start and the clock moved two days on: its living shop
// has two days of arrivals (1,440).
func twoDayDemo(t testing.TB, o mock.Options) *mock.Server {
	t.Helper()
	clock := &fakeClock{t: time.Date(2027, 3, 1, 12, 0, 0, 0, time.UTC)}
	o.Scenario, o.Now = "demo", clock.now
	s := newServer(t, o)
	get(t, s, "/api/v1/feedbacks")
	clock.add(48 * time.Hour)
	var c countsData
	decodeOK(t, "counts", get(t, s, "/api/v1/feedbacks?counts_only=1"), &c)
	if c.Total != 1009+48*30 {
		t.Fatalf("the demo two days on: %d reviews, want its 1,009 and 1,440 arrivals", c.Total)
	}
	return s
}

// visit lists the reviews as a new visitor, session sid, does.
func visit(t testing.TB, s http.Handler, sid string) {
	req := httptest.NewRequest(http.MethodGet, "/api/v1/feedbacks", nil)
	req.Header.Set(mock.HeaderSession, sid)
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("visitor %s: %d %s", sid, rec.Code, rec.Body)
	}
}

// metric is the value of the gauge or counter name in s's metrics.
func metric(t testing.TB, s http.Handler, name string) int64 {
	t.Helper()
	body := get(t, s, "/__mock/metrics").body
	m := regexp.MustCompile(`(?m)^` + name + ` (\S+)$`).FindSubmatch(body)
	if m == nil {
		t.Fatalf("no %s in the metrics", name)
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		t.Fatal(err)
	}
	return int64(v)
}

// 10,000 visitors, each with a session of its own, list the reviews of a
// demo two days old: the server's heap stays under 200 MB, journals
// included (what they keep is within their own budget, 128 MiB); a
// visitor's session costs about 1.5 KB beyond its journal; the shops'
// memory does not move and no shop is evicted. Before the shops were
// shared, each new session wrote the two days of its own shop: 1,000
// of them took 1.9 GB.
func TestTenThousandVisitors(t *testing.T) {
	const visitors = 10_000
	for _, c := range []struct {
		name      string
		journal   int    // Options.JournalSize
		most      uint64 // the heap at most, with the visitors
		perVisit  uint64 // what a visitor adds at most
		costNamed string
	}{
		{"journaled", 0, 200 << 20, 20 << 10, "its session and journal"},
		{"sessions alone", -1, 40 << 20, 3 << 10, "its session"},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := liveHeap()
			s := twoDayDemo(t, mock.Options{MaxSessions: visitors, JournalSize: c.journal})
			shops := metric(t, s, "replymock_shop_bytes")
			started := liveHeap()
			for i := range visitors {
				visit(t, s, fmt.Sprintf("visitor-%05d", i))
			}
			after := liveHeap()
			per := (after - started) / visitors
			t.Logf("heap: %.1f MB with the demo two days old, %.1f MB with %d visitors: %d bytes a visitor (%s)",
				float64(started-before)/(1<<20), float64(after-before)/(1<<20), visitors, per, c.costNamed)
			if after-before > c.most {
				t.Errorf("with %d visitors, the server holds %d MB, over %d", visitors, (after-before)>>20, c.most>>20)
			}
			if per > c.perVisit {
				t.Errorf("a visitor costs %d bytes (%s), over %d", per, c.costNamed, c.perVisit)
			}
			if now := metric(t, s, "replymock_shop_bytes"); now != shops {
				t.Errorf("the visitors took the shops from %d to %d bytes", shops, now)
			}
			if n := metric(t, s, "replymock_shop_evictions_total"); n != 0 {
				t.Errorf("%d shops evicted", n)
			}
			runtime.KeepAlive(s)
		})
	}
}

// BenchmarkVisitor is a new visitor's first list of a demo two days old:
// its session made, the shared shop read, the page written and
// journaled. Measured on the 2-core machine: about 0.2 ms and 43 KB
// allocated a visitor (before the shops were shared: some 30 ms of CPU,
// its own two days of arrivals written).
func BenchmarkVisitor(b *testing.B) {
	s := twoDayDemo(b, mock.Options{MaxSessions: 1 << 20})
	i := 0
	for b.Loop() {
		i++
		visit(b, s, fmt.Sprintf("visitor-%d", i))
	}
}

// from sends a GET of the list to h as the client at remote (host:port)
// does.
func from(t testing.TB, h http.Handler, remote string, header ...string) response {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/api/v1/feedbacks?limit=1", nil)
	req.RemoteAddr = remote
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	checkContract(t, req, rec.Code, rec.Header(), rec.Body.Bytes())
	return response{rec.Code, rec.Header(), rec.Body.Bytes()}
}

// On the public listener, a client starts at most NewSessionsPerMinute
// sessions a minute: past it, a new X-Mock-Session answers 429 with
// Retry-After and a message that says what to do, and no session is
// made; its sessions, the default one and other clients go on; one
// more comes every minute/N. An IPv6 client is its /64. The full
// handler (the admin listener's, or the only one) is not bounded.
func TestVisitorsNewSessionsBounded(t *testing.T) {
	clock := &fakeClock{t: time.Date(2027, 3, 1, 12, 0, 0, 0, time.UTC)}
	s := newServer(t, mock.Options{Now: clock.now, NewSessionsPerMinute: 5})
	pub := s.APIHandler()
	const client = "203.0.113.7:40000"
	for i := range 5 {
		if r := from(t, pub, client, mock.HeaderSession, fmt.Sprintf("v%d", i)); r.status != http.StatusOK {
			t.Fatalf("new session %d of 5: %d %s", i+1, r.status, r.body)
		}
	}
	r := from(t, pub, client, mock.HeaderSession, "v5")
	checkError(t, "the sixth new session in a minute", r, http.StatusTooManyRequests, "rate_limited", mock.HeaderSession)
	if got := r.header.Get("Retry-After"); got != "12" {
		t.Errorf("Retry-After %q, want 12 (a minute / 5)", got)
	}
	if !strings.Contains(string(r.body), "at most 5 a minute") || !strings.Contains(string(r.body), "--max-new-sessions") {
		t.Errorf("the 429 does not say the bound and what to do: %s", r.body)
	}
	for what, h := range map[string][]string{
		"a session it has":             {mock.HeaderSession, "v4"},
		"the default session":          nil,
		"another client":               {mock.HeaderSession, "x0"},
		"the full handler, for anyone": {mock.HeaderSession, "w0"},
	} {
		remote, handler := client, pub
		switch what {
		case "another client":
			remote = "198.51.100.2:40000"
		case "the full handler, for anyone":
			handler = s
		}
		if r := from(t, handler, remote, h...); r.status != http.StatusOK {
			t.Errorf("%s: %d %s", what, r.status, r.body)
		}
	}
	// v5 was refused, not made: it is still new, and counts when it comes.
	clock.add(12 * time.Second)
	if r := from(t, pub, client, mock.HeaderSession, "v5"); r.status != http.StatusOK {
		t.Errorf("12 s on: %d %s", r.status, r.body)
	}
	if r := from(t, pub, client, mock.HeaderSession, "v6"); r.status != http.StatusTooManyRequests {
		t.Errorf("the one more of 12 s is taken, yet another new session: %d", r.status)
	}
	// An IPv6 client is its /64: another address in it is the same client.
	for i := range 6 {
		want := http.StatusOK
		if i == 5 {
			want = http.StatusTooManyRequests
		}
		addr := fmt.Sprintf("[2001:db8:1:2::%x]:40000", i+1)
		if r := from(t, pub, addr, mock.HeaderSession, fmt.Sprintf("six-%d", i)); r.status != want {
			t.Errorf("IPv6 %s, its /64's new session %d: %d, want %d", addr, i+1, r.status, want)
		}
	}
	// Bounded by none.
	free := newServer(t, mock.Options{Now: clock.now, NewSessionsPerMinute: -1})
	for i := range 100 {
		if r := from(t, free.APIHandler(), client, mock.HeaderSession, fmt.Sprintf("f%d", i)); r.status != http.StatusOK {
			t.Fatalf("unbounded, new session %d: %d", i, r.status)
		}
	}
}

// On the public listener, X-Mock-Scenario names only a scenario whose
// data is built already, or one of PublicScenarios: big-shop, not built,
// answers 403 with the scenarios open, and stays unbuilt; a scenario on
// the default one's data is open; the full handler builds any. Named in
// PublicScenarios, a scenario is open though not built; "*" opens all.
func TestVisitorsScenarios(t *testing.T) {
	s := newServer(t, mock.Options{})
	pub := s.APIHandler()
	const client = "203.0.113.7:40000"
	r := from(t, pub, client, mock.HeaderScenario, "big-shop")
	checkError(t, "big-shop on the public listener", r, http.StatusForbidden, "forbidden", mock.HeaderScenario)
	if msg := string(r.body); !strings.Contains(msg, "not built") || !strings.Contains(msg, "default") || !strings.Contains(msg, "--public-scenarios") {
		t.Errorf("the 403 does not say why and what is open: %s", r.body)
	}
	if r := from(t, pub, client, mock.HeaderScenario, "slow"); r.status != http.StatusOK {
		t.Errorf("slow, on the default scenario's data: %d %s", r.status, r.body)
	}
	checkError(t, "no such scenario", from(t, pub, client, mock.HeaderScenario, "nope"), http.StatusBadRequest, "invalid_parameter", mock.HeaderScenario)
	if r := from(t, s, client, mock.HeaderScenario, "en-shop"); r.status != http.StatusOK {
		t.Fatalf("en-shop through the full handler: %d", r.status)
	}
	if r := from(t, pub, client, mock.HeaderScenario, "en-shop"); r.status != http.StatusOK {
		t.Errorf("en-shop, once built: %d %s", r.status, r.body)
	}

	listed := newServer(t, mock.Options{PublicScenarios: []string{"demo", "flaky"}})
	for name, want := range map[string]int{"demo": http.StatusOK, "en-shop": http.StatusForbidden, "default": http.StatusForbidden} {
		if r := from(t, listed.APIHandler(), client, mock.HeaderScenario, name); r.status != want {
			t.Errorf("listed demo and flaky: %s answers %d, want %d", name, r.status, want)
		}
	}
	if r := from(t, listed.APIHandler(), client); r.status != http.StatusOK {
		t.Errorf("without the header, the active scenario: %d", r.status)
	}
	all := newServer(t, mock.Options{PublicScenarios: []string{"*"}})
	if r := from(t, all.APIHandler(), client, mock.HeaderScenario, "en-shop"); r.status != http.StatusOK {
		t.Errorf("with *, en-shop: %d", r.status)
	}
	if _, err := mock.New(mock.Options{PublicScenarios: []string{"nope"}}); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("an unknown public scenario: %v", err)
	}
}
