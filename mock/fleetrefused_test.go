package mock_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/rueidis"

	"github.com/replymock/replymock/mock"
)

// storeHeld is what Redis holds of the sessions' documents: each one's
// bytes (STRLEN of replymock:s:ID, read key by key: the reference), and
// the sum the fleet keeps count of (replymock:bytes).
func storeHeld(t *testing.T, c rueidis.Client) (docs map[string]int64, counted int64) {
	t.Helper()
	ctx := context.Background()
	keys, err := c.Do(ctx, c.B().Keys().Pattern("replymock:s:*").Build()).AsStrSlice()
	if err != nil {
		t.Fatal(err)
	}
	docs = make(map[string]int64)
	for _, k := range keys {
		n, err := c.Do(ctx, c.B().Strlen().Key(k).Build()).AsInt64()
		if err != nil {
			t.Fatal(err)
		}
		docs[strings.TrimPrefix(k, "replymock:s:")] = n
	}
	counted, err = c.Do(ctx, c.B().Get().Key("replymock:bytes").Build()).AsInt64()
	if err != nil && !rueidis.IsRedisNil(err) {
		t.Fatal(err)
	}
	return docs, counted
}

// locksReleased waits until no session lock is held in Redis. A write
// releases its lock just after it is answered, and a session whose lock
// is held is spared from eviction: tests of the eviction order wait.
func locksReleased(t *testing.T, c rueidis.Client) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		n, err := c.Do(context.Background(), c.B().Zcard().Key("replymock:locks").Build()).AsInt64()
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d session locks still held 10s after their writes were answered", n)
		}
	}
}

// sizedSeed is a seed of n reviews, each with a text of size letters
// that names the session and the review.
func sizedSeed(t *testing.T, sid string, n, size int) string {
	var recs []mock.SeedReview
	for i := range n {
		text := fmt.Sprintf("%s review %d ", sid, i)
		text += strings.Repeat("x", max(0, size-len(text)))
		recs = append(recs, mock.SeedReview{ProductValuation: 1 + i%5, Text: text})
	}
	return seedBody(t, "replace", recs)
}

// seededTexts is what a session's list shows: its reviews' texts'
// first words (the seed's "sid review i"), sorted; the scenario's own
// reviews when nothing is seeded.
func seededTexts(t *testing.T, s *mock.Server, sid string) []string {
	t.Helper()
	r := raw(s, http.MethodGet, "/api/v1/feedbacks?take=100&skip=0", "", mock.HeaderSession, sid)
	if r.status != http.StatusOK {
		t.Fatalf("list of %s: %d %s", sid, r.status, r.body)
	}
	var got struct {
		Data struct {
			Feedbacks []struct {
				Text string `json:"text"`
			} `json:"feedbacks"`
		} `json:"data"`
	}
	if err := json.Unmarshal(r.body, &got); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range got.Data.Feedbacks {
		out = append(out, strings.TrimRight(f.Text, "x"))
	}
	slices.Sort(out)
	return out
}

// wantSeeded is what seededTexts shows of a seed of n reviews for sid.
func wantSeeded(sid string, n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("%s review %d ", sid, i))
	}
	slices.Sort(out)
	return out
}

// TestFleetStoreBudget: what the sessions keep in Redis together stays
// within MaxStoreBytes, whichever replica writes. Past it, the least
// recently written sessions go from the fleet (every replica serves
// them anew), never the default session nor the one written; the sum
// the fleet counts is what Redis holds, byte for byte. A write that
// would make one session, with the default session, pass the bound
// alone answers 413 payload_too_large and changes nothing, on any
// replica or in Redis.
func TestFleetStoreBudget(t *testing.T) {
	const budget = 96 << 10
	rs, ss := fleet(t, 2, mock.Options{MaxStoreBytes: budget})
	a, b := ss[0], ss[1]
	c := redisClient(t, rs)
	check := func(what string) map[string]int64 {
		t.Helper()
		docs, counted := storeHeld(t, c)
		var sum int64
		for _, n := range docs {
			sum += n
		}
		if counted != sum {
			t.Fatalf("%s: the fleet counts %d bytes of documents, Redis holds %d (%v)", what, counted, sum, docs)
		}
		if sum > budget {
			t.Fatalf("%s: Redis holds %d bytes of documents, over the %d allowed (%v)", what, sum, budget, docs)
		}
		if _, ok := docs["default"]; !ok {
			t.Fatalf("%s: the default session's document went (%v)", what, docs)
		}
		return docs
	}
	if r := raw(a, http.MethodPatch, "/api/v1/settings/ai", `{"feedback":[{"rating":1,"signature":"the default's, kept"}]}`); r.status != http.StatusOK {
		t.Fatalf("PATCH default: %d %s", r.status, r.body)
	}
	check("the default session written")

	// Sessions of some 12 KB each, written on either replica in turn:
	// about seven fit besides the default session.
	const reviews, size = 4, 2500
	var ids []string
	for i := range 14 {
		sid := "w" + strconv.Itoa(10+i)
		ids = append(ids, sid)
		on := ss[i%2]
		if r := raw(on, http.MethodPut, "/__mock/data", sizedSeed(t, sid, reviews, size), mock.HeaderSession, sid); r.status != http.StatusOK {
			t.Fatalf("seed %s: %d %s", sid, r.status, r.body)
		}
		docs := check("after " + sid)
		// What Redis keeps is the newest sessions written, none skipped.
		var kept []string
		for _, id := range ids {
			if _, ok := docs[id]; ok {
				kept = append(kept, id)
			}
		}
		if len(kept) == 0 || kept[len(kept)-1] != sid || !slices.Equal(kept, ids[len(ids)-len(kept):]) {
			t.Fatalf("after %s Redis keeps %v of %v: not the newest", sid, kept, ids)
		}
	}
	docs := check("all written")
	if len(docs) >= len(ids) {
		t.Fatalf("Redis keeps %d sessions of %d: none went", len(docs)-1, len(ids))
	}
	// Every replica serves a gone session anew (the scenario's data),
	// and a kept one as seeded, whichever wrote it.
	gone, kept := ids[0], ids[len(ids)-1]
	for i, s := range ss {
		if got := seededTexts(t, s, kept); !slices.Equal(got, wantSeeded(kept, reviews)) {
			t.Errorf("replica %d serves %s, kept in Redis, as %q", i, kept, got)
		}
		if got := seededTexts(t, s, gone); slices.Equal(got, wantSeeded(gone, reviews)) {
			t.Errorf("replica %d still serves %s, gone from Redis, as seeded", i, gone)
		}
	}
	if r := raw(b, http.MethodGet, "/api/v1/settings/ai", ""); !strings.Contains(string(r.body), "the default's, kept") {
		t.Errorf("the default session's settings on replica 1: %s", r.body)
	}

	// One session that would keep more than the bound alone: refused,
	// nothing changed, on either replica, for a new session and for one
	// Redis keeps.
	before := check("before the refusals")
	for _, sid := range []string{"huge", kept} {
		r := raw(a, http.MethodPut, "/__mock/data", sizedSeed(t, sid, 12, 9000), mock.HeaderSession, sid)
		if r.status != http.StatusRequestEntityTooLarge || !strings.Contains(string(r.body), `"code":"payload_too_large"`) || !strings.Contains(string(r.body), "max-store-memory") {
			t.Fatalf("a seed of %s past the store's bound: %d %s", sid, r.status, r.body)
		}
		if after := check("after refusing " + sid); !maps.Equal(after, before) {
			t.Fatalf("refusing %s changed what Redis holds: %v, was %v", sid, after, before)
		}
	}
	for i, s := range ss {
		if got := seededTexts(t, s, kept); !slices.Equal(got, wantSeeded(kept, reviews)) {
			t.Errorf("after the refusal, replica %d serves %s as %q", i, kept, got)
		}
		if got := seededTexts(t, s, "huge"); slices.Contains(got, "huge review 0 ") {
			t.Errorf("replica %d serves the refused seed of huge", i)
		}
	}
}

// TestFleetStoreFull: a write Redis refuses (full: past its maxmemory,
// with no eviction) answers 503 store_unavailable saying what Redis
// said, and changes nothing on any replica; reads go on and health says
// full. Once Redis has room, the same write goes through, with no
// restart.
func TestFleetStoreFull(t *testing.T) {
	rs, ss := fleet(t, 2, mock.Options{})
	a, b := ss[0], ss[1]
	c := redisClient(t, rs)
	maxmemory := func(v string) {
		t.Helper()
		if err := c.Do(context.Background(), c.B().ConfigSet().ParameterValue().ParameterValue("maxmemory", v).
			ParameterValue("maxmemory-policy", "noeviction").Build()).Error(); err != nil {
			t.Fatal(err)
		}
	}
	const patch = `{"feedback":[{"rating":1,"signature":"kept once there is room"}]}`
	before := sameOn(t, "before", "/api/v1/settings/ai", "full", a, b)
	maxmemory("1")
	r := raw(a, http.MethodPatch, "/api/v1/settings/ai", patch, mock.HeaderSession, "full")
	checkError(t, "a PATCH Redis refuses", r, http.StatusServiceUnavailable, mock.CodeStoreUnavailable, "")
	if !strings.Contains(string(r.body), "refused the write") || !strings.Contains(string(r.body), "OOM") || r.header.Get("Retry-After") == "" {
		t.Fatalf("a PATCH Redis refuses: %s %v", r.body, r.header)
	}
	// Reads go on, with no word of a store out of reach, and health says
	// the store is full.
	if r := raw(b, http.MethodGet, "/api/v1/feedbacks?limit=1", "", mock.HeaderSession, "full"); r.status != http.StatusOK || len(r.header.Values(mock.HeaderWarning)) > 0 {
		t.Errorf("a read while Redis is full: %d, warnings %q", r.status, r.header.Values(mock.HeaderWarning))
	}
	var h mock.Health
	decodeOK(t, "health while full", do(t, b, http.MethodGet, "/__mock/health", ""), &h)
	if h.Store.State != "full" || !strings.Contains(h.Store.Error, "maxmemory") {
		t.Errorf("health while Redis is full: %+v", h.Store)
	}
	maxmemory("0")
	var h2 mock.Health
	decodeOK(t, "health with room", do(t, b, http.MethodGet, "/__mock/health", ""), &h2)
	if h2.Store.State != "ok" || h2.Store.Error != "" {
		t.Errorf("health once Redis has room: %+v", h2.Store)
	}
	if got := sameOn(t, "after the refusal", "/api/v1/settings/ai", "full", a, b); string(got.body) != string(before.body) {
		t.Fatalf("a refused write changed the session: %s", got.body)
	}
	if r := raw(a, http.MethodPatch, "/api/v1/settings/ai", patch, mock.HeaderSession, "full"); r.status != http.StatusOK {
		t.Fatalf("the PATCH once Redis has room: %d %s", r.status, r.body)
	}
	if got := sameOn(t, "after the write", "/api/v1/settings/ai", "full", b, a); !strings.Contains(string(got.body), "kept once there is room") {
		t.Fatalf("the write once Redis has room: %s", got.body)
	}
}

// TestFleetSessionNotHeldHere: a replica that cannot restore a session
// as Redis holds it (its seeded reviews past this replica's
// MaxSeedBytes) answers its requests 503, serving nothing from a copy
// that is not the fleet's and writing nothing over it, and so does a
// reset of every session there (which would leave that one as it is);
// the replica that can serves it as seeded.
func TestFleetSessionNotHeldHere(t *testing.T) {
	rs, ss := fleet(t, 1, mock.Options{})
	a := ss[0]
	small := newServer(t, mock.Options{Store: rs.URL(), MaxSeedBytes: 4 << 10})
	t.Cleanup(small.Close)
	if r := raw(a, http.MethodPut, "/__mock/data", sizedSeed(t, "big", 4, 2500), mock.HeaderSession, "big"); r.status != http.StatusOK {
		t.Fatalf("seed on the replica with room: %d %s", r.status, r.body)
	}
	want := wantSeeded("big", 4)
	c := redisClient(t, rs)
	before, _ := storeHeld(t, c)
	for _, req := range []struct{ method, target, body string }{
		{http.MethodGet, "/api/v1/feedbacks?take=100&skip=0", ""},
		{http.MethodPatch, "/api/v1/settings/ai", `{"feedback":[{"rating":1,"signature":"over it"}]}`},
		{http.MethodGet, "/__mock/data?session=big", ""},
		{http.MethodDelete, "/__mock/data?session=big", ""},
		{http.MethodPost, "/__mock/reset", ""}, // of every session: not one left as it is
	} {
		header := []string{mock.HeaderSession, "big"}
		if strings.HasPrefix(req.target, "/__mock/") {
			header = nil // the admin API names its session in the query, or none for every one
		}
		r := raw(small, req.method, req.target, req.body, header...)
		checkError(t, req.method+" "+req.target+" where the session does not fit", r, http.StatusServiceUnavailable, "service_unavailable", "")
		if !strings.Contains(string(r.body), "cannot hold session big") || r.header.Get("Retry-After") == "" {
			t.Fatalf("%s %s: %s %v", req.method, req.target, r.body, r.header)
		}
	}
	if after, _ := storeHeld(t, c); !maps.Equal(after, before) {
		t.Fatalf("the refused requests changed what Redis holds: %v, was %v", after, before)
	}
	if got := seededTexts(t, a, "big"); !slices.Equal(got, want) {
		t.Fatalf("the replica with room serves %q", got)
	}
}

// TestFleetBoundSparesLockedSession: past --max-sessions, Redis lets go
// of the least recently written session but one whose lock a write
// holds (on any replica): that write's session is not taken from under
// it, the next oldest goes.
func TestFleetBoundSparesLockedSession(t *testing.T) {
	rs, ss := fleet(t, 1, mock.Options{MaxSessions: 2})
	a := ss[0]
	c := redisClient(t, rs)
	ctx := context.Background()
	for _, sid := range []string{"s1", "s2"} {
		if r := raw(a, http.MethodPatch, "/api/v1/settings/ai", `{"feedback":[{"rating":1,"signature":"`+sid+`"}]}`, mock.HeaderSession, sid); r.status != http.StatusOK {
			t.Fatalf("PATCH %s: %d %s", sid, r.status, r.body)
		}
	}
	locksReleased(t, c)
	// A write of s1 under way elsewhere holds its lock.
	if err := c.Do(ctx, c.B().Set().Key("replymock:lock:s1").Value("a write elsewhere").Build()).Error(); err != nil {
		t.Fatal(err)
	}
	if r := raw(a, http.MethodPatch, "/api/v1/settings/ai", `{"feedback":[{"rating":1,"signature":"s3"}]}`, mock.HeaderSession, "s3"); r.status != http.StatusOK {
		t.Fatalf("PATCH s3: %d %s", r.status, r.body)
	}
	docs, _ := storeHeld(t, c)
	if _, ok := docs["s1"]; !ok {
		t.Errorf("the session whose lock a write holds went: %v", docs)
	}
	if _, ok := docs["s2"]; ok {
		t.Errorf("the next oldest stayed past the bound: %v", docs)
	}
	if _, ok := docs["s3"]; !ok {
		t.Errorf("the session written went: %v", docs)
	}
}
