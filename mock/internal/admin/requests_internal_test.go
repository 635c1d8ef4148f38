package admin

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/replymock/replymock/mock/internal/journal"
	"github.com/replymock/replymock/mock/internal/shared"
	"github.com/replymock/replymock/mock/internal/wire"
)

// The listing is streamed, and its bytes are what wire.WriteJSON would have
// written for the whole answer.
func TestRequestsListStreamed(t *testing.T) {
	s := newTestServer(t, "default")
	for i := range 30 {
		req := httptest.NewRequest("GET", fmt.Sprintf("/api/v1/feedbacks?limit=%d&q=<b>é\"", i%5+1), nil)
		req.Header.Set(shared.HeaderSession, fmt.Sprintf("s%d", i%3))
		s.ServeHTTP(httptest.NewRecorder(), req)
	}
	for _, target := range []string{"/__mock/requests", "/__mock/requests?session=s1", "/__mock/requests?limit=4", "/__mock/requests?since=25", "/__mock/requests?path=/nope"} {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
		req := httptest.NewRequest("GET", target, nil)
		f := journal.Filter{}
		q := req.URL.Query()
		f.Session, f.Path = q.Get("session"), q.Get("path")
		f.Limit, _ = strconv.Atoi(q.Get("limit"))
		since, _ := strconv.Atoi(q.Get("since"))
		f.Since = int64(since)
		list := s.Requests(f)
		if list == nil {
			list = []journal.Entry{}
		}
		want, err := wire.MarshalJSON(wire.Envelope{Success: true, Data: map[string]any{"count": len(list), "requests": list}})
		if err != nil {
			t.Fatal(err)
		}
		if rec.Code != 200 || rec.Body.String() != string(want) {
			t.Errorf("GET %s: %d\n%s\nwant\n%s", target, rec.Code, truncate(rec.Body.Bytes(), 600), truncate(want, 600))
		}
		if cl := rec.Header().Get("Content-Length"); cl != "" {
			t.Errorf("GET %s: Content-Length %s: the answer was built whole", target, cl)
		}
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("HEAD", "/__mock/requests", nil))
	if rec.Code != 200 || rec.Body.Len() != 0 || rec.Header().Get("Content-Type") != wire.ContentTypeJSON {
		t.Errorf("HEAD /__mock/requests: %d, %d bytes, %q", rec.Code, rec.Body.Len(), rec.Header().Get("Content-Type"))
	}
}

func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return append(b[:n:n], "..."...)
	}
	return b
}

// peakWriter discards an answer, measuring the live heap (after a
// collection) every step bytes: the most the handler holds while writing.
type peakWriter struct {
	header  http.Header
	written int
	next    int
	step    int
	peak    uint64
}

func (w *peakWriter) Header() http.Header { return w.header }
func (w *peakWriter) WriteHeader(int)     {}
func (w *peakWriter) Write(b []byte) (int, error) {
	w.written += len(b)
	if w.written >= w.next {
		w.next += w.step
		w.peak = max(w.peak, liveHeap())
	}
	return len(b), nil
}

func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// fullJournal returns a server whose journal holds n entries of about 40
// KB each (a 32 KiB answer, a long query and headers).
func fullJournal(tb testing.TB, n int) *testServer {
	s := newTestServer(tb, "default")
	query := "&q=" + strings.Repeat("q", 4000)
	for i := range n {
		req := httptest.NewRequest("GET", fmt.Sprintf("/api/v1/feedbacks?limit=100&offset=%d%s", i%500, query), nil)
		req.Header.Set(shared.HeaderSession, fmt.Sprintf("s%d", i%10))
		req.Header.Set("X-Pad", strings.Repeat("p", 2000))
		s.ServeHTTP(httptest.NewRecorder(), req)
	}
	return s
}

// Listing a full journal holds little more than a reference per entry
// and one entry at a time, far less than the answer: the old listing,
// built whole, held the answer and a copy of every entry.
func TestRequestsListPeakMemory(t *testing.T) {
	const n = 400
	s := fullJournal(t, n)
	req := httptest.NewRequest("GET", "/__mock/requests", nil)
	w := &peakWriter{header: make(http.Header), step: 256 << 10}
	w.next = w.step
	base := liveHeap()
	s.ServeHTTP(w, req)
	if w.written < n*36_000 {
		t.Fatalf("the answer is %d bytes, want at least %d", w.written, n*36_000)
	}
	held := int64(w.peak) - int64(base)
	t.Logf("answer %d bytes; the handler held at most %d bytes more while writing it", w.written, held)
	if held > int64(w.written)/8 {
		t.Errorf("listing %d entries (%d bytes) held %d bytes: more than an eighth of the answer", n, w.written, held)
	}
}

// BenchmarkRequestsListFull lists a journal of 2,000 entries of about 40
// KB: B/op is what the listing allocates in all (each entry encoded, then
// garbage), answer-B/op the answer's size.
func BenchmarkRequestsListFull(b *testing.B) {
	s := fullJournal(b, 2000)
	req := httptest.NewRequest("GET", "/__mock/requests", nil)
	w := &peakWriter{header: make(http.Header), next: math.MaxInt}
	b.ReportAllocs()
	for b.Loop() {
		w.written = 0
		s.ServeHTTP(w, req)
	}
	b.ReportMetric(float64(w.written), "answer-B/op")
}

// Journal listings being written keep their entries alive, within
// journal.MaxListingBytes together: past it, a listing is refused with a 503 and
// Retry-After; a listing written (GET or HEAD), or whose client left,
// frees what it pinned.
func TestListingsPinBounded(t *testing.T) {
	s := newTestServer(t, "default")
	call := func(method, target string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, target, nil)
		req.Host = "127.0.0.1"
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		return w
	}
	for range 5 {
		call("GET", "/api/v1/feedbacks?limit=3")
	}
	for _, method := range []string{"GET", "HEAD"} {
		if w := call(method, "/__mock/requests"); w.Code != 200 {
			t.Fatalf("%s /__mock/requests: %d %s", method, w.Code, w.Body)
		}
		if n := s.State.Journals().Pinned(); n != 0 {
			t.Errorf("after a %s listing, %d bytes still pinned", method, n)
		}
	}
	// Another listing, being written slowly, holds nearly all of it.
	if !s.State.Journals().Pin(journal.MaxListingBytes - 10) {
		t.Fatal("a listing alone was refused")
	}
	w := call("GET", "/__mock/requests")
	if w.Code != 503 || w.Header().Get("Retry-After") != "1" || !strings.Contains(w.Body.String(), `"service_unavailable"`) {
		t.Errorf("over the budget: %d, Retry-After %q, %s", w.Code, w.Header().Get("Retry-After"), w.Body)
	}
	if w := call("GET", "/__mock/requests?session=nobody"); w.Code != 200 {
		t.Errorf("an empty listing pins nothing and fits: %d", w.Code)
	}
	s.State.Journals().Unpin(journal.MaxListingBytes - 10)
	if w := call("GET", "/__mock/requests"); w.Code != 200 {
		t.Errorf("after the other listing ended: %d", w.Code)
	}
	// A listing whose client is gone frees its bytes too.
	req := httptest.NewRequest("GET", "/__mock/requests", nil)
	req.Host = "127.0.0.1"
	func() {
		defer func() { recover() }()
		s.ServeHTTP(failingWriter{httptest.NewRecorder()}, req)
	}()
	if n := s.State.Journals().Pinned(); n != 0 {
		t.Errorf("after a client left, %d bytes still pinned", n)
	}
}

// failingWriter fails every write, as a connection whose client left.
type failingWriter struct{ *httptest.ResponseRecorder }

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("client gone") }
