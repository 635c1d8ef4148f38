package mock_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/redis/rueidis"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/mock/internal/redistest"
)

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

// TestFleetReadsSeeWrites: a read on one replica after a write on
// another is answered once, from the write's state, and the journal
// keeps it once. A fault limited to some answers, added or counted on
// another replica, fails exactly that many reads.
func TestFleetReadsSeeWrites(t *testing.T) {
	_, ss := fleet(t, 2, mock.Options{})
	a, b := ss[0], ss[1]
	sameOn(t, "a first read on each", fleetList, "r1", a, b)

	// A write on a: b's copy of r1 is old, and its read reloads it.
	if r := raw(a, http.MethodPatch, "/api/v1/settings/ai", `{"feedback":[{"rating":2,"signature":"moved"}]}`, mock.HeaderSession, "r1"); r.status != 200 {
		t.Fatalf("PATCH: %d %s", r.status, r.body)
	}
	r := raw(b, http.MethodGet, "/api/v1/settings/ai", "", mock.HeaderSession, "r1", mock.HeaderRequestID, "read-after-write")
	if r.status != 200 || !strings.Contains(string(r.body), `"moved"`) {
		t.Fatalf("a read on b after a's write: %d %s", r.status, r.body)
	}
	if got := r.header.Values(mock.HeaderRequestID); len(got) != 1 || got[0] != "read-after-write" {
		t.Errorf("the answer names the request %q, want it once", got)
	}
	if got := r.header.Values(mock.HeaderWarning); len(got) != 0 {
		t.Errorf("the answer warns %q", got)
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
		t.Errorf("the journal keeps the read %d times, want 1", kept)
	}

	// A fault of r1 limited to 2 answers, added on a, fails exactly 2 of
	// b's reads.
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

	// b's copy of r2 knows a fault limited to 3 answers, and a's write
	// makes the copy old: the fault still fails exactly 3 reads.
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
// see the write answered before them: a session is not evicted while a
// request is served from it, so no read is served from an emptied copy.
func TestFleetReadWhileSessionsAreEvicted(t *testing.T) {
	_, ss := fleet(t, 2, mock.Options{MaxSessions: 3})
	a, b := ss[0], ss[1]
	if r := raw(a, http.MethodPatch, "/api/v1/settings/ai", `{"feedback":[{"rating":2,"signature":"real"}]}`, mock.HeaderSession, "P"); r.status != 200 {
		t.Fatalf("PATCH: %d %s", r.status, r.body)
	}
	stopChurn := churn(b)
	defer stopChurn()
	for i := range 2000 {
		r := raw(b, http.MethodGet, "/api/v1/settings/ai", "", mock.HeaderSession, "P")
		if r.status != 200 || !strings.Contains(string(r.body), `"real"`) {
			t.Fatalf("read %d of P: %d %s", i, r.status, r.body)
		}
	}
}

// TestFleetReadsWhileAnotherReplicaWrites: reads of a session on one
// replica, while another writes it, each see a write: a reload waits
// for the reads served from the copy it replaces. Each read waits 2 ms
// (a latency fault) after it found its session, so that reloads come
// while reads are served.
func TestFleetReadsWhileAnotherReplicaWrites(t *testing.T) {
	_, ss := fleet(t, 2, mock.Options{})
	a, b := ss[0], ss[1]
	if r := raw(a, http.MethodPost, "/__mock/faults?session=P", `{"method":"GET","latency":{"fixed":"2ms"}}`); r.status != 201 {
		t.Fatalf("fault: %d %s", r.status, r.body)
	}
	write := func(i int) {
		body := fmt.Sprintf(`{"feedback":[{"rating":2,"signature":"w%d"}]}`, i)
		if r := raw(a, http.MethodPatch, "/api/v1/settings/ai", body, mock.HeaderSession, "P"); r.status != 200 {
			t.Errorf("PATCH %d: %d %s", i, r.status, r.body)
		}
	}
	write(0)
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				r := raw(b, http.MethodGet, "/api/v1/settings/ai", "", mock.HeaderSession, "P")
				if r.status != 200 || !strings.Contains(string(r.body), `"signature":"w`) {
					t.Errorf("a read during the writes: %d %.300s", r.status, r.body)
					return
				}
			}
		})
	}
	for i := 1; i <= 100; i++ {
		write(i)
	}
	close(done)
	wg.Wait()
}

// TestFleetWritesWhileSessionsAreEvicted: writes of a session on a
// replica that evicts sessions to make room for others (--max-sessions
// 3, other sessions made all the while) are each kept and seen on the
// other replica: a session is not evicted while a write runs on it.
func TestFleetWritesWhileSessionsAreEvicted(t *testing.T) {
	_, ss := fleet(t, 2, mock.Options{MaxSessions: 3})
	a, b := ss[0], ss[1]
	stopChurn := churn(b)
	defer stopChurn()
	for i := range 300 {
		sig := fmt.Sprintf("w%d", i)
		if r := raw(b, http.MethodPatch, "/api/v1/settings/ai", `{"feedback":[{"rating":2,"signature":"`+sig+`"}]}`, mock.HeaderSession, "P"); r.status != 200 {
			t.Fatalf("PATCH %d: %d %s", i, r.status, r.body)
		}
		if got := raw(a, http.MethodGet, "/api/v1/settings/ai", "", mock.HeaderSession, "P"); !strings.Contains(string(got.body), `"`+sig+`"`) {
			t.Fatalf("after PATCH %d, the other replica does not serve it: %s", i, got.body)
		}
	}
}
