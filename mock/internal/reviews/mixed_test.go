package reviews

import (
	"encoding/json"
	"slices"
	"testing"
)

// NewNumbered keeps the ids it is given, orders by them within a second,
// and refuses an id given twice or one that is not positive.
func TestNewNumbered(t *testing.T) {
	fbs := []Feedback{
		{ID: 7, FeedbackID: "a", CreatedDate: "2026-01-01 00:00:00", Video: json.RawMessage("null")},
		{ID: 3, FeedbackID: "b", CreatedDate: "2026-01-02 00:00:00", Video: json.RawMessage("null")},
		{ID: 9, FeedbackID: "c", CreatedDate: "2026-01-02 00:00:00", Video: json.RawMessage("null")},
	}
	st, err := NewNumbered(slices.Clone(fbs))
	if err != nil {
		t.Fatal(err)
	}
	q := All()
	q.Limit = 10
	var got []int64
	for _, pos := range st.Find(q).Page {
		var f Feedback
		if err := json.Unmarshal(st.JSON(pos), &f); err != nil {
			t.Fatal(err)
		}
		got = append(got, f.ID)
	}
	if want := []int64{9, 3, 7}; !slices.Equal(got, want) || st.Next() != 10 {
		t.Errorf("ids in the list's order %v, next %d; want %v, 10", got, st.Next(), want)
	}
	for _, bad := range []int64{0, -1, 3} {
		b := slices.Clone(fbs)
		b[0].ID = bad
		if _, err := NewNumbered(b); err == nil {
			t.Errorf("NewNumbered took id %d beside 3 and 9", bad)
		}
	}
}

// FeedbackIDs reads every feedback_id back as it was, escapes included.
func TestFeedbackIDs(t *testing.T) {
	ids := []string{"plain", `quo"te`, `back\slash`, "emoji 😀", "ctl\u0001", "line\u2028sep", ""}
	var fbs []Feedback
	for _, id := range ids {
		fbs = append(fbs, Feedback{FeedbackID: id, CreatedDate: "2026-01-01 00:00:00", Video: json.RawMessage("null")})
	}
	st, err := New(fbs)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, id := range st.FeedbackIDs() {
		got = append(got, id)
	}
	slices.Sort(got)
	want := slices.Clone(ids)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("FeedbackIDs = %q, want %q", got, want)
	}
	all, err := st.Feedbacks()
	if err != nil || len(all) != len(ids) || all[0].FeedbackID != "plain" || all[0].ID != 1 {
		t.Errorf("Feedbacks = %d reviews, first %+v, err %v", len(all), all[0], err)
	}
}

// benchOwn is how many reviews BenchmarkMixedFind adds: a query's cost
// grows with it (about 1 µs a page with 100, 35 µs with 10,000).
const benchOwn = 10_000

// A mixed stack's queries against the plain store under it: 100,000
// reviews and benchOwn added among them (10,000: the most a session may
// seed).
func BenchmarkMixedFind(b *testing.B) {
	base := syntheticStore(b, 100_000)
	own := synthetic(benchOwn, 99)
	for i := range own {
		own[i].FeedbackID = "own" + own[i].FeedbackID
	}
	ownSt, err := NewFrom(base.Next(), own)
	if err != nil {
		b.Fatal(err)
	}
	mixed, err := NewMixedStack(base, ownSt)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		q    func(q *Query)
	}{
		{"first-page", func(q *Query) {}},
		{"deep-offset", func(q *Query) { q.Offset = 50_000 }},
		{"rating-answered", func(q *Query) { q.Rating, q.Answered = 1, 0 }},
		{"counts", func(q *Query) { q.CountsOnly = true }},
		{"search", func(q *Query) { q.Search = "дирка" }},
	} {
		q := All()
		q.Limit = 20
		c.q(&q)
		b.Run(c.name+"/plain", func(b *testing.B) {
			s := NewStack(base)
			for b.Loop() {
				s.Find(q)
			}
		})
		b.Run(c.name+"/mixed", func(b *testing.B) {
			for b.Loop() {
				mixed.Find(q)
			}
		})
	}
}
