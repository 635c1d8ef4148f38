package admin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/replymock/replymock/mock/internal/journal"
	"github.com/replymock/replymock/mock/internal/shared"
)

// apiCall sends one API request in session sid.
func apiCall(s *testServer, sid, target string) {
	req := httptest.NewRequest("GET", target, nil)
	req.Header.Set(shared.HeaderSession, sid)
	s.ServeHTTP(httptest.NewRecorder(), req)
}

// pending is an admin request being served in a goroutine of its own.
type pending struct {
	rec    *httptest.ResponseRecorder
	done   chan struct{}
	cancel context.CancelFunc
}

// start serves target in a goroutine, with a context the test can cancel.
func start(s *testServer, target string) *pending { return startFrom(s, "192.0.2.1:1234", target) }

// startFrom is start for a client at remote address addr.
func startFrom(s *testServer, addr, target string) *pending {
	ctx, cancel := context.WithCancel(context.Background())
	p := &pending{rec: httptest.NewRecorder(), done: make(chan struct{}), cancel: cancel}
	req := httptest.NewRequest("GET", target, nil).WithContext(ctx)
	req.RemoteAddr = addr
	go func() {
		defer close(p.done)
		s.ServeHTTP(p.rec, req)
	}()
	return p
}

// wait returns once the request is answered; the test fails if it takes
// more than 10 s.
func (p *pending) wait(t *testing.T, what string) *httptest.ResponseRecorder {
	t.Helper()
	select {
	case <-p.done:
		return p.rec
	case <-time.After(10 * time.Second):
		p.cancel()
		t.Fatalf("%s: no answer after 10 s", what)
		return nil
	}
}

// eventually polls cond until it holds, failing the test after 10 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after 10 s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

type journalList struct {
	Count    int             `json:"count"`
	Requests []journal.Entry `json:"requests"`
}

func decodeList(t *testing.T, rec *httptest.ResponseRecorder) journalList {
	t.Helper()
	var env struct {
		Data journalList `json:"data"`
	}
	if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &env) != nil {
		t.Fatalf("status %d, body %s", rec.Code, rec.Body.Bytes())
	}
	return env.Data
}

// A long poll answers once a matching entry comes, not for one that does
// not match (another path, another session), and lists only what matches.
func TestLongPollWakesOnMatch(t *testing.T) {
	s := newTestServer(t, "default")
	apiCall(s, "lp", "/api/v1/settings/ai") // seq 1: before since
	p := start(s, "/__mock/requests?session=lp&since=1&path=/api/v1/feedbacks&query.answered=0&wait=20s")
	eventually(t, "the request waits", func() bool { return s.State.Journals().Waiters() == 1 })
	apiCall(s, "lp", "/api/v1/settings/ai")             // another path
	apiCall(s, "lp", "/api/v1/feedbacks?answered=1")    // another value
	apiCall(s, "other", "/api/v1/feedbacks?answered=0") // another session
	select {
	case <-p.done:
		t.Fatalf("answered before a matching entry came: %s", p.rec.Body.Bytes())
	case <-time.After(100 * time.Millisecond):
	}
	if n := s.State.Journals().Waiters(); n != 1 {
		t.Errorf("%d waiting, want 1", n)
	}
	apiCall(s, "lp", "/api/v1/feedbacks?answered=0")
	l := decodeList(t, p.wait(t, "long poll"))
	if l.Count != 1 || l.Requests[0].Query != "answered=0" || l.Requests[0].Session != "lp" {
		t.Errorf("answer %+v, want the one matching entry", l)
	}
	eventually(t, "the waiter is gone", func() bool { return s.State.Journals().Waiters() == 0 })

	// A match already there answers at once, without waiting.
	p = start(s, "/__mock/requests?session=lp&path=/api/v1/feedbacks&wait=30s")
	if l := decodeList(t, p.wait(t, "long poll")); l.Count != 2 {
		t.Errorf("with matches already there: %d entries, want 2", l.Count)
	}
}

// A long poll that sees nothing answers an empty list when its wait ends.
func TestLongPollDeadline(t *testing.T) {
	s := newTestServer(t, "default")
	apiCall(s, "dl", "/api/v1/feedbacks")
	began := time.Now()
	p := start(s, "/__mock/requests?session=dl&since=1&wait=200ms")
	rec := p.wait(t, "long poll")
	if took := time.Since(began); took < 200*time.Millisecond {
		t.Errorf("answered after %v, before its wait of 200ms ended", took)
	}
	if rec.Body.String() != `{"success":true,"data":{"count":0,"requests":[]}}` {
		t.Errorf("at the deadline: %s, want an empty list", rec.Body.Bytes())
	}
	if n := s.State.Journals().Waiters(); n != 0 {
		t.Errorf("%d still waiting", n)
	}
	// Whole seconds work too, and so does 0.
	p = start(s, "/__mock/requests?session=dl&since=1&wait=0")
	if l := decodeList(t, p.wait(t, "wait=0")); l.Count != 0 {
		t.Errorf("wait=0: %+v", l)
	}
}

// Verify with wait answers once min entries match, or 409 at the end of
// the wait.
func TestVerifyWait(t *testing.T) {
	s := newTestServer(t, "default")
	p := start(s, "/__mock/verify?session=vw&method=GET&min=2&wait=20s")
	eventually(t, "the verification waits", func() bool { return s.State.Journals().Waiters() == 1 })
	apiCall(s, "vw", "/api/v1/feedbacks")
	// That the waiter, having looked at this one, goes on waiting is
	// proven where its wakes can be seen: journal's TestAwaitCountsAcrossWakes.
	select {
	case <-p.done:
		t.Fatalf("answered after one of two: %s", p.rec.Body.Bytes())
	default:
	}
	apiCall(s, "vw", "/api/v1/settings/ai")
	rec := p.wait(t, "verify")
	if rec.Code != 200 || rec.Body.String() != `{"success":true,"data":{"matched":2,"want":"at least 2","seqs":[1,2],"incomplete":false}}` {
		t.Errorf("verify: %d %s", rec.Code, rec.Body.Bytes())
	}
	p = start(s, "/__mock/verify?session=vw&method=PATCH&wait=100ms")
	if rec := p.wait(t, "verify"); rec.Code != 409 {
		t.Errorf("nothing came: %d %s, want 409", rec.Code, rec.Body.Bytes())
	}
	// count=0 has nothing to wait for.
	p = start(s, "/__mock/verify?session=vw&method=PATCH&count=0&wait=30s")
	if rec := p.wait(t, "verify"); rec.Code != 200 {
		t.Errorf("count=0: %d %s, want 200 at once", rec.Code, rec.Body.Bytes())
	}
}

// A client that leaves frees its place; past journal.MaxWaiters waiting, a
// request is answered 503 with Retry-After, and nothing is left behind:
// no goroutine, no waiter (that the next entry closes the wake channel
// they leave: journal's TestAwaitCapAndCancel).
func TestLongPollCancelCapAndLeaks(t *testing.T) {
	s := newTestServer(t, "default")
	before := runtime.NumGoroutine()
	for round := range 3 {
		var ps []*pending
		for i := range journal.MaxWaiters { // from eight clients, each under its own bound
			ps = append(ps, startFrom(s, fmt.Sprintf("192.0.2.%d:1234", i%8), fmt.Sprintf("/__mock/requests?session=w%d&wait=30s", i%7)))
		}
		eventually(t, "all wait", func() bool { return s.State.Journals().Waiters() == journal.MaxWaiters })
		over := start(s, "/__mock/verify?session=x&wait=30s")
		rec := over.wait(t, "one too many")
		if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "1" {
			t.Errorf("round %d: past the cap: %d, Retry-After %q; %s", round, rec.Code, rec.Header().Get("Retry-After"), rec.Body.Bytes())
		}
		// Without wait, a request needs no place.
		if p := start(s, "/__mock/requests?session=x"); p.wait(t, "no wait").Code != 200 {
			t.Errorf("round %d: a request without wait was refused", round)
		}
		ps[0].cancel()
		ps[0].wait(t, "cancelled")
		eventually(t, "a place is free", func() bool { return s.State.Journals().Waiters() == journal.MaxWaiters-1 })
		last := startFrom(s, "192.0.2.0:1234", "/__mock/requests?session=w0&wait=30s")
		eventually(t, "the freed place is taken", func() bool { return s.State.Journals().Waiters() == journal.MaxWaiters })
		for _, p := range append(ps[1:], last) {
			p.cancel()
		}
		for _, p := range append(ps, last) {
			p.wait(t, "cancelled")
		}
		if n := s.State.Journals().Waiters(); n != 0 {
			t.Fatalf("round %d: %d waiters left after every client left", round, n)
		}
	}
	eventually(t, fmt.Sprintf("goroutines back to %d", before), func() bool { return runtime.NumGoroutine() <= before })
}

// One client, whatever sessions it names, waits with at most
// journal.MaxClientWaiters requests: past them it gets a 503, while a CI
// job from another address still waits and gets its entry. IPv6
// addresses of one /64 are one client.
func TestLongPollPerClient(t *testing.T) {
	s := newTestServer(t, "default")
	for _, c := range []struct{ name, first, more, other string }{
		{"IPv4", "203.0.113.9:%d", "203.0.113.9:%d", "198.51.100.4:5000"},
		{"IPv6", "[2001:db8:1:2::1]:%d", "[2001:db8:1:2::ffff]:%d", "[2001:db8:1:3::1]:5000"},
	} {
		var ps []*pending
		for i := range journal.MaxClientWaiters {
			ps = append(ps, startFrom(s, fmt.Sprintf(c.first, 40000+i), fmt.Sprintf("/__mock/verify?session=page-%d&path=/never&wait=30s", i)))
		}
		eventually(t, c.name+": the page's fetches wait", func() bool { return s.State.Journals().Waiters() == journal.MaxClientWaiters })
		over := startFrom(s, fmt.Sprintf(c.more, 50000), "/__mock/verify?session=another&path=/never&wait=30s").wait(t, c.name+": one more")
		if over.Code != http.StatusServiceUnavailable || over.Header().Get("Retry-After") != "1" || !strings.Contains(over.Body.String(), "from this client") {
			t.Errorf("%s: the client past its bound: %d, Retry-After %q: %s", c.name, over.Code, over.Header().Get("Retry-After"), over.Body.Bytes())
		}
		ci := startFrom(s, c.other, "/__mock/verify?session=ci&method=GET&wait=30s")
		eventually(t, c.name+": the CI job waits", func() bool { return s.State.Journals().Waiters() == journal.MaxClientWaiters+1 })
		apiCall(s, "ci", "/api/v1/feedbacks?limit=1")
		if rec := ci.wait(t, c.name+": the CI job's verify"); rec.Code != http.StatusOK {
			t.Errorf("%s: the CI job's verify: %d %s", c.name, rec.Code, rec.Body.Bytes())
		}
		for _, p := range ps {
			p.cancel()
			p.wait(t, "cancelled")
		}
		s.State.Journals().Clear(journal.AllSessions)
	}
}

// Recorders and waiters in many sessions at once: each waiter gets its
// entry, whatever the interleaving (run with -race).
func TestLongPollConcurrent(t *testing.T) {
	s := newTestServer(t, "default")
	const n = 40
	var wg sync.WaitGroup
	errs := make(chan error, 3*n)
	for i := range n {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			f := journal.Filter{Session: fmt.Sprintf("c%d", i%5), Query: map[string]string{"n": fmt.Sprint(i)}}
			if i%2 == 0 {
				f.Session = ""
			}
			got, err := s.WaitRequests(ctx, f)
			if err != nil || len(got) != 1 || got[0].Query != fmt.Sprintf("n=%d", i) {
				errs <- fmt.Errorf("waiter %d: %v, %d entries", i, err, len(got))
			}
		})
		wg.Go(func() {
			for j := range 5 { // noise first, then the entry waited for
				apiCall(s, fmt.Sprintf("c%d", (i+j)%5), fmt.Sprintf("/api/v1/feedbacks?noise=%d", j))
			}
			apiCall(s, fmt.Sprintf("c%d", i%5), fmt.Sprintf("/api/v1/feedbacks?n=%d", i))
		})
		wg.Go(func() {
			p := start(s, fmt.Sprintf("/__mock/verify?session=c%d&query.n=%d&count=1&wait=20s", i%5, i))
			select {
			case <-p.done:
				if p.rec.Code != 200 {
					errs <- fmt.Errorf("verify %d: %d %s", i, p.rec.Code, p.rec.Body.Bytes())
				}
			case <-time.After(20 * time.Second):
				p.cancel()
				errs <- fmt.Errorf("verify %d: no answer", i)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := s.State.Journals().Waiters(); n != 0 {
		t.Errorf("%d waiters left", n)
	}
}

// WaitRequests ends with its context, and refuses an invalid pattern.
func TestWaitRequestsErrors(t *testing.T) {
	s := newTestServer(t, "default")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if got, err := s.WaitRequests(ctx, journal.Filter{Path: "/api/v1/feedbacks"}); err != context.DeadlineExceeded || got != nil {
		t.Errorf("nothing came: %v, %v; want the deadline's error", got, err)
	}
	if _, err := s.WaitRequests(context.Background(), journal.Filter{Body: map[string]string{"a..b": "1"}}); err == nil {
		t.Error("an invalid pattern: no error")
	}
}
