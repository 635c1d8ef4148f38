package mock_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/redis/rueidis"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/mock/internal/redistest"
)

// commandCalls is how many times Redis ran each command since it
// started or since CONFIG RESETSTAT (INFO commandstats), by name.
func commandCalls(t *testing.T, c rueidis.Client) map[string]int {
	t.Helper()
	info, err := c.Do(context.Background(), c.B().Info().Section("commandstats").Build()).ToString()
	if err != nil {
		t.Fatalf("INFO commandstats: %v", err)
	}
	return redistest.CommandCalls(info)
}

// redisClient is a client of rs for the test to look with.
func redisClient(t *testing.T, rs *redistest.Server) rueidis.Client {
	t.Helper()
	c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{rs.Addr()}, DisableCache: true, ForceSingleClient: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// TestFleetReadsPayOneExchange: a read of a session whose copy the
// replica holds is served from it at once, and checked with its journal
// entry, in the one exchange the entry makes anyway: no versions read
// before it. A read from a copy another replica's write made old, or
// that meets a fault the copy did not know, is served again from the
// fleet's state; the journal keeps it once, with the answer sent.
func TestFleetReadsPayOneExchange(t *testing.T) {
	rs, ss := fleet(t, 2, mock.Options{})
	a, b := ss[0], ss[1]
	c := redisClient(t, rs)
	sameOn(t, "a first read on each", fleetList, "r1", a, b)

	before := commandCalls(t, c)
	const n = 40
	for i := range n {
		if r := raw(b, http.MethodGet, fleetList, "", mock.HeaderSession, "r1"); r.status != 200 {
			t.Fatalf("read %d: %d %s", i, r.status, r.body)
		}
	}
	after := commandCalls(t, c)
	if got := after["mget"] - before["mget"]; got != 0 {
		t.Errorf("%d reads of a session the replica holds read versions %d times before serving, want 0", n, got)
	}
	if got := after["evalsha"] + after["eval"] - before["evalsha"] - before["eval"]; got < n || got > n+1 {
		t.Errorf("%d reads ran %d scripts, want one journal step each", n, got)
	}

	// A write on a: b's copy of r1 is old, and its read is served again.
	if r := raw(a, http.MethodPatch, "/api/v1/settings/ai", `{"feedback":[{"rating":2,"signature":"moved"}]}`, mock.HeaderSession, "r1"); r.status != 200 {
		t.Fatalf("PATCH: %d %s", r.status, r.body)
	}
	r := raw(b, http.MethodGet, "/api/v1/settings/ai", "", mock.HeaderSession, "r1", mock.HeaderRequestID, "read-after-write")
	if r.status != 200 || !strings.Contains(string(r.body), `"moved"`) {
		t.Fatalf("a read on b after a's write: %d %s", r.status, r.body)
	}
	if got := r.header.Values(mock.HeaderRequestID); len(got) != 1 || got[0] != "read-after-write" {
		t.Errorf("the answer served again names the request %q, want it once", got)
	}
	if got := r.header.Values(mock.HeaderWarning); len(got) != 0 {
		t.Errorf("the answer served again warns %q", got)
	}
	kept := 0
	for _, e := range listOn(t, a, "/__mock/requests?session=r1").Requests {
		if e.RequestID == "read-after-write" {
			kept++
			if !strings.Contains(e.Response, `"moved"`) {
				t.Errorf("the journal keeps the answer %.200s, not the one sent", e.Response)
			}
		}
	}
	if kept != 1 {
		t.Errorf("the journal keeps the read served again %d times, want 1", kept)
	}

	// A fault of r1 limited to 2 answers, added on a: b's copy knew of
	// no fault, so its read would not count; served again, it does, and
	// the fault fails exactly 2 of b's reads.
	if r := raw(a, http.MethodPost, "/__mock/faults?session=r1", `{"error":{"status":503},"times":2}`); r.status != 201 {
		t.Fatalf("fault: %d %s", r.status, r.body)
	}
	failed := 0
	for range 5 {
		if r := raw(b, http.MethodGet, fleetList, "", mock.HeaderSession, "r1"); r.status == 503 {
			failed++
		}
	}
	if failed != 2 {
		t.Errorf("a fault limited to 2 answers failed %d of b's reads", failed)
	}

	// b's copy of r2 knows a fault limited to 3 answers; a's write makes
	// the copy old. Were b's read served from it, the fault would count
	// it twice, once more when served again: it goes to the fleet's state
	// first, and the fault fails exactly 3 reads.
	if r := raw(a, http.MethodPost, "/__mock/faults?session=r2", `{"path":"/feedbacks","error":{"status":503},"times":3}`); r.status != 201 {
		t.Fatalf("fault: %d %s", r.status, r.body)
	}
	failed = 0
	if r := raw(b, http.MethodGet, fleetList, "", mock.HeaderSession, "r2"); r.status == 503 {
		failed++
	}
	if r := raw(a, http.MethodPatch, "/api/v1/settings/ai", `{"feedback":[{"rating":3,"signature":"r2"}]}`, mock.HeaderSession, "r2"); r.status != 200 {
		t.Fatalf("PATCH: %d %s", r.status, r.body)
	}
	for range 5 {
		if r := raw(b, http.MethodGet, fleetList, "", mock.HeaderSession, "r2"); r.status == 503 {
			failed++
		}
	}
	if failed != 3 {
		t.Errorf("a fault limited to 3 answers failed %d of b's reads", failed)
	}
}

// rawAbort is raw for a request a fault may drop: the handler's
// http.ErrAbortHandler reported, not raised.
func rawAbort(h http.Handler, method, target, body string, header ...string) (r response, aborted bool) {
	defer func() {
		if v := recover(); v != nil {
			if v != http.ErrAbortHandler {
				panic(v)
			}
			aborted = true
		}
	}()
	return raw(h, method, target, body, header...), false
}

// TestFleetDroppedWriteGivesBackItsLock: a write a fault drops (its
// handler ends with http.ErrAbortHandler) gives back its session's lock:
// the next write of the session, on another replica, goes through.
func TestFleetDroppedWriteGivesBackItsLock(t *testing.T) {
	_, ss := fleet(t, 2, mock.Options{})
	a, b := ss[0], ss[1]
	if r := raw(a, http.MethodPost, "/__mock/faults?session=L", `{"method":"PATCH","drop":true,"times":1}`); r.status != 201 {
		t.Fatalf("fault: %d %s", r.status, r.body)
	}
	if _, aborted := rawAbort(a, http.MethodPatch, "/api/v1/settings/ai", `{"feedback":[{"rating":2,"signature":"dropped"}]}`, mock.HeaderSession, "L"); !aborted {
		t.Fatal("the drop fault did not drop")
	}
	if r := raw(b, http.MethodPatch, "/api/v1/settings/ai", `{"feedback":[{"rating":2,"signature":"after"}]}`, mock.HeaderSession, "L"); r.status != 200 {
		t.Fatalf("a write after a dropped one, on another replica: %d %s", r.status, r.body)
	}
}

// TestFleetVisitorReadOfAFleetSession: on a public listener, a read of a
// session another replica made is not a new session of the client's.
func TestFleetVisitorReadOfAFleetSession(t *testing.T) {
	_, ss := fleet(t, 2, mock.Options{NewSessionsPerMinute: 1})
	a, b := ss[0].APIHandler(), ss[1].APIHandler()
	if r := raw(a, http.MethodPatch, "/api/v1/settings/ai", `{"feedback":[{"rating":2,"signature":"v1"}]}`, mock.HeaderSession, "v1"); r.status != 200 {
		t.Fatalf("PATCH on a: %d %s", r.status, r.body)
	}
	if r := raw(b, http.MethodGet, "/api/v1/settings/ai", "", mock.HeaderSession, "v1"); r.status != 200 || !strings.Contains(string(r.body), `"v1"`) {
		t.Fatalf("GET of v1 on b: %d %s", r.status, r.body)
	}
	if r := raw(b, http.MethodGet, "/api/v1/settings/ai", "", mock.HeaderSession, "v2"); r.status != 200 {
		t.Fatalf("the client's first new session on b: %d %s", r.status, r.body)
	}
}

// churn makes new sessions on s from three clients until the function it
// returns is called, so that s evicts sessions all the while.
func churn(s *mock.Server) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 3 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				raw(s, http.MethodGet, "/api/v1/settings/ai", "", mock.HeaderSession, fmt.Sprintf("n%d-%d", g, i))
			}
		})
	}
	return sync.OnceFunc(func() {
		close(done)
		wg.Wait()
	})
}

// TestFleetReadWhileSessionsAreEvicted: reads of a session on a replica
// that evicts sessions to make room for others (--max-sessions 3) each
// see the write answered before them: a copy evicted and made anew while
// a read is served is not the one the versions are of.
func TestFleetReadWhileSessionsAreEvicted(t *testing.T) {
	_, ss := fleet(t, 2, mock.Options{MaxSessions: 3})
	a, b := ss[0], ss[1]
	if r := raw(a, http.MethodPatch, "/api/v1/settings/ai", `{"feedback":[{"rating":2,"signature":"real"}]}`, mock.HeaderSession, "P"); r.status != 200 {
		t.Fatalf("PATCH: %d %s", r.status, r.body)
	}
	stopChurn := churn(b)
	defer stopChurn()
	const n = 2000
	bad, refused := 0, 0
	for range n {
		r := raw(b, http.MethodGet, "/api/v1/settings/ai", "", mock.HeaderSession, "P")
		switch {
		case r.status == 503 && strings.Contains(string(r.body), `"service_unavailable"`) && r.header.Get("Retry-After") != "":
			refused++ // evicted at every turn: refused, not answered from a session made anew
		case r.status != 200:
			t.Fatalf("a read of P: %d %s", r.status, r.body)
		case !strings.Contains(string(r.body), `"real"`):
			bad++
		}
	}
	stopChurn()
	if bad > 0 {
		t.Errorf("%d of %d reads of P answered without the write answered before them (%d refused)", bad, n, refused)
	}
	t.Logf("%d of %d reads refused: P evicted at every turn", refused, n)
}

// TestFleetWritesWhileSessionsAreEvicted: a write of a session that the
// replica evicts while the write runs (--max-sessions 3, other sessions
// made all the while) is either kept, and seen on the other replica, or
// refused with 503 and Retry-After, changing nothing: never answered
// 200 and lost.
func TestFleetWritesWhileSessionsAreEvicted(t *testing.T) {
	_, ss := fleet(t, 2, mock.Options{MaxSessions: 3})
	a, b := ss[0], ss[1]
	stopChurn := churn(b)
	defer stopChurn()
	const n = 300
	kept, refused := 0, 0
	last := ""
	for i := range n {
		sig := fmt.Sprintf("w%d", i)
		r := raw(b, http.MethodPatch, "/api/v1/settings/ai", `{"feedback":[{"rating":2,"signature":"`+sig+`"}]}`, mock.HeaderSession, "P")
		switch {
		case r.status == 503 && r.header.Get("Retry-After") != "":
			refused++
		case r.status != 200:
			t.Fatalf("PATCH %d: %d %s", i, r.status, r.body)
		default:
			kept++
			last = sig
		}
		if last == "" {
			continue
		}
		if got := raw(a, http.MethodGet, "/api/v1/settings/ai", "", mock.HeaderSession, "P"); !strings.Contains(string(got.body), `"`+last+`"`) {
			stopChurn()
			t.Fatalf("after PATCH %d (%d kept, %d refused), the other replica does not serve the last answered 200 (%s): %s", i, kept, refused, last, got.body)
		}
	}
	stopChurn()
	t.Logf("%d of %d PATCHes kept, %d refused while P was evicted", kept, n, refused)
}
