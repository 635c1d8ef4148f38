package mock_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
)

// testClock is the time every replica of a test fleet tells: one clock
// for all, moved by the test.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// shopPages are the pages of a living shop a test compares: what waits
// for an answer (arrivals, drafts) and what was answered (replies).
var shopPages = []string{
	"/api/v1/feedbacks?limit=100",
	"/api/v1/feedbacks?answered=1&limit=100",
	"/api/v1/feedbacks?answered=0&limit=100",
	"/api/v1/feedbacks?counts_only=1",
}

// sameShopOn asserts that every server serves session sid's shop pages
// byte for byte alike, and returns them.
func sameShopOn(t *testing.T, what, sid string, servers ...*mock.Server) []string {
	t.Helper()
	var out []string
	for _, p := range shopPages {
		first := raw(servers[0], http.MethodGet, p, "", mock.HeaderSession, sid)
		if first.status != 200 {
			t.Fatalf("%s: %s: %d %s", what, p, first.status, first.body)
		}
		for i, s := range servers[1:] {
			got := raw(s, http.MethodGet, p, "", mock.HeaderSession, sid)
			if got.status != first.status || string(got.body) != string(first.body) {
				d := firstDiff(string(got.body), string(first.body))
				t.Fatalf("%s: %s: replica %d (%d) is not replica 0 (%d): %s", what, p, i+1, got.status, first.status, d)
			}
		}
		out = append(out, string(first.body))
	}
	return out
}

// serve sends one read of session sid to s, as a client would, so that
// s brings the shop up to its clock now.
func serve(t *testing.T, s *mock.Server, sid string) {
	t.Helper()
	if r := raw(s, http.MethodGet, shopPages[0], "", mock.HeaderSession, sid); r.status != 200 {
		t.Fatalf("read: %d %s", r.status, r.body)
	}
}

// shopPatch changes the settings of every rating a living shop answers:
// a new signature, 1 to 3 stars answered automatically rather than
// drafted.
const shopPatch = `{"feedback":[{"rating":1,"reply_mode":"auto","signature":"— fleet"},{"rating":3,"reply_mode":"auto","signature":"— fleet"}]}`

// TestFleetShopsAdvanceOnceRealClock: on a real clock (the replicas'
// Now, one for all), three replicas serve the same living shop, byte
// for byte, whichever served what before: one brings the shop up in
// many small steps, one in a few, one in a single big step; the same
// after a settings PATCH on one of them and more time; for the default
// session and for a named one.
func TestFleetShopsAdvanceOnceRealClock(t *testing.T) {
	clk := &testClock{t: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)}
	_, ss := fleet(t, 3, mock.Options{Scenario: "demo", Now: clk.Now})
	sids := []string{mock.DefaultSession, "named"}
	// Each step: replica 0 serves every 4 s, replica 1 every 7 min,
	// replica 2 only where the test compares.
	walk := func(d time.Duration) {
		for step := time.Duration(0); step < d; step += 4 * time.Second {
			clk.add(4 * time.Second)
			for _, sid := range sids {
				serve(t, ss[0], sid)
				if step%(7*time.Minute) < 4*time.Second {
					serve(t, ss[1], sid)
				}
			}
		}
	}
	for _, sid := range sids {
		sameShopOn(t, "at the start, "+sid, sid, ss[0], ss[1]) // replica 2 comes later
	}
	walk(40 * time.Minute)
	for _, sid := range sids {
		sameShopOn(t, "after 40 minutes, "+sid, sid, ss[2], ss[0], ss[1])
	}
	// A PATCH on replica 1 while a new 4- or 5-star review waits for its
	// reply, older drafts of 1 and 3 stars waiting too: the patch makes
	// the drafts due after the new review, though older.
	for ok, _ := newHighPending(t, ss[0]); !ok; ok, _ = newHighPending(t, ss[0]) {
		walk(4 * time.Second)
	}
	clk.add(5300 * time.Millisecond)
	for _, sid := range sids {
		if r := raw(ss[1], http.MethodPatch, "/api/v1/settings/ai", shopPatch, mock.HeaderSession, sid); r.status != 200 {
			t.Fatalf("PATCH: %d %s", r.status, r.body)
		}
	}
	walk(50 * time.Minute)
	for _, sid := range sids {
		pages := sameShopOn(t, "after a PATCH and 50 minutes, "+sid, sid, ss[2], ss[0], ss[1])
		if !strings.Contains(pages[1], "— fleet") {
			t.Fatalf("%s: no reply by the patched settings: %.400s", sid, pages[1])
		}
	}
	// Round robin: each request to the next replica, at moments odd
	// steps apart (0.1 to 4.1 s), a PATCH among them.
	for i := range 400 {
		clk.add(time.Duration(137+i*7919%4000) * time.Millisecond)
		s, sid := ss[i%3], sids[i/3%2]
		if i == 200 {
			if r := raw(s, http.MethodPatch, "/api/v1/settings/ai", `{"feedback":[{"rating":4,"signature":"— round robin"},{"rating":5,"signature":"— round robin"}]}`, mock.HeaderSession, sid); r.status != 200 {
				t.Fatalf("PATCH: %d %s", r.status, r.body)
			}
			continue
		}
		serve(t, s, sid)
	}
	for _, sid := range sids {
		sameShopOn(t, "after round robin, "+sid, sid, ss[1], ss[2], ss[0])
	}
	if pages := sameShopOn(t, "after round robin", sids[200/3%2], ss...); !strings.Contains(pages[1], "— round robin") {
		t.Fatalf("no reply by the settings patched in the round robin: %.400s", pages[1])
	}
	// Within one second: replica 0 serves 0.3 s before a reply is due
	// (2 minutes after its review), the others 0.4 s after it; then all
	// serve it, replica 0 too.
	ok, created := newHighPending(t, ss[0])
	for ; !ok; ok, created = newHighPending(t, ss[0]) {
		clk.add(20 * time.Second)
	}
	clk.add(created.Add(2*time.Minute - 300*time.Millisecond).Sub(shopNow(t, ss[0], clk)))
	serve(t, ss[0], mock.DefaultSession)
	clk.add(700 * time.Millisecond)
	if pages := sameShopOn(t, "0.4 s after a reply is due", mock.DefaultSession, ss[1], ss[2], ss[0]); strings.Contains(pages[2], created.Format(time.DateTime)) {
		t.Fatalf("the review of %s waits for its reply still", created.Format(time.DateTime))
	}
}

// newHighPending reports whether the newest review s serves waits for
// its reply with 4 or 5 stars, and a draft waits too; and when the
// newest review was written.
func newHighPending(t *testing.T, s *mock.Server) (bool, time.Time) {
	t.Helper()
	r := raw(s, http.MethodGet, shopPages[0], "", mock.HeaderSession, mock.DefaultSession)
	var page struct {
		Data struct {
			Feedbacks []struct {
				Valuation   int    `json:"product_valuation"`
				AnswerState string `json:"answer_state"`
				Created     string `json:"created_date"`
			} `json:"feedbacks"`
		} `json:"data"`
	}
	if err := json.Unmarshal(r.body, &page); err != nil {
		t.Fatalf("page: %v", err)
	}
	fb := page.Data.Feedbacks
	if len(fb) == 0 || fb[0].AnswerState != "" || fb[0].Valuation < 4 {
		return false, time.Time{}
	}
	created, err := time.Parse(time.DateTime, fb[0].Created)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fb[1:] {
		if f.AnswerState == "draft" {
			return true, created
		}
	}
	return false, time.Time{}
}

// shopNow is the clock of the default session's shop on s, to the
// nanosecond: the seconds the shop shows, the fraction the replicas'.
func shopNow(t *testing.T, s *mock.Server, clk *testClock) time.Time {
	t.Helper()
	r := raw(s, http.MethodGet, "/__mock/clock", "")
	var out struct {
		Data struct {
			Now string `json:"now"`
		} `json:"data"`
	}
	if err := json.Unmarshal(r.body, &out); err != nil {
		t.Fatalf("clock: %v %s", err, r.body)
	}
	at, err := time.Parse(time.DateTime, out.Data.Now)
	if err != nil {
		t.Fatal(err)
	}
	return at.Add(time.Duration(clk.Now().Nanosecond()))
}

// TestFleetShopsAdvanceOnceFrozenClock: on a frozen clock moved with
// POST /__mock/clock, requests spread round robin over three replicas
// at different moments; a session whose clock moves in many small steps
// serves the same shop as one whose clock leaps, on every replica.
func TestFleetShopsAdvanceOnceFrozenClock(t *testing.T) {
	clk := &testClock{t: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)}
	_, ss := fleet(t, 3, mock.Options{Scenario: "demo-frozen", Now: clk.Now})
	n := 0
	next := func() *mock.Server { n++; return ss[n%len(ss)] }
	advance := func(sid, d string) {
		t.Helper()
		if r := raw(next(), http.MethodPost, "/__mock/clock?session="+sid, fmt.Sprintf(`{"advance":%q}`, d)); r.status != 200 {
			t.Fatalf("clock: %d %s", r.status, r.body)
		}
	}
	for _, sid := range []string{"steps", "leap"} {
		advance(sid, "17m")
		if r := raw(next(), http.MethodPatch, "/api/v1/settings/ai", shopPatch, mock.HeaderSession, sid); r.status != 200 {
			t.Fatalf("PATCH: %d %s", r.status, r.body)
		}
	}
	for range 40 { // 40 × 3 min, a read between each
		advance("steps", "3m")
		clk.add(time.Second)
		serve(t, next(), "steps")
	}
	advance("leap", "2h")
	steps := sameShopOn(t, "steps", "steps", ss...)
	leap := sameShopOn(t, "leap", "leap", ss[2], ss[1], ss[0])
	for i := range steps {
		if steps[i] != leap[i] {
			d := firstDiff(steps[i], leap[i])
			t.Fatalf("%s: a clock moved in small steps serves another shop than one moved at once, %s", shopPages[i], d)
		}
	}
	if !strings.Contains(steps[1], "— fleet") {
		t.Fatalf("no reply by the patched settings: %.400s", steps[1])
	}
}
