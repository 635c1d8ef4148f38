package mock_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
)

// journalList is the data of GET /__mock/requests.
type journalList struct {
	Count    int                 `json:"count"`
	Requests []mock.JournalEntry `json:"requests"`
}

// listOn is replica s's listing of target, decoded.
func listOn(t *testing.T, s *mock.Server, target string) journalList {
	t.Helper()
	var l journalList
	r := raw(s, http.MethodGet, target, "")
	if r.status != 200 {
		t.Fatalf("GET %s: %d %s", target, r.status, r.body)
	}
	if err := json.Unmarshal(envelopeData(t, r.body), &l); err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
	return l
}

// verifyOn is replica s's verification of target, decoded.
func verifyOn(t *testing.T, s *mock.Server, target string) verified {
	t.Helper()
	var v verified
	r := raw(s, http.MethodGet, target, "")
	if r.status != 200 {
		t.Fatalf("GET %s: %d %s", target, r.status, r.body)
	}
	if err := json.Unmarshal(envelopeData(t, r.body), &v); err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
	return v
}

// envelopeData is the data of an answer's envelope.
func envelopeData(t *testing.T, body []byte) []byte {
	t.Helper()
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatalf("not an envelope: %v: %s", err, body)
	}
	return env.Data
}

// TestFleetJournalShared: requests spread round robin over three
// replicas; the listing and the verification on each see every one, in
// one numbering, credentials redacted.
func TestFleetJournalShared(t *testing.T) {
	_, ss := fleet(t, 3, mock.Options{})
	const n = 12
	for i := range n {
		r := raw(ss[i%3], http.MethodGet, fmt.Sprintf("/api/v1/feedbacks?isAnswered=false&take=%d&skip=0", i+1), "",
			mock.HeaderSession, "j", "Authorization", "Bearer s3cret-token")
		if r.status != 200 {
			t.Fatalf("request %d: %d %s", i, r.status, r.body)
		}
	}
	raw(ss[1], http.MethodGet, fleetList, "", mock.HeaderSession, "other")
	for i, s := range ss {
		l := listOn(t, s, "/__mock/requests?session=j")
		if l.Count != n || len(l.Requests) != n {
			t.Fatalf("replica %d lists %d entries of session j, want %d", i, l.Count, n)
		}
		for k, e := range l.Requests {
			if k > 0 && e.Seq <= l.Requests[k-1].Seq {
				t.Fatalf("replica %d: entry %d has seq %d after %d", i, k, e.Seq, l.Requests[k-1].Seq)
			}
			if want := "take=" + strconv.Itoa(k+1) + "&"; !strings.Contains(e.Query, want) || e.Status != 200 || e.Response == "" {
				t.Fatalf("replica %d: entry %d is %q %d (%d bytes answered), want %s", i, k, e.Query, e.Status, len(e.Response), want)
			}
			if got := e.Headers["Authorization"]; got != "Bearer [redacted]" {
				t.Fatalf("replica %d: Authorization listed as %q", i, got)
			}
		}
		if v := verifyOn(t, s, "/__mock/verify?session=j&min=0&method=GET&query.take=7"); v.Matched != 1 {
			t.Fatalf("replica %d verifies %d entries of take=7, want 1", i, v.Matched)
		}
		if v := verifyOn(t, s, "/__mock/verify?session=*&min=0&path=/api/v1/feedbacks"); v.Matched != n+1 {
			t.Fatalf("replica %d verifies %d entries of every session, want %d", i, v.Matched, n+1)
		}
		if v := verifyOn(t, s, "/__mock/verify?session=j&min=0&header.authorization=Bearer"); v.Matched != n {
			t.Fatalf("replica %d matches %d entries by the scheme, want %d", i, v.Matched, n)
		}
		if v := verifyOn(t, s, "/__mock/verify?session=j&min=0&since="+strconv.FormatInt(l.Requests[n-3].Seq, 10)); v.Matched != 2 {
			t.Fatalf("replica %d: since the third newest, %d entries, want 2", i, v.Matched)
		}
	}
	// A clear on one replica empties the journal for all.
	if r := raw(ss[2], http.MethodDelete, "/__mock/requests?session=j", ""); r.status >= 300 {
		t.Fatalf("DELETE /__mock/requests: %d %s", r.status, r.body)
	}
	for i, s := range ss {
		if l := listOn(t, s, "/__mock/requests?session=j"); l.Count != 0 {
			t.Fatalf("replica %d lists %d entries after the clear", i, l.Count)
		}
	}
}

// TestFleetJournalWait: a wait on one replica wakes on a request another
// served.
func TestFleetJournalWait(t *testing.T) {
	_, ss := fleet(t, 2, mock.Options{})
	a, b := ss[0], ss[1]
	done := make(chan journalList, 1)
	go func() {
		var l journalList
		r := raw(a, http.MethodGet, "/__mock/requests?session=w&path=/api/v1/feedbacks&wait=20s", "")
		if r.status == 200 {
			_ = json.Unmarshal(envelopeData(t, r.body), &l)
		}
		done <- l
	}()
	// Once it waits (the waiters' gauge), the other replica serves.
	for {
		m := raw(a, http.MethodGet, "/__mock/metrics", "")
		if strings.Contains(string(m.body), "\nreplymock_journal_waiters 1\n") {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if r := raw(b, http.MethodGet, fleetList, "", mock.HeaderSession, "w"); r.status != 200 {
		t.Fatalf("request on b: %d", r.status)
	}
	if l := <-done; l.Count != 1 || len(l.Requests) != 1 || l.Requests[0].Path != "/api/v1/feedbacks" {
		t.Fatalf("the wait on a ended with %+v, want the entry b appended", l)
	}
}

// TestFleetJournalBounds: the journal's bounds (a session's entries, all
// entries, all bytes) hold for the fleet, the oldest going first, the
// verification saying it is incomplete.
func TestFleetJournalBounds(t *testing.T) {
	const bytes = 48 << 10
	rs, ss := fleet(t, 3, mock.Options{JournalSize: 4, JournalEntries: 6, JournalBytes: bytes})
	c := redisClient(t, rs)
	check := func(what string) {
		t.Helper()
		ctx := context.Background()
		used, _ := c.Do(ctx, c.B().Hget().Key("replymock:j:meta").Field("bytes").Build()).AsInt64()
		var sum, entries int64
		refs := map[string]int64{} // the entries referring to each body kept apart
		ids, _ := c.Do(ctx, c.B().Smembers().Key("replymock:j:sessions").Build()).AsStrSlice()
		for _, id := range ids {
			es, _ := c.Do(ctx, c.B().Xrange().Key("replymock:j:s:"+id).Start("-").End("+").Build()).AsXRange()
			sizes, _ := c.Do(ctx, c.B().Lrange().Key("replymock:j:z:"+id).Start(0).Stop(-1).Build()).AsStrSlice()
			for _, e := range es {
				seq, _, _ := strings.Cut(e.ID, "-")
				found := false
				for _, z := range sizes {
					if zs, n, _ := strings.Cut(z, " "); zs == seq {
						n, h, _ := strings.Cut(n, " ")
						if h != e.FieldValues["h"] {
							t.Fatalf("%s: entry %s of session %s keeps body %q, its size item says %q", what, e.ID, id, e.FieldValues["h"], h)
						}
						k, _ := strconv.ParseInt(n, 10, 64)
						sum, found = sum+k, true
					}
				}
				if h := e.FieldValues["h"]; h != "" {
					refs[h]++
				}
				if !found {
					t.Fatalf("%s: entry %s of session %s has no size", what, e.ID, id)
				}
				entries++
			}
			if len(es) > 4 {
				t.Fatalf("%s: session %s keeps %d entries, more than its 4", what, id, len(es))
			}
			if len(sizes) != len(es) {
				t.Fatalf("%s: session %s keeps %d entries and %d size items", what, id, len(es), len(sizes))
			}
		}
		// What a session keeps beside its entries goes with its stream.
		zs, _ := c.Do(ctx, c.B().Keys().Pattern("replymock:j:z:*").Build()).AsStrSlice()
		lost, _ := c.Do(ctx, c.B().Hkeys().Key("replymock:j:lost").Build()).AsStrSlice()
		for _, k := range append(zs, lost...) {
			if id := strings.TrimPrefix(k, "replymock:j:z:"); !slices.Contains(ids, id) {
				t.Fatalf("%s: %s is kept for session %s, which has no stream", what, k, id)
			}
		}
		if used != sum || used > bytes || entries > 6 {
			t.Fatalf("%s: %d entries of %d bytes kept, counted %d (bounds: 6 entries, %d bytes)", what, entries, sum, used, bytes)
		}
		// Each body kept apart is there while an entry refers to it, and
		// goes with the last; its count of references is exact.
		counts, _ := c.Do(ctx, c.B().Hgetall().Key("replymock:j:bref").Build()).AsIntMap()
		kept, _ := c.Do(ctx, c.B().Keys().Pattern("replymock:j:b:*").Build()).AsStrSlice()
		if len(counts) != len(refs) || len(kept) != len(refs) {
			t.Fatalf("%s: %d bodies kept, %d counted, %d referred to", what, len(kept), len(counts), len(refs))
		}
		for h, n := range refs {
			if counts[h] != n {
				t.Fatalf("%s: body %s counts %d references, %d entries refer to it", what, h, counts[h], n)
			}
			if ex, _ := c.Do(ctx, c.B().Exists().Key("replymock:j:b:"+h).Build()).AsInt64(); ex != 1 {
				t.Fatalf("%s: body %s is referred to and gone", what, h)
			}
		}
	}
	for i := range 10 {
		raw(ss[i%3], http.MethodGet, fmt.Sprintf("/api/v1/feedbacks?limit=1&offset=%d", i), "", mock.HeaderSession, "a")
		check(fmt.Sprintf("after %d requests of one session", i+1))
	}
	l := listOn(t, ss[0], "/__mock/requests?session=a")
	if l.Count != 4 || !strings.Contains(l.Requests[3].Query, "offset=9") || !strings.Contains(l.Requests[0].Query, "offset=6") {
		t.Fatalf("session a keeps %d entries, want its newest 4 (offset 6 to 9)", l.Count)
	}
	if v := verifyOn(t, ss[1], "/__mock/verify?session=a&min=0"); !v.Incomplete {
		t.Fatal("a verification over a journal that lost entries is not incomplete")
	}
	raw(ss[0], http.MethodDelete, "/__mock/requests", "")
	check("after a clear of all")
	for i := range 8 { // small entries: the entries' bound
		raw(ss[i%3], http.MethodGet, "/api/v1/feedbacks?limit=1", "", mock.HeaderSession, "s"+strconv.Itoa(i%4))
		check(fmt.Sprintf("after %d small requests of four sessions", i+1))
	}
	if l := listOn(t, ss[2], "/__mock/requests?session=*"); l.Count != 6 || l.Requests[0].Session != "s2" || l.Requests[5].Session != "s3" {
		t.Fatalf("the fleet lists %d entries, want its newest 6 (s2's first to s3's second)", l.Count)
	}
	for i := range 6 { // large ones: the bytes' bound
		raw(ss[i%3], http.MethodGet, "/api/v1/feedbacks?limit=40", "", mock.HeaderSession, "s"+strconv.Itoa(i%4))
		check(fmt.Sprintf("after %d large requests of four sessions", i+1))
	}
	if l := listOn(t, ss[1], "/__mock/requests?session=*"); l.Count < 1 || l.Count > 2 || l.Requests[l.Count-1].Session != "s1" ||
		!strings.Contains(l.Requests[l.Count-1].Query, "limit=40") {
		t.Fatalf("the fleet lists %d entries, want the newest one or two that fit in %d bytes, the newest s1's", l.Count, bytes)
	}
	// Pages of 40 reviews take most of the byte bound: the oldest
	// entries went, and the bytes counted stayed within it.
	for i := range 8 { // one session under the bytes' bound: its size items go with its entries
		raw(ss[i%3], http.MethodGet, "/api/v1/feedbacks?limit=40", "", mock.HeaderSession, "busy")
		check(fmt.Sprintf("after %d large requests of one session", i+1))
	}
	if v := verifyOn(t, ss[0], "/__mock/verify?session=*&min=0"); !v.Incomplete {
		t.Fatal("a verification over a fleet whose journals lost entries is not incomplete")
	}
	raw(ss[0], http.MethodDelete, "/__mock/requests", "")
	check("after a clear of all")
}

// TestFleetJournalStoreDown: while Redis is down, requests are served
// (their entries lost) and the journal's questions answer 503; once it
// is back, the journal is the fleet's again.
func TestFleetJournalStoreDown(t *testing.T) {
	rs, ss := fleet(t, 2, mock.Options{})
	a, b := ss[0], ss[1]
	raw(a, http.MethodGet, fleetList, "", mock.HeaderSession, "d")
	rs.Stop()
	if r := raw(b, http.MethodGet, fleetList, "", mock.HeaderSession, "d"); r.status != 200 {
		t.Fatalf("a request while the store is down: %d %s", r.status, r.body)
	}
	for _, target := range []string{"/__mock/requests?session=d", "/__mock/verify?session=d", "/__mock/requests?session=d&wait=1s"} {
		checkError(t, "GET "+target+" while the store is down", raw(a, http.MethodGet, target, ""), 503, mock.CodeStoreUnavailable, "")
	}
	rs.Restart()
	// Each replica finds the store back on its own, at its next exchange.
	for i, s := range ss {
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			r := raw(s, http.MethodGet, fleetList, "", mock.HeaderSession, "d")
			if r.status == 200 && !strings.Contains(strings.Join(r.header.Values(mock.HeaderWarning), " "), "stale") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("replica %d: the store is not back after 10 s: %d %v", i, r.status, r.header.Values(mock.HeaderWarning))
			}
		}
	}
	raw(a, http.MethodGet, fleetList+"&back=1", "", mock.HeaderSession, "d")
	for i, s := range ss {
		l := listOn(t, s, "/__mock/requests?session=d&query.back=1")
		if l.Count != 1 {
			t.Fatalf("replica %d lists %d entries made once the store was back, want 1", i, l.Count)
		}
	}
}

// TestFleetJournalConcurrent: requests at once on three replicas, their
// entries appended together in steps, each kept once under a number of
// its own.
func TestFleetJournalConcurrent(t *testing.T) {
	_, ss := fleet(t, 3, mock.Options{})
	const clients, each = 9, 15
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				raw(ss[(c+i)%3], http.MethodGet, fmt.Sprintf("/api/v1/feedbacks?limit=1&offset=%d", c*each+i), "", mock.HeaderSession, "c")
			}
		}()
	}
	wg.Wait()
	for i, s := range ss {
		l := listOn(t, s, "/__mock/requests?session=c")
		seen := map[string]bool{}
		for k, e := range l.Requests {
			if k > 0 && e.Seq <= l.Requests[k-1].Seq {
				t.Fatalf("replica %d: seq %d after %d", i, e.Seq, l.Requests[k-1].Seq)
			}
			seen[e.Query] = true
		}
		if l.Count != clients*each || len(seen) != clients*each {
			t.Fatalf("replica %d lists %d entries (%d requests), want %d", i, l.Count, len(seen), clients*each)
		}
	}
}

// TestFleetJournalBodies: the same page answered again and again is kept
// once in Redis, each entry listing it whole; after a clear of all took
// it, the replicas, which sent it before, send it again: every entry
// still lists what was answered, byte for byte.
func TestFleetJournalBodies(t *testing.T) {
	rs, ss := fleet(t, 3, mock.Options{})
	c := redisClient(t, rs)
	bodies := func() int {
		keys, _ := c.Do(context.Background(), c.B().Keys().Pattern("replymock:j:b:*").Build()).AsStrSlice()
		return len(keys)
	}
	answer := func(n int) []string {
		var out []string
		for i := range n {
			r := raw(ss[i%3], http.MethodGet, fleetList, "", mock.HeaderSession, "p")
			if r.status != 200 || len(r.body) < 1024 {
				t.Fatalf("request %d: %d, %d bytes", i, r.status, len(r.body))
			}
			out = append(out, string(r.body))
		}
		return out
	}
	check := func(what string, want []string) {
		t.Helper()
		l := listOn(t, ss[1], "/__mock/requests?session=p")
		if l.Count != len(want) {
			t.Fatalf("%s: %d entries listed, want %d", what, l.Count, len(want))
		}
		for k, e := range l.Requests {
			if e.Response != want[k] {
				t.Fatalf("%s: entry %d lists %d bytes of response, %d were answered", what, k, len(e.Response), len(want[k]))
			}
		}
		if n := bodies(); n != 1 {
			t.Fatalf("%s: %d bodies kept for one page answered %d times, want 1", what, n, len(want))
		}
	}
	check("the page answered by three replicas", answer(6))
	raw(ss[0], http.MethodDelete, "/__mock/requests", "")
	if n := bodies(); n != 0 {
		t.Fatalf("after a clear of all, %d bodies kept", n)
	}
	check("the page answered again after a clear of all", answer(6))
}
