package journal

import (
	"bytes"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// The bytes all journals keep never pass the budget, however far the
// requests go past it: long query strings, big headers, bodies and
// answers from many sessions at once, with clears and resets between.
// At rest, the count matches what the journals hold.
//
// The churn's last clear may come after the other workers are done (on
// a busy machine, worker 0 can lag behind), so what the journals hold
// when it ends depends on the scheduler. So the churn must have reached
// the budget while it ran, and a second round, with no clear or reset
// to come after it, must leave the budget used at rest.
func TestJournalBudgetInvariant(t *testing.T) {
	const budget = 2 << 20
	j := New(DefaultSize, budget, 400)
	ss := newSessions(j)
	query := "search=" + strings.Repeat("x", 60_000)
	pad := strings.Repeat("h", 6000)
	page := bytes.Repeat([]byte("p"), 100_000) // a page of 100 reviews: the journal keeps its start
	settings := bytes.Repeat([]byte("s"), 3000)
	var over, peak atomic.Int64
	// load records rounds from..to-1 from 8 workers at once, clearing and
	// resetting between them when churn is set.
	load := func(from, to int, churn bool) {
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Go(func() {
				for i := from; i < to; i++ {
					sid := fmt.Sprintf("w%d-%d", w, i%5)
					h := http.Header{"X-Mock-Session": {sid}, "User-Agent": {"Go-http-client/1.1"}}
					for _, k := range []string{"X-A", "X-B", "X-C"} {
						h.Set(k, pad)
					}
					var rec Record
					if i%3 == 0 {
						h.Set("Content-Type", "application/json")
						rec = request(sid, "PATCH", "/api/v1/settings/ai?"+query, h, `{"question":{"signature":"`+strings.Repeat("s", 40_000)+`"}}`, settings)
					} else {
						rec = request(sid, "GET", fmt.Sprintf("/api/v1/feedbacks?limit=100&n=%d&%s", i, query[:i*400]), h, "", page)
						rec.Warnings = []string{`unknown parameter "n"`}
					}
					j.Record(ss.key(sid), rec)
					used := j.bytes.Used()
					if used > budget {
						over.Store(used)
					}
					for p := peak.Load(); used > p && !peak.CompareAndSwap(p, used); p = peak.Load() {
					}
					switch {
					case !churn:
					case w == 0 && i%40 == 39:
						j.Clear(AllSessions)
					case w == 1 && i%50 == 49:
						ss.reset(fmt.Sprintf("w2-%d", i%5))
					}
				}
			})
		}
		wg.Wait()
	}
	load(0, 100, true)
	if p := peak.Load(); p < budget/2 {
		t.Errorf("with clears and resets, the journals kept at most %d bytes: want the budget reached", p)
	}
	journalsAtRest(t, j)
	load(100, 120, false)
	if n := over.Load(); n > 0 {
		t.Errorf("the journals kept %d bytes, over the %d budget", n, budget)
	}
	if entries, held := journalsAtRest(t, j); entries < 10 || held < budget/2 {
		t.Errorf("the journals hold %d entries, %d bytes: want the budget used", entries, held)
	}
}

// journalsAtRest checks that each entry's count is what it measures and
// that Used is what the journals hold, and returns the entries and bytes
// they hold.
func journalsAtRest(t *testing.T, j *Journals) (entries, held int64) {
	t.Helper()
	for _, rg := range j.scope(AllSessions) {
		rg.mu.Lock()
		for _, r := range rg.all() {
			held += r.kept
			entries++
			if got := r.measure(); got != r.kept {
				t.Errorf("entry %d counted %d bytes, measures %d", r.Seq, r.kept, got)
			}
		}
		rg.mu.Unlock()
	}
	if used := j.bytes.Used(); used != held {
		t.Errorf("Used() = %d, but the journals hold %d bytes", used, held)
	}
	return entries, held
}

// Over the entry budget, the oldest entry of any session goes; a ring
// keeps its own size too, and what either bound took is reported lost.
func TestJournalEntryBounds(t *testing.T) {
	j := New(3, 1<<30, 5)
	a, b := j.Open("a"), j.Open("b")
	for i := range 8 {
		k := a
		if i%2 == 1 {
			k = b
		}
		j.Record(k, Record{Entry: Entry{Method: "GET", Path: fmt.Sprintf("/%d", i)}})
	}
	all, _ := compile(Filter{}, nil)
	if got := seqs(j.found(all, 0)); !slices.Equal(got, []int64{4, 5, 6, 7, 8}) {
		t.Errorf("kept %v, want the newest 5 of all sessions", got)
	}
	inA, _ := compile(Filter{Session: "a"}, nil)
	if got := seqs(j.found(inA, 0)); !slices.Equal(got, []int64{5, 7}) {
		t.Errorf("a kept %v, want 5 and 7", got)
	}
	if !j.lost("a", 2) || j.lost("a", 3) || !j.lost("b", 1) || j.lost("b", 2) || !j.lost(AllSessions, 2) {
		t.Error("what the bounds took (1 and 3 of a, 2 of b) is not reported lost, or more is")
	}
	j.Clear("a")
	if got := seqs(j.found(all, 0)); !slices.Equal(got, []int64{4, 6, 8}) {
		t.Errorf("after clearing a: %v, want b's", got)
	}
	if j.lost("a", 0) {
		t.Error("a cleared journal reports what it lost before")
	}
	var held int64
	for _, r := range j.found(all, 0) {
		held += r.kept
	}
	if j.bytes.Used() != held {
		t.Errorf("Used() = %d, the journals hold %d", j.bytes.Used(), held)
	}
	none := New(-1, 1<<30, 5)
	k := none.Open("a")
	none.Record(k, Record{Entry: Entry{Method: "GET", Path: "/"}})
	if none.bytes.Used() != 0 || !none.lost("a", 0) {
		t.Errorf("a journal of no entries keeps %d bytes, lost %v", none.bytes.Used(), none.lost("a", 0))
	}
}

// A session that goes takes its entries and their bytes with it, and a
// request of it still running keeps no entry, not even in the journal of
// the next session of the same id; a stale Key drops nothing.
func TestDroppedSessionKeepsNoEntry(t *testing.T) {
	j := New(DefaultSize, 1<<30, 100)
	old := j.Open("s")
	j.Record(old, Record{Entry: Entry{Method: "GET", Path: "/before"}})
	j.Drop(old)
	if j.bytes.Used() != 0 {
		t.Errorf("a dropped journal still counts %d bytes", j.bytes.Used())
	}
	fresh := j.Open("s")
	j.Record(old, Record{Entry: Entry{Method: "GET", Path: "/running"}}) // the request outlived its session
	j.Record(fresh, Record{Entry: Entry{Method: "GET", Path: "/after"}})
	j.Drop(old) // a stale Key: the fresh journal stays
	j.Record(Key{}, Record{Entry: Entry{Method: "GET", Path: "/looked-at"}})
	got := j.Entries(mustCompile(t, Filter{Session: "s"}), 0)
	if len(got) != 1 || got[0].Path != "/after" || got[0].Seq != 3 {
		t.Errorf("the fresh session's journal: %+v, want /after alone (seq 3)", got)
	}
	if j.bytes.Used() != j.found(mustCompile(t, Filter{}), 0)[0].kept {
		t.Errorf("Used() = %d: counts more than the one entry kept", j.bytes.Used())
	}
	// Opening an id again without a drop replaces its journal, bytes and all.
	j.Open("s")
	if j.bytes.Used() != 0 || len(j.Entries(mustCompile(t, Filter{}), 0)) != 0 {
		t.Errorf("a journal replaced by Open keeps %d bytes", j.bytes.Used())
	}
}

func mustCompile(t *testing.T, f Filter) *Pattern {
	t.Helper()
	p, err := compile(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Listings pin what they hold within MaxListingBytes together: past it,
// a listing is refused; a listing alone always fits; one released frees
// what it pinned.
func TestListingsPin(t *testing.T) {
	j := New(DefaultSize, 1<<30, 100)
	k := j.Open("a")
	for i := range 3 {
		j.Record(k, Record{Entry: Entry{Method: "GET", Path: fmt.Sprintf("/%d", i)}, Resp: make([]byte, 1000)})
	}
	all := mustCompile(t, Filter{})
	l, err := j.List(all, 2)
	if err != nil {
		t.Fatal(err)
	}
	if l.Len() != 2 || l.Entry(0).Path != "/1" || len(l.Entry(1).Response) != 1000 {
		t.Errorf("listing of the newest 2: %d entries, first %q", l.Len(), l.Entry(0).Path)
	}
	if j.Pinned() != l.recs[0].kept+l.recs[1].kept {
		t.Errorf("pinned %d bytes, the listing holds %d", j.Pinned(), l.recs[0].kept+l.recs[1].kept)
	}
	if _, err := j.List(all, 0); err != nil {
		t.Errorf("a second listing within the bound: %v", err)
	} // not released: it stays pinned
	l.Release()
	j.Unpin(j.Pinned())
	if !j.Pin(MaxListingBytes - 10) {
		t.Fatal("a listing alone was refused")
	}
	if _, err := j.List(all, 0); err != ErrListingsBusy {
		t.Errorf("over the bound: %v, want ErrListingsBusy", err)
	}
	if l, err := j.List(mustCompile(t, Filter{Session: "nobody"}), 0); err != nil || l.Len() != 0 {
		t.Errorf("an empty listing pins nothing and fits: %v", err)
	}
	j.Unpin(MaxListingBytes - 10)
	if !j.Pin(2 * MaxListingBytes) {
		t.Error("a listing alone, larger than the bound, was refused")
	}
}

// A lent response (a pooled page, which goes back to its pool once sent)
// is kept as a copy, or shared with the session's newest entry when that
// one's response is the same, and counted whole in each entry: no entry
// keeps the lent buffer, which its owner writes the next page into.
func TestJournalKeepsLentResponses(t *testing.T) {
	j := New(DefaultSize, 1<<30, 100)
	a, b := j.Open("a"), j.Open("b")
	buf := make([]byte, 0, 4096)
	lend := func(k Key, path, body string) {
		buf = append(buf[:0], body...)
		j.Record(k, Record{Entry: Entry{Method: "GET", Path: path}, Resp: buf, Lent: true})
		full := buf[:cap(buf)]
		for i := range full {
			full[i] = 'x' // the next page
		}
	}
	lend(a, "/1", "page one")
	lend(a, "/2", "page one")
	lend(b, "/3", "page one") // another session's newest is its own
	lend(a, "/4", "page two")
	lend(a, "/5", "page one") // the same as an older entry, not the newest
	recs := j.found(mustCompile(t, Filter{}), 0)
	if len(recs) != 5 {
		t.Fatalf("%d entries, want 5", len(recs))
	}
	same := func(x, y []byte) bool { return len(x) > 0 && len(y) > 0 && &x[0] == &y[0] }
	for i, want := range []string{"page one", "page one", "page one", "page two", "page one"} {
		r := recs[i]
		if string(r.Resp) != want || r.Lent || same(r.Resp, buf[:cap(buf)]) {
			t.Errorf("entry %s: %q (lent %v, the buffer's own %v), want a copy of %q", r.Path, r.Resp, r.Lent, same(r.Resp, buf[:cap(buf)]), want)
		}
		if r.kept != r.measure() || r.kept < int64(len(r.Resp)) {
			t.Errorf("entry %s: counted %d bytes, measures %d, response %d", r.Path, r.kept, r.measure(), len(r.Resp))
		}
	}
	if !same(recs[0].Resp, recs[1].Resp) {
		t.Error("the same page twice in a row: the entries keep two copies")
	}
	for _, p := range [][2]int{{1, 2}, {1, 3}, {1, 4}} {
		if same(recs[p[0]].Resp, recs[p[1]].Resp) {
			t.Errorf("entries %s and %s share a response: not the same page as the session's newest", recs[p[0]].Path, recs[p[1]].Path)
		}
	}
	journalsAtRest(t, j)
}

// A lent response is not copied for a journal that keeps nothing: one of
// no entries, or one dropped (its request outlived its session).
func TestJournalCopiesNoLentResponseItKeepsNot(t *testing.T) {
	resp := make([]byte, 32<<10)
	for _, c := range []struct {
		name string
		j    *Journals
		drop bool
	}{{"a journal of no entries", New(0, 1<<30, 100), false}, {"a dropped journal", New(DefaultSize, 1<<30, 100), true}} {
		k := c.j.Open("a")
		if c.drop {
			c.j.Drop(k)
		}
		record := func(lent bool) func() {
			return func() { c.j.Record(k, Record{Entry: Entry{Method: "GET", Path: "/"}, Resp: resp, Lent: lent}) }
		}
		if lent, owned := testing.AllocsPerRun(20, record(true)), testing.AllocsPerRun(20, record(false)); lent != owned {
			t.Errorf("%s: recording a lent response allocates %v times, an owned one %v", c.name, lent, owned)
		}
		if c.j.bytes.Used() != 0 {
			t.Errorf("%s keeps %d bytes", c.name, c.j.bytes.Used())
		}
	}
}
