package mock_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/mock/internal/journal"
	"github.com/replymock/replymock/mock/internal/redistest"
)

// fleet is n servers on one real Redis.
func fleet(t *testing.T, n int, opts mock.Options) (*redistest.Server, []*mock.Server) {
	t.Helper()
	rs := redistest.Start(t)
	opts.Store = rs.URL()
	var out []*mock.Server
	for range n {
		s := newServer(t, opts)
		t.Cleanup(s.Close)
		out = append(out, s)
	}
	return rs, out
}

// raw sends one request without the contract check (a store out of
// reach answers admin writes 503, which the admin document leaves to
// the error code's description).
func raw(h http.Handler, method, target, body string, header ...string) response {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, rd)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

// sameOn asserts that every server answers target for session sid with
// the same status and body, and returns it.
func sameOn(t *testing.T, what, target, sid string, servers ...*mock.Server) response {
	t.Helper()
	first := raw(servers[0], http.MethodGet, target, "", mock.HeaderSession, sid)
	for i, s := range servers[1:] {
		got := raw(s, http.MethodGet, target, "", mock.HeaderSession, sid)
		if got.status != first.status || string(got.body) != string(first.body) {
			t.Fatalf("%s: replica %d answers %d %s\nreplica 0 answers %d %s", what, i+1, got.status, got.body, first.status, first.body)
		}
	}
	return first
}

const fleetList = "/api/v1/feedbacks?isAnswered=false&take=10&skip=0"

// TestFleetReadYourWrites: a write answered on one replica is seen by a
// request that starts after it on another, for every kind of write.
func TestFleetReadYourWrites(t *testing.T) {
	_, ss := fleet(t, 3, mock.Options{})
	a, b, c := ss[0], ss[1], ss[2]
	fresh := sameOn(t, "the same data on every replica", fleetList, "x", a, b, c)
	settingsFresh := sameOn(t, "settings", "/api/v1/settings/ai", "s1", a, b)

	// Settings PATCH.
	if r := raw(a, http.MethodPatch, "/api/v1/settings/ai", `{"feedback":[{"rating":1,"signature":"fleet"}]}`, mock.HeaderSession, "s1"); r.status != 200 {
		t.Fatalf("PATCH: %d %s", r.status, r.body)
	}
	if r := sameOn(t, "settings after a PATCH", "/api/v1/settings/ai", "s1", b, a, c); !strings.Contains(string(r.body), `"fleet"`) {
		t.Fatalf("the PATCH is not seen: %s", r.body)
	}

	// Seeded reviews.
	if r := raw(b, http.MethodPut, "/__mock/data?session=s2", `{"mode":"replace","reviews":[{"product_valuation":5,"text":"seeded in the fleet"}]}`); r.status != 200 {
		t.Fatalf("seed: %d %s", r.status, r.body)
	}
	if r := sameOn(t, "seeded", fleetList, "s2", c, a, b); !strings.Contains(string(r.body), "seeded in the fleet") {
		t.Fatalf("the seed is not seen: %.300s", r.body)
	}

	// A run-time fault of one session, and one for every session.
	if r := raw(a, http.MethodPost, "/__mock/faults?session=s3", `{"error":{"status":503}}`); r.status != 201 {
		t.Fatalf("fault: %d %s", r.status, r.body)
	}
	if r := raw(b, http.MethodGet, fleetList, "", mock.HeaderSession, "s3"); r.status != 503 {
		t.Fatalf("the session's fault is not met on another replica: %d", r.status)
	}
	if r := raw(c, http.MethodPost, "/__mock/faults", `{"path":"/settings/ai","error":{"status":502}}`); r.status != 201 {
		t.Fatalf("shared fault: %d %s", r.status, r.body)
	}
	if r := raw(a, http.MethodGet, "/api/v1/settings/ai", "", mock.HeaderSession, "any"); r.status != 502 {
		t.Fatalf("the fault for every session is not met on another replica: %d", r.status)
	}
	if r := raw(b, http.MethodDelete, "/__mock/faults", ""); r.status != 200 {
		t.Fatalf("DELETE faults: %d %s", r.status, r.body)
	}
	if r := raw(c, http.MethodGet, fleetList, "", mock.HeaderSession, "s3"); r.status != 200 {
		t.Fatalf("the faults removed on another replica are still met: %d", r.status)
	}

	// Overrides of one session.
	if r := raw(c, http.MethodPut, "/__mock/overrides?session=s4", `{"auth":{"type":"bearer","tokens":["t0k"]}}`); r.status != 200 {
		t.Fatalf("overrides: %d %s", r.status, r.body)
	}
	if r := raw(a, http.MethodGet, fleetList, "", mock.HeaderSession, "s4"); r.status != 401 {
		t.Fatalf("the overrides are not seen on another replica: %d", r.status)
	}

	// The scenario a session picked, and the server's.
	if r := raw(a, http.MethodPut, "/__mock/scenario?session=s5", `{"name":"all-unanswered"}`); r.status != 200 {
		t.Fatalf("pick: %d %s", r.status, r.body)
	}
	picked := sameOn(t, "a session's pick", fleetList, "s5", b, c, a)
	if string(picked.body) == string(fresh.body) {
		t.Fatal("the pick changed nothing")
	}
	if r := raw(b, http.MethodPut, "/__mock/scenario", `{"name":"all-unanswered"}`); r.status != 200 {
		t.Fatalf("server pick: %d %s", r.status, r.body)
	}
	if r := sameOn(t, "the server's pick", fleetList, "other", c, a, b); string(r.body) != string(picked.body) {
		t.Fatal("the server's pick is not seen on another replica")
	}
	raw(a, http.MethodPut, "/__mock/scenario", `{"name":"default"}`)

	// A living shop's clock moved (a frozen one: the same answer anywhere).
	if r := raw(a, http.MethodPut, "/__mock/scenario?session=s7", `{"name":"demo-frozen"}`); r.status != 200 {
		t.Fatalf("pick demo-frozen: %d %s", r.status, r.body)
	}
	clock0 := sameOn(t, "a frozen clock", "/__mock/clock?session=s7", "s7", c, b, a)
	if r := raw(b, http.MethodPost, "/__mock/clock?session=s7", `{"advance":"2h"}`); r.status != 200 {
		t.Fatalf("clock: %d %s", r.status, r.body)
	}
	if r := sameOn(t, "a clock moved", "/__mock/clock?session=s7", "s7", c, a, b); string(r.body) == string(clock0.body) {
		t.Fatalf("the clock moved on another replica is not seen: %s", r.body)
	}
	sameOn(t, "a shop after its clock moved", fleetList, "s7", a, c, b)

	// Snapshot restore: s1 as it is now, restored into s6 on another.
	snap := raw(a, http.MethodGet, "/__mock/snapshot?session=s1", "", "Accept", "application/json")
	if snap.status != 200 {
		t.Fatalf("snapshot: %d %s", snap.status, snap.body)
	}
	if r := raw(b, http.MethodPost, "/__mock/snapshot?session=s6", string(snap.body)); r.status != 200 {
		t.Fatalf("restore: %d %s", r.status, r.body)
	}
	if r := sameOn(t, "restored", "/api/v1/settings/ai", "s6", c, a, b); !strings.Contains(string(r.body), `"fleet"`) {
		t.Fatalf("the restore is not seen: %s", r.body)
	}

	// Reset of one session, then of all.
	if r := raw(c, http.MethodPost, "/__mock/reset?session=s1", ""); r.status != 200 {
		t.Fatalf("reset: %d %s", r.status, r.body)
	}
	if r := sameOn(t, "reset", "/api/v1/settings/ai", "s1", a, b, c); string(r.body) != string(settingsFresh.body) {
		t.Fatalf("the reset is not seen: %s", r.body)
	}
	if r := raw(b, http.MethodPost, "/__mock/reset", ""); r.status != 200 {
		t.Fatalf("reset all: %d %s", r.status, r.body)
	}
	if r := sameOn(t, "reset of all", "/api/v1/settings/ai", "s6", a, b, c); string(r.body) != string(settingsFresh.body) {
		t.Fatalf("the reset of every session is not seen: %s", r.body)
	}
	if r := raw(a, http.MethodGet, fleetList, "", mock.HeaderSession, "s4"); r.status != 200 {
		t.Fatalf("the overrides outlive a reset of all made on another replica: %d", r.status)
	}
}

// TestFleetStoreDownAndBack: while Redis is down, reads answer from the
// state last known with a warning, writes 503 store_unavailable and
// change nothing, health says so; once it is back, the replicas go on
// as one with no restart.
func TestFleetStoreDownAndBack(t *testing.T) {
	rs, ss := fleet(t, 2, mock.Options{})
	a, b := ss[0], ss[1]
	raw(a, http.MethodPatch, "/api/v1/settings/ai", `{"feedback":[{"rating":2,"signature":"before"}]}`, mock.HeaderSession, "d")
	before := sameOn(t, "before", "/api/v1/settings/ai", "d", b, a)

	rs.Stop()
	r := raw(b, http.MethodGet, "/api/v1/settings/ai", "", mock.HeaderSession, "d")
	if r.status != 200 || string(r.body) != string(before.body) || !strings.Contains(strings.Join(r.header.Values(mock.HeaderWarning), " "), "stale") {
		t.Fatalf("a read while the store is down: %d %v %s", r.status, r.header.Values(mock.HeaderWarning), r.body)
	}
	r = raw(b, http.MethodPatch, "/api/v1/settings/ai", `{"feedback":[{"rating":2,"signature":"while down"}]}`, mock.HeaderSession, "d")
	checkError(t, "a PATCH while the store is down", r, 503, mock.CodeStoreUnavailable, "")
	if r = raw(a, http.MethodPost, "/__mock/faults?session=d", `{"drop":true}`); r.status != 503 || !strings.Contains(string(r.body), mock.CodeStoreUnavailable) {
		t.Fatalf("an admin write while the store is down: %d %s", r.status, r.body)
	}
	if r = raw(b, http.MethodGet, "/api/v1/settings/ai", "", mock.HeaderSession, "d"); string(r.body) != string(before.body) {
		t.Fatalf("a refused write changed the state: %s", r.body)
	}
	var h mock.Health
	decodeOK(t, "health while down", do(t, a, http.MethodGet, "/__mock/health", ""), &h)
	if h.Store.Kind != "redis" || h.Store.State != "unreachable" || h.Store.Error == "" {
		t.Fatalf("health while the store is down: %+v", h.Store)
	}

	rs.Restart() // on the same port, empty: no persistence here
	// A client sent 503 with Retry-After tries again; the replica
	// reconnects by itself.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		r = raw(b, http.MethodPatch, "/api/v1/settings/ai", `{"feedback":[{"rating":2,"signature":"after"}]}`, mock.HeaderSession, "d")
		if r.status == 200 {
			break
		}
		if r.status != 503 || time.Now().After(deadline) {
			t.Fatalf("a PATCH once the store is back: %d %s", r.status, r.body)
		}
	}
	// The other replica catches up by itself: its reads stop warning that
	// the store is out of reach (they say, for a minute, that it came back
	// empty).
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		r = raw(a, http.MethodGet, "/api/v1/settings/ai", "", mock.HeaderSession, "d")
		if w := strings.Join(r.header.Values(mock.HeaderWarning), " "); !strings.Contains(w, "out of reach") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a replica still warns 10 s after the store came back: %v", r.header.Values(mock.HeaderWarning))
		}
	}
	if r = sameOn(t, "after", "/api/v1/settings/ai", "d", a, b); !strings.Contains(string(r.body), `"after"`) {
		t.Fatalf("the write after the store came back is not seen: %s", r.body)
	}
	decodeOK(t, "health once back", do(t, a, http.MethodGet, "/__mock/health", ""), &h)
	if h.Store.State != "ok" {
		t.Fatalf("health once the store is back: %+v", h.Store)
	}
}

// TestFleetExpiryAndBounds: a session costs what its snapshot document
// takes in Redis, expires after the TTL as in memory, and Redis keeps at
// most MaxSessions of them.
func TestFleetExpiryAndBounds(t *testing.T) {
	rs, ss := fleet(t, 2, mock.Options{SessionTTL: 500 * time.Millisecond, MaxSessions: 3})
	a, b := ss[0], ss[1]
	c := redisClient(t, rs)
	ctx := context.Background()
	raw(a, http.MethodPatch, "/api/v1/settings/ai", `{"feedback":[{"rating":1,"signature":"short-lived"}]}`, mock.HeaderSession, "e1")
	size, err := c.Do(ctx, c.B().Strlen().Key("replymock:s:e1").Build()).AsInt64()
	if err != nil || size == 0 {
		t.Fatalf("the session is not in Redis: %d %v", size, err)
	}
	// A session with its settings patched: a few KiB (mock/cli/README.md says so).
	if size > 16<<10 {
		t.Fatalf("a session with patched settings costs %d bytes in Redis, more than 16 KiB", size)
	}
	t.Logf("a session with patched settings: %d bytes", size)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		n, err := c.Do(ctx, c.B().Exists().Key("replymock:s:e1", "replymock:v:e1").Build()).AsInt64()
		if err == nil && n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the session did not expire from Redis")
		}
	}
	if r := raw(b, http.MethodGet, "/api/v1/settings/ai", "", mock.HeaderSession, "e1"); strings.Contains(string(r.body), "short-lived") {
		t.Fatal("an expired session is still served by another replica")
	}

	for _, id := range []string{"m1", "m2", "m3", "m4", "m5"} {
		if r := raw(a, http.MethodPatch, "/api/v1/settings/ai", `{"feedback":[{"rating":1,"signature":"`+id+`"}]}`, mock.HeaderSession, id); r.status != 200 {
			t.Fatalf("PATCH %s: %d", id, r.status)
		}
		locksReleased(t, c)
	}
	n, err := c.Do(ctx, c.B().Zcard().Key("replymock:ids").Build()).AsInt64()
	if err != nil || n > 3 {
		t.Fatalf("Redis keeps %d sessions, past MaxSessions 3 (%v)", n, err)
	}
	if k, _ := c.Do(ctx, c.B().Exists().Key("replymock:s:m1").Build()).AsInt64(); k != 0 {
		t.Fatal("the least recently written session is still kept past the limit")
	}
}

// TestFleetReadKeepsSessionAlive: a session only read, on a replica
// other than the one that wrote it, stays in Redis for as long as it is
// read, well past the TTL since its write: a replica that never held it
// serves the write, and Redis still holds its keys. A session written at
// the same moment and read by nobody is gone from Redis meanwhile (the
// clock of the test: the TTL did pass); that it is also gone for the
// replicas is TestFleetExpiryAndBounds's.
func TestFleetReadKeepsSessionAlive(t *testing.T) {
	// A read at least every 50 ms touches the session once a quarter of
	// the TTL went since its last touch: Redis's TTL is 750 ms ahead of
	// that, a stall of the reader past it would be needed to lose it.
	const ttl = time.Second
	rs, ss := fleet(t, 3, mock.Options{SessionTTL: ttl})
	a, b, c := ss[0], ss[1], ss[2]
	rc := redisClient(t, rs)
	ctx := context.Background()
	exists := func(id string) int64 {
		t.Helper()
		n, err := rc.Do(ctx, rc.B().Exists().Key("replymock:s:"+id, "replymock:v:"+id).Build()).AsInt64()
		if err != nil {
			t.Fatalf("EXISTS of %s: %v", id, err)
		}
		return n
	}
	const patch = `{"feedback":[{"rating":1,"signature":"read-kept"}]}`
	for _, id := range []string{"kept", "idle"} {
		if r := raw(a, http.MethodPatch, "/api/v1/settings/ai", patch, mock.HeaderSession, id); r.status != 200 {
			t.Fatalf("PATCH %s: %d %s", id, r.status, r.body)
		}
	}
	written := time.Now()
	if n := exists("kept") + exists("idle"); n != 4 {
		t.Fatalf("Redis holds %d of the 4 keys of the two sessions just written", n)
	}

	// Read "kept" on b until "idle" is gone from Redis and three TTLs
	// have passed since the write.
	reads := 0
	for deadline := written.Add(20 * ttl); ; time.Sleep(50 * time.Millisecond) {
		r := raw(b, http.MethodGet, "/api/v1/settings/ai", "", mock.HeaderSession, "kept")
		if r.status != 200 || !strings.Contains(string(r.body), `"read-kept"`) {
			t.Fatalf("read %d of the session on the other replica: %d %.300s", reads, r.status, r.body)
		}
		reads++
		if exists("idle") == 0 && time.Since(written) > 3*ttl {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a session nobody read is still in Redis %v after its write (TTL %v)", time.Since(written), ttl)
		}
	}
	t.Logf("%d reads in %v", reads, time.Since(written).Round(time.Millisecond))

	if n := exists("kept"); n != 2 {
		t.Fatalf("a session read all along on one replica holds %d of its 2 keys in Redis %v after its write (TTL %v)", n, time.Since(written).Round(time.Millisecond), ttl)
	}
	// c never held it (what it serves comes from Redis), a's copy went
	// unused for three TTLs: every replica serves the PATCH.
	if r := sameOn(t, "a session read elsewhere all along", "/api/v1/settings/ai", "kept", c, a, b); r.status != 200 || !strings.Contains(string(r.body), `"read-kept"`) {
		t.Fatalf("a replica that never held the session read elsewhere all along does not serve its PATCH: %d %.300s", r.status, r.body)
	}
	// A write of another session drops the sessions past the TTL from
	// the set of sessions (what a reset of all goes through): the read
	// one stays in it.
	if r := raw(a, http.MethodPatch, "/api/v1/settings/ai", patch, mock.HeaderSession, "other"); r.status != 200 {
		t.Fatalf("PATCH other: %d %s", r.status, r.body)
	}
	if err := rc.Do(ctx, rc.B().Zscore().Key("replymock:ids").Member("kept").Build()).Error(); err != nil {
		t.Fatalf("the session read all along is not in the set of sessions: %v", err)
	}
	if err := rc.Do(ctx, rc.B().Zscore().Key("replymock:ids").Member("idle").Build()).Error(); !rueidis.IsRedisNil(err) {
		t.Fatalf("the session nobody read is still in the set of sessions (%v)", err)
	}
}

// TestFleetCountsExact: a fault limited to N answers fails exactly N
// requests across the fleet, and the rate limit counts every replica's
// requests, under concurrent requests on every replica.
func TestFleetCountsExact(t *testing.T) {
	_, ss := fleet(t, 3, mock.Options{})
	if r := raw(ss[0], http.MethodPost, "/__mock/faults?session=c", `{"after":3,"times":5,"error":{"status":503}}`); r.status != 201 {
		t.Fatalf("fault: %d %s", r.status, r.body)
	}
	if r := raw(ss[1], http.MethodPut, "/__mock/overrides?session=r", `{"rate_limit":{"requests":10,"window":"1h"}}`); r.status != 200 {
		t.Fatalf("overrides: %d %s", r.status, r.body)
	}
	count := func(sid string) map[int]int {
		var mu sync.Mutex
		got := map[int]int{}
		var wg sync.WaitGroup
		for i := range 3 {
			for range 4 {
				wg.Go(func() {
					for range 5 {
						r := raw(ss[i], http.MethodGet, "/api/v1/settings/ai", "", mock.HeaderSession, sid)
						mu.Lock()
						got[r.status]++
						mu.Unlock()
					}
				})
			}
		}
		wg.Wait()
		return got
	}
	if got := count("c"); got[503] != 5 || got[200] != 55 {
		t.Fatalf("a fault after 3 for 5 answers, 60 requests on 3 replicas: %v", got)
	}
	if got := count("r"); got[200] != 10 || got[429] != 50 {
		t.Fatalf("a rate limit of 10 an hour, 60 requests on 3 replicas: %v", got)
	}
	// A reset on one replica starts the counts again on all.
	raw(ss[2], http.MethodPost, "/__mock/reset?session=c", "")
	raw(ss[0], http.MethodPost, "/__mock/faults?session=c", `{"times":2,"error":{"status":503}}`)
	if got := count("c"); got[503] != 2 || got[200] != 58 {
		t.Fatalf("a fault for 2 answers after a reset: %v", got)
	}
}

// TestFleetConcurrentWritesOfOneSession: writes of one session on three
// replicas at once, with reads that count a limited fault meanwhile,
// lose none that was answered: each replica's last answered PATCH is in
// the session at the end, on every replica.
func TestFleetConcurrentWritesOfOneSession(t *testing.T) {
	_, ss := fleet(t, 3, mock.Options{})
	if r := raw(ss[0], http.MethodPost, "/__mock/faults?session=cw", `{"method":"GET","after":1000000,"error":{"status":500}}`); r.status != 201 {
		t.Fatalf("fault: %d %s", r.status, r.body)
	}
	const writes = 15
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for i := range ss {
		wg.Go(func() {
			for v := 1; v <= writes; v++ {
				body := fmt.Sprintf(`{"feedback":[{"rating":%d,"signature":"r%d-v%d"}]}`, i+1, i, v)
				if r := raw(ss[i], http.MethodPatch, "/api/v1/settings/ai", body, mock.HeaderSession, "cw"); r.status != 200 {
					t.Errorf("replica %d, PATCH v%d: %d %s", i, v, r.status, r.body)
					return
				}
			}
		})
	}
	var readers sync.WaitGroup
	for i := range ss {
		readers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				raw(ss[i], http.MethodGet, fleetList, "", mock.HeaderSession, "cw")
			}
		})
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	r := sameOn(t, "after concurrent writes", "/api/v1/settings/ai", "cw", ss...)
	for i := range ss {
		if want := fmt.Sprintf(`"r%d-v%d"`, i, writes); !strings.Contains(string(r.body), want) {
			t.Errorf("replica %d's last answered PATCH (%s) is lost: %s", i, want, r.body)
		}
	}
}

// TestFleetInvalidSessionTakesNoLock: an API request naming an id no
// session may have ("*" among them) is answered 400 without taking a
// lock in the fleet, even while every session's lock is held.
func TestFleetInvalidSessionTakesNoLock(t *testing.T) {
	rs, ss := fleet(t, 1, mock.Options{})
	c := redisClient(t, rs)
	ctx := context.Background()
	if err := c.Do(ctx, c.B().Set().Key("replymock:lock-all").Value("held by the test").Build()).Error(); err != nil {
		t.Fatal(err)
	}
	for _, sid := range []string{"*", "not an id", "../x"} {
		if r := raw(ss[0], http.MethodPatch, "/api/v1/settings/ai", `{"feedback":[]}`, mock.HeaderSession, sid); r.status != 400 {
			t.Fatalf("PATCH with session %q: %d %s, want 400 without a lock", sid, r.status, r.body)
		}
		if r := raw(ss[0], http.MethodGet, "/api/v1/settings/ai", "", mock.HeaderSession, sid); r.status != 400 {
			t.Fatalf("GET with session %q: %d %s, want 400", sid, r.status, r.body)
		}
	}
	keys, _ := c.Do(ctx, c.B().Keys().Pattern("replymock:*").Build()).AsStrSlice()
	for _, k := range keys {
		if strings.Contains(k, "*") || strings.Contains(k, " ") || strings.Contains(k, "..") {
			t.Fatalf("Redis has key %q of an invalid session id", k)
		}
	}
}

// BenchmarkFleetPatchSessions: PATCHes of different sessions on one
// replica of a fleet on a real Redis, many at once (each writer its own
// session): what one replica answers of writes that do not wait on
// each other's locks.
func BenchmarkFleetPatchSessions(b *testing.B) {
	rs := redistest.Start(b)
	s := newServer(b, mock.Options{Store: rs.URL()})
	b.Cleanup(s.Close)
	var n atomic.Int64
	b.SetParallelism(8)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		sid := fmt.Sprintf("w%d", n.Add(1))
		for i := 0; pb.Next(); i++ {
			r := raw(s, http.MethodPatch, "/api/v1/settings/ai", fmt.Sprintf(`{"feedback":[{"rating":1,"signature":"v%d"}]}`, i), mock.HeaderSession, sid)
			if r.status != 200 {
				b.Fatalf("PATCH: %d %s", r.status, r.body)
			}
		}
	})
}

// TestFleetStoreLostItsData: when Redis restarts empty (no
// persistence), every replica notices within a request: each goes back
// to its start state (the scenario it started with, every session
// fresh), says so in health and a warning, and a server-wide write after
// lands in Redis and is served by every replica.
func TestFleetStoreLostItsData(t *testing.T) {
	rs, ss := fleet(t, 3, mock.Options{})
	c := redisClient(t, rs)
	if r := raw(ss[0], http.MethodPut, "/__mock/scenario?session=*", `{"name":"en-shop"}`); r.status != 200 {
		t.Fatalf("switch: %d %s", r.status, r.body)
	}
	raw(ss[0], http.MethodPatch, "/api/v1/settings/ai", `{"feedback":[{"rating":1,"signature":"k1's own"}]}`, mock.HeaderSession, "k1")
	for _, target := range []string{"/api/v1/feedbacks?counts_only=1", "/api/v1/settings/ai"} {
		for _, sid := range []string{"default", "k1"} {
			sameOn(t, "before the loss", target, sid, ss...)
		}
	}
	if r := raw(ss[2], http.MethodGet, "/api/v1/feedbacks?counts_only=1", ""); !strings.Contains(string(r.body), `"total":300`) {
		t.Fatalf("before the loss, en-shop: %s", r.body)
	}

	rs.Stop()
	rs.Restart() // on the same port, empty
	// Each replica's next request (after the client's retry of the
	// connection Redis closed) finds the store new.
	for i, s := range ss {
		var r response
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			r = raw(s, http.MethodGet, "/api/v1/feedbacks?counts_only=1", "")
			if strings.Contains(string(r.body), `"total":1009`) || time.Now().After(deadline) {
				break
			}
		}
		if !strings.Contains(string(r.body), `"total":1009`) || !strings.Contains(strings.Join(r.header.Values(mock.HeaderWarning), " "), "lost its data") {
			t.Fatalf("replica %d after Redis lost its data: %d %v %s; want the start scenario (1009) and a warning", i, r.status, r.header.Values(mock.HeaderWarning), r.body)
		}
		var h mock.Health
		decodeOK(t, "health", do(t, s, http.MethodGet, "/__mock/health", ""), &h)
		if h.Store.State != "ok" || h.Store.LostAt == "" {
			t.Errorf("replica %d's health after the loss: %+v", i, h.Store)
		}
	}
	if r := sameOn(t, "k1 after the loss", "/api/v1/settings/ai", "k1", ss...); strings.Contains(string(r.body), "k1's own") {
		t.Errorf("k1's patched settings survive on the replicas, though Redis lost them: %s", r.body)
	}
	// A server-wide write lands in Redis, and every replica serves it.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		// A 503 with Retry-After (a connection Redis closed) is sent again.
		r := raw(ss[1], http.MethodPut, "/__mock/scenario?session=*", `{"name":"en-shop"}`)
		if r.status == 200 {
			break
		}
		if r.status != 503 || time.Now().After(deadline) {
			t.Fatalf("switch after the loss: %d %s", r.status, r.body)
		}
	}
	if n, err := c.Do(context.Background(), c.B().Exists().Key("replymock:server").Build()).AsInt64(); err != nil || n != 1 {
		t.Fatalf("the switch after the loss is not in Redis: %d %v", n, err)
	}
	if r := sameOn(t, "after the switch", "/api/v1/feedbacks?counts_only=1", "default", ss...); !strings.Contains(string(r.body), `"total":300`) {
		t.Errorf("after the switch on replica 1: %s", r.body)
	}
}

// TestFleetHealthHidesRedisWithoutToken: with an admin token, health
// (open to all) shows where Redis is only to a request with the token.
func TestFleetHealthHidesRedisWithoutToken(t *testing.T) {
	_, ss := fleet(t, 1, mock.Options{AdminToken: "t0ken"})
	var h mock.Health
	decodeOK(t, "health", do(t, ss[0], http.MethodGet, "/__mock/health", ""), &h)
	if h.Store.Kind != "redis" || h.Store.URL != "" {
		t.Errorf("health without the token: %+v; want no URL", h.Store)
	}
	decodeOK(t, "health", do(t, ss[0], http.MethodGet, "/__mock/health", "", "X-Mock-Admin-Token", "t0ken"), &h)
	if !strings.HasPrefix(h.Store.URL, "redis://127.0.0.1:") {
		t.Errorf("health with the token: %+v; want the URL", h.Store)
	}
}

// TestFleetEvictedSessionSaysSo: a session Redis evicted past
// MaxSessions says so on its next request, on a replica that never held
// it, as one process does; the warning comes once.
func TestFleetEvictedSessionSaysSo(t *testing.T) {
	rs, ss := fleet(t, 2, mock.Options{MaxSessions: 3})
	a, b := ss[0], ss[1]
	c := redisClient(t, rs)
	for _, id := range []string{"m1", "m2", "m3", "m4", "m5"} {
		if r := raw(a, http.MethodPatch, "/api/v1/settings/ai", `{"feedback":[{"rating":1,"signature":"`+id+`"}]}`, mock.HeaderSession, id); r.status != 200 {
			t.Fatalf("PATCH %s: %d", id, r.status)
		}
		locksReleased(t, c)
	}
	r := raw(b, http.MethodGet, "/api/v1/settings/ai", "", mock.HeaderSession, "m1")
	w := strings.Join(r.header.Values(mock.HeaderWarning), " ")
	if !strings.Contains(w, "m1"+journal.EvictedWords) || !strings.Contains(w, "past --max-sessions 3") || strings.Contains(string(r.body), `"signature":"m1"`) {
		t.Fatalf("m1's first request after its eviction: %d, warning %q, %s", r.status, w, r.body)
	}
	if r := raw(b, http.MethodGet, "/api/v1/settings/ai", "", mock.HeaderSession, "m1"); len(r.header.Values(mock.HeaderWarning)) != 0 {
		t.Errorf("m1's second request warns again: %v", r.header.Values(mock.HeaderWarning))
	}
	if r := raw(b, http.MethodGet, "/api/v1/settings/ai", "", mock.HeaderSession, "m5"); len(r.header.Values(mock.HeaderWarning)) != 0 {
		t.Errorf("m5, never evicted, warns: %v", r.header.Values(mock.HeaderWarning))
	}
}
