package mock_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
)

// walkList pages through GET /feedbacks with offset, limit 20, as a
// client does, and returns the ids it saw in order, with repeats. It
// stops at a short page or after the total it read first.
func walkList(t *testing.T, h http.Handler, session, query string) []int64 {
	t.Helper()
	var ids []int64
	for offset := 0; offset < 5000; offset += 20 {
		d := listOf(t, h, session, fmt.Sprintf("%soffset=%d&limit=20", query, offset))
		for _, f := range d.Feedbacks {
			ids = append(ids, f.ID)
		}
		if len(d.Feedbacks) < 20 {
			break
		}
	}
	return ids
}

// dedupWalk is the client that survives a moving list: it pages with
// offset and keeps each id once, then walks again until two walks in a
// row bring nothing new, so a review pushed past its offset is found too.
func dedupWalk(t *testing.T, h http.Handler, session, query string) []int64 {
	t.Helper()
	seen := make(map[int64]bool)
	var ids []int64
	quiet := 0
	for range 10 {
		fresh := 0
		for _, id := range walkList(t, h, session, query) {
			if !seen[id] {
				seen[id], fresh = true, fresh+1
				ids = append(ids, id)
			}
		}
		if quiet = quiet + 1; fresh > 0 {
			quiet = 0
		}
		if quiet == 2 {
			return ids
		}
	}
	t.Fatal("the list never stood still")
	return nil
}

// listOf reads one page of session's list.
func listOf(t testing.TB, h http.Handler, session, query string) listData {
	t.Helper()
	var d listData
	decodeOK(t, "list "+query, get(t, h, "/api/v1/feedbacks?"+query, "X-Mock-Session", session), &d)
	return d
}

func repeats(ids []int64) int {
	seen := make(map[int64]bool)
	n := 0
	for _, id := range ids {
		if seen[id] {
			n++
		}
		seen[id] = true
	}
	return n
}

// Under page_drift a naive offset walk sees reviews twice; a walk that
// keeps ids once and walks again until nothing is new sees every review
// of the list exactly once. The same seed gives the same walk.
func TestPageDriftNaiveAndCarefulWalkers(t *testing.T) {
	h := newServer(t, mock.Options{})
	put := func(session string) {
		decodeOK(t, "POST fault", admin(t, h, "POST", "/__mock/faults?session="+session,
			`{"name":"drift","method":"GET","path":"/feedbacks","page_drift":{"arrive":3,"answer":1},"probability":0.5,"times":6,"seed":7}`), new(mock.Fault))
	}
	put("naive")
	put("naive2")
	put("careful")
	naive := walkList(t, h, "naive", "answered=0&")
	if repeats(naive) == 0 {
		t.Fatalf("a naive walk of %d reviews under page_drift saw no review twice", len(naive))
	}
	if again := walkList(t, h, "naive2", "answered=0&"); !slices.Equal(again, naive) {
		t.Errorf("the same fault and seed gave another walk: %d reviews, then %d", len(naive), len(again))
	}

	careful := dedupWalk(t, h, "careful", "answered=0&")
	if repeats(careful) != 0 {
		t.Errorf("the careful walk kept %d repeats", repeats(careful))
	}
	// What it holds is the list as it stands now, every review once.
	now := walkList(t, h, "careful", "answered=0&")
	for _, id := range now {
		if !slices.Contains(careful, id) {
			t.Errorf("review %d is in the list but the careful walk missed it", id)
		}
	}
	if repeats(now) != 0 {
		t.Errorf("a walk of a list that stopped moving saw repeats")
	}

	// The journal says which reviews arrived.
	var j struct {
		Count    int                 `json:"count"`
		Requests []mock.JournalEntry `json:"requests"`
	}
	decodeOK(t, "requests", admin(t, h, "GET", "/__mock/requests?session=naive", ""), &j)
	found := false
	for _, e := range j.Requests {
		found = found || strings.Contains(e.Fault, "page_drift:") && strings.Contains(e.Fault, "arrived so far (ids ")
	}
	if !found {
		t.Error("no journal entry says which reviews arrived")
	}
}

// The reviews page_drift brings are real records of the scenario's
// kind, on top of the list, newer than the rest; the reviews it answers
// leave answered=0.
func TestPageDriftBringsRealReviews(t *testing.T) {
	h := newServer(t, mock.Options{})
	before := listOf(t, h, "a", "limit=5&answered=0")
	total := counts(t, h, "X-Mock-Session", "a")
	decodeOK(t, "POST fault", admin(t, h, "POST", "/__mock/faults?session=a",
		`{"method":"GET","path":"/feedbacks","page_drift":{"arrive":2,"answer":1},"times":1}`), new(mock.Fault))
	after := listOf(t, h, "a", "limit=5&answered=0")
	top := after.Feedbacks[:2]
	for _, f := range top {
		if f.Text == "" && f.Pros == "" && f.Cons == "" && f.ProductValuation == 0 || f.CreatedDate <= before.Feedbacks[0].CreatedDate {
			t.Errorf("arrival %+v: want a generated review newer than the list's newest (%s)", f, before.Feedbacks[0].CreatedDate)
		}
	}
	if after.Feedbacks[2].ID == before.Feedbacks[0].ID {
		t.Error("the newest unanswered review was not answered")
	}
	c := counts(t, h, "X-Mock-Session", "a")
	if c.Total != total.Total+2 || c.Unanswered != total.Unanswered+1 {
		t.Errorf("counts %+v after 2 arrivals and 1 answer on %+v", c, total)
	}
	// It hit once: the list stays as it moved.
	if again := listOf(t, h, "a", "limit=5&answered=0"); again.Feedbacks[0].ID != after.Feedbacks[0].ID {
		t.Error("the arrivals went away")
	}
}

// Under stale_read, the UI that saves and then shows what it reads back
// shows the old value; the UI that trusts the PATCH's answer, or reads
// until it sees its write, shows the new one.
func TestStaleReadSaveThenReload(t *testing.T) {
	h := newServer(t, mock.Options{})
	decodeOK(t, "POST fault", admin(t, h, "POST", "/__mock/faults",
		`{"method":"GET","path":"/settings/ai","stale_read":{"reads":2}}`), new(mock.Fault))
	signature := func(r response) string {
		var set mock.Settings
		decodeOK(t, "settings", r, &set)
		return set.Feedback[0].Signature
	}
	old := signature(get(t, h, "/api/v1/settings/ai"))
	saved := signature(patch(t, h, `{"feedback":[{"rating":1,"signature":"Новая подпись"}]}`))
	if saved != "Новая подпись" {
		t.Fatalf("PATCH answered %q", saved)
	}
	// The naive UI reloads once and shows what it got.
	if shown := signature(get(t, h, "/api/v1/settings/ai")); shown != old {
		t.Errorf("the first read after the write showed %q, want the old %q", shown, old)
	}
	// The careful UI trusts the PATCH's answer, or polls until it sees it.
	reads := 1
	for ; signature(get(t, h, "/api/v1/settings/ai")) != saved; reads++ {
		if reads > 5 {
			t.Fatal("the write never showed")
		}
	}
	if reads != 2 {
		t.Errorf("the write showed at read %d, want 3 (2 stale)", reads+1)
	}
}

// stale_read's time form: reads within For of the write are stale.
func TestStaleReadFor(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
	h := newServer(t, mock.Options{Now: clock.now})
	decodeOK(t, "POST fault", admin(t, h, "POST", "/__mock/faults",
		`{"method":"GET","path":"/settings/ai","stale_read":{"for":"2s"}}`), new(mock.Fault))
	patch(t, h, `{"feedback":[{"rating":1,"signature":"A"}]}`)
	var set mock.Settings
	for _, tc := range []struct {
		wait time.Duration
		want bool // stale
	}{{0, true}, {time.Second, true}, {time.Second, false}} {
		clock.add(tc.wait)
		decodeOK(t, "settings", get(t, h, "/api/v1/settings/ai"), &set)
		if stale := set.Feedback[0].Signature != "A"; stale != tc.want {
			t.Errorf("after %v more: stale %v, want %v", tc.wait, stale, tc.want)
		}
	}
}

// Under counts_lag a badge that shows counts_only beside the list
// disagrees with it; a badge that shows the list's own total agrees.
// With page_drift bringing reviews, the lag is the reviews that arrived.
func TestCountsLagBadgeBesideAList(t *testing.T) {
	h := newServer(t, mock.Options{})
	for _, f := range []string{
		`{"method":"GET","path":"/feedbacks","page_drift":{"arrive":3},"times":1}`,
		`{"method":"GET","path":"/feedbacks","counts_lag":{"changes":3}}`,
	} {
		decodeOK(t, "POST fault", admin(t, h, "POST", "/__mock/faults?session=b", f), new(mock.Fault))
	}
	shown := listOf(t, h, "b", "answered=0&limit=20")
	var badge countsData
	decodeOK(t, "counts", get(t, h, "/api/v1/feedbacks?answered=0&counts_only=1", "X-Mock-Session", "b"), &badge)
	if badge.Unanswered != shown.Total-3 {
		t.Errorf("the naive badge says %d unanswered beside a list of %d: want it 3 behind", badge.Unanswered, shown.Total)
	}
	// The careful UI badges the list's own total.
	if again := listOf(t, h, "b", "answered=0&limit=20"); again.Total != shown.Total {
		t.Errorf("the list's total moved from %d to %d", shown.Total, again.Total)
	}
	// Counted in time: with page_drift's arrivals a minute apart after
	// the newest review, a lag of 150s leaves out the newest three.
	for _, f := range []string{
		`{"method":"GET","path":"/feedbacks","page_drift":{"arrive":5},"times":1}`,
		`{"method":"GET","path":"/feedbacks","counts_lag":{"for":"150s"}}`,
	} {
		decodeOK(t, "POST fault", admin(t, h, "POST", "/__mock/faults?session=c", f), new(mock.Fault))
	}
	all := listOf(t, h, "c", "limit=5")
	if c := counts(t, h, "X-Mock-Session", "c"); c.Total != all.Total-3 {
		t.Errorf("counts say %d beside a list of %d under a 150s lag, want 3 fewer", c.Total, all.Total)
	}
}

// Under reply_rejected, answers come back rejected: the client that
// marked reviews done once they were answered, and never looked again,
// misses reviews that need a reply; the client that reads answered=0
// again finds them, marked rejected, their text kept. The same seed
// rejects the same reviews; the counts follow the list.
func TestReplyRejectedNaiveAndCarefulClients(t *testing.T) {
	h := newServer(t, mock.Options{})
	const rejected = `{"method":"GET","path":"/feedbacks","reply_rejected":{"reject":2},"probability":0.5,"times":4,"seed":11}`
	run := func(session string) (missed []int64) {
		before := counts(t, h, "X-Mock-Session", session)
		// The naive client: what it saw answered is done for good.
		done := map[int64]string{}
		for _, f := range listOf(t, h, session, "answered=1&limit=100").Feedbacks {
			done[f.ID] = f.AnswerText
		}
		decodeOK(t, "POST fault", admin(t, h, "POST", "/__mock/faults?session="+session, rejected), new(mock.Fault))
		for range 20 {
			listOf(t, h, session, "limit=1") // the list is read on, moderation goes on: 4 hits
		}
		// The careful client reads answered=0 again.
		again := listOf(t, h, session, "answered=0&limit=100")
		for _, f := range again.Feedbacks {
			if f.AnswerState != "rejected" {
				continue
			}
			text, wasDone := done[f.ID]
			if !wasDone || f.AnswerText != text || f.State != "new" {
				t.Errorf("review %d rejected: done before %v, text %q then %q, state %q", f.ID, wasDone, text, f.AnswerText, f.State)
			}
			missed = append(missed, f.ID)
		}
		after := counts(t, h, "X-Mock-Session", session)
		if after.Answered != before.Answered-len(missed) || after.Unanswered != before.Unanswered+len(missed) || after.Total != before.Total {
			t.Errorf("counts %+v after %d rejected, %+v before", after, len(missed), before)
		}
		for _, f := range listOf(t, h, session, "answered=1&limit=100").Feedbacks {
			if slices.Contains(missed, f.ID) {
				t.Errorf("review %d, rejected, is still in answered=1", f.ID)
			}
		}
		return missed
	}
	first := run("r1")
	if len(first) != 8 {
		t.Fatalf("rejected %v: want 4 hits of 2", first)
	}
	if second := run("r2"); !slices.Equal(second, first) {
		t.Errorf("the same seed rejected %v, then %v", first, second)
	}
}

// Every new rule of the live kinds is refused with its field, and
// nothing is added.
func TestLiveFaultRefusals(t *testing.T) {
	h := newServer(t, mock.Options{})
	for _, tc := range []struct{ body, field string }{
		{`{"page_drift":{}}`, "page_drift"},
		{`{"page_drift":{"arrive":-1}}`, "page_drift.arrive"},
		{`{"page_drift":{"arrive":101}}`, "page_drift.arrive"},
		{`{"page_drift":{"arrive":1,"answer":101}}`, "page_drift.answer"},
		{`{"page_drift":{"answer":-2}}`, "page_drift.answer"},
		{`{"page_drift":{"arrive":"3"}}`, "page_drift.arrive"},
		{`{"stale_read":{}}`, "stale_read"},
		{`{"stale_read":{"reads":-1}}`, "stale_read.reads"},
		{`{"stale_read":{"reads":1001}}`, "stale_read.reads"},
		{`{"stale_read":{"for":"11m"}}`, "stale_read.for"},
		{`{"stale_read":{"for":"-1s"}}`, "stale_read.for"},
		{`{"stale_read":{"for":"soon"}}`, "stale_read.for"},
		{`{"counts_lag":{}}`, "counts_lag"},
		{`{"counts_lag":{"changes":-1}}`, "counts_lag.changes"},
		{`{"counts_lag":{"changes":501}}`, "counts_lag.changes"},
		{`{"counts_lag":{"for":"25h"}}`, "counts_lag.for"},
		{`{"counts_lag":{"for":"-1m"}}`, "counts_lag.for"},
		{`{"reply_rejected":{}}`, "reply_rejected.reject"},
		{`{"reply_rejected":{"reject":0}}`, "reply_rejected.reject"},
		{`{"reply_rejected":{"reject":101}}`, "reply_rejected.reject"},
		{`{"reply_rejected":{"reject":"1"}}`, "reply_rejected.reject"},
	} {
		r := admin(t, h, "POST", "/__mock/faults", tc.body)
		checkError(t, tc.body, r, http.StatusBadRequest, "invalid_body", tc.field)
	}
	var l faultList
	decodeOK(t, "faults", admin(t, h, "GET", "/__mock/faults", ""), &l)
	if len(l.Faults) != 0 {
		t.Errorf("refused faults were added: %+v", l.Faults)
	}
}

// In a fleet the live faults act as in one process, whichever replica
// serves: a list walked across two replicas moves (page_drift) and
// loses answers (reply_rejected) exactly as in one process, and a read
// on one replica lags a write on the other.
func TestLiveFaultsInAFleet(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)}
	one := newServer(t, mock.Options{Now: clock.now})
	_, ss := fleet(t, 2, mock.Options{Now: clock.now})
	for sid, f := range map[string]string{
		"w":  `{"method":"GET","path":"/feedbacks","page_drift":{"arrive":3,"answer":1},"probability":0.5,"times":6,"seed":7}`,
		"rj": `{"method":"GET","path":"/feedbacks","reply_rejected":{"reject":3},"probability":0.5,"times":6,"seed":7}`,
	} {
		decodeOK(t, "POST fault", admin(t, one, "POST", "/__mock/faults?session="+sid, f), new(mock.Fault))
		want := walkList(t, one, sid, "answered=0&")
		if r := raw(ss[0], http.MethodPost, "/__mock/faults?session="+sid, f); r.status != 201 {
			t.Fatalf("fault: %d %s", r.status, r.body)
		}
		var got []int64
		for page := 0; ; page++ {
			r := raw(ss[page%2], http.MethodGet, fmt.Sprintf("/api/v1/feedbacks?answered=0&offset=%d&limit=20", page*20), "", mock.HeaderSession, sid)
			var d listData
			decodeOK(t, "page", r, &d)
			for _, f := range d.Feedbacks {
				got = append(got, f.ID)
			}
			if len(d.Feedbacks) < 20 {
				break
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: a walk across two replicas saw %v\none process saw %v", sid, got, want)
		}
	}

	if r := raw(ss[0], http.MethodPost, "/__mock/faults?session=s", `{"method":"GET","path":"/settings/ai","stale_read":{"for":"2s"}}`); r.status != 201 {
		t.Fatalf("fault: %d %s", r.status, r.body)
	}
	if r := raw(ss[0], http.MethodPatch, "/api/v1/settings/ai", `{"feedback":[{"rating":1,"signature":"B"}]}`, mock.HeaderSession, "s"); r.status != 200 {
		t.Fatalf("PATCH: %d %s", r.status, r.body)
	}
	if r := raw(ss[1], http.MethodGet, "/api/v1/settings/ai", "", mock.HeaderSession, "s"); strings.Contains(string(r.body), `"signature":"B"`) {
		t.Error("a read on the other replica within 2s of the write showed it")
	}
	clock.add(2 * time.Second)
	if r := raw(ss[1], http.MethodGet, "/api/v1/settings/ai", "", mock.HeaderSession, "s"); !strings.Contains(string(r.body), `"signature":"B"`) {
		t.Errorf("a read 2s after the write does not show it: %s", r.body)
	}

	// The reads a stale_read lags by are counted across the fleet: 3 in
	// all, whichever replica serves them, for each write.
	if r := raw(ss[0], http.MethodPost, "/__mock/faults?session=n", `{"method":"GET","path":"/settings/ai","stale_read":{"reads":3}}`); r.status != 201 {
		t.Fatalf("fault: %d %s", r.status, r.body)
	}
	for _, sig := range []string{"C", "D"} {
		if r := raw(ss[1], http.MethodPatch, "/api/v1/settings/ai", `{"feedback":[{"rating":1,"signature":"`+sig+`"}]}`, mock.HeaderSession, "n"); r.status != 200 {
			t.Fatalf("PATCH: %d %s", r.status, r.body)
		}
		stale := 0
		for i := range 8 {
			r := raw(ss[i%2], http.MethodGet, "/api/v1/settings/ai", "", mock.HeaderSession, "n")
			if !strings.Contains(string(r.body), `"signature":"`+sig+`"`) {
				stale++
			}
		}
		if stale != 3 {
			t.Errorf("after writing %s, %d of 8 reads across two replicas were stale, want 3", sig, stale)
		}
	}
}

// A session's last write, which stale reads lag, is in its snapshot and
// comes back with it.
func TestStaleReadSurvivesASnapshot(t *testing.T) {
	h := newServer(t, mock.Options{})
	decodeOK(t, "POST fault", admin(t, h, "POST", "/__mock/faults", `{"method":"GET","path":"/settings/ai","stale_read":{"reads":1}}`), new(mock.Fault))
	patch(t, h, `{"feedback":[{"rating":1,"signature":"C"}]}`)
	snap := takeSnapshot(t, h, "default", "application/json")
	if !strings.Contains(string(snap), `"last_write":{"before":`) {
		t.Fatalf("the snapshot has no last_write: %.300s", snap)
	}
	other := newServer(t, mock.Options{})
	decodeOK(t, "POST fault", admin(t, other, "POST", "/__mock/faults", `{"method":"GET","path":"/settings/ai","stale_read":{"reads":1}}`), new(mock.Fault))
	restore(t, other, "default", "application/json", snap)
	if r := get(t, other, "/api/v1/settings/ai"); strings.Contains(string(r.body), `"signature":"C"`) {
		t.Error("the restored session's first read after the write showed it")
	}
	if r := get(t, other, "/api/v1/settings/ai"); !strings.Contains(string(r.body), `"signature":"C"`) {
		t.Error("the restored session's second read does not show the write")
	}
}

// page_drift stops at MaxDrift reviews, however often it hits: a
// session's list never grows past it.
func TestPageDriftIsBounded(t *testing.T) {
	h := newServer(t, mock.Options{})
	base := counts(t, h, "X-Mock-Session", "big")
	decodeOK(t, "POST fault", admin(t, h, "POST", "/__mock/faults?session=big",
		`{"method":"GET","path":"/feedbacks","page_drift":{"arrive":100,"answer":100}}`), new(mock.Fault))
	var c countsData
	for range 8 {
		c = counts(t, h, "X-Mock-Session", "big")
	}
	// The answers go to the reviews that were there: all 31 unanswered.
	if c.Total != base.Total+mock.MaxDrift || c.Answered != base.Answered+base.Unanswered {
		t.Errorf("after 800 arrivals and answers asked: %+v on %+v, want %d more reviews and every old one answered", c, base, mock.MaxDrift)
	}
}
