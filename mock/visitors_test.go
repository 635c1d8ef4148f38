package mock_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"strconv"
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
