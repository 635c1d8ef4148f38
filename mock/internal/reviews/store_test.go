package reviews

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// reference answers a query the obvious, slow way: every record tested
// against every filter, in the list's order.
func reference(all []Feedback, q Query) (page []int64, total, answered, unanswered int) {
	sorted := slices.Clone(all)
	slices.SortStableFunc(sorted, func(a, b Feedback) int {
		if a.CreatedDate != b.CreatedDate {
			return strings.Compare(b.CreatedDate, a.CreatedDate)
		}
		return int(b.ID - a.ID)
	})
	needle := Fold(q.Search)
	for _, f := range sorted {
		t, _ := time.Parse(TimestampLayout, f.CreatedDate)
		day := DayNumber(t)
		switch {
		case day < q.DayFrom || day > q.DayTo:
			continue
		case q.Rating != 0 && int8(f.ProductValuation) != q.Rating:
			continue
		case q.NmID != 0 && f.NmID != q.NmID:
			continue
		case q.Search != "" && !slices.ContainsFunc([]string{f.Text, f.Pros, f.Cons, f.SupplierArticle, fmt.Sprint(f.NmID)},
			func(s string) bool { return strings.Contains(Fold(s), needle) }):
			continue
		}
		if f.AnswerText != "" {
			answered++
		} else {
			unanswered++
		}
		if q.Answered != AnyAnswered && (f.AnswerText != "") != (q.Answered == 1) {
			continue
		}
		if !q.CountsOnly && int64(total) >= q.Offset && int64(len(page)) < q.Limit {
			page = append(page, f.ID)
		}
		total++
	}
	return page, total, answered, unanswered
}

// Find agrees with the reference on random queries, each filter alone and
// combined, on a store big enough that bitsets span many words.
func TestFindMatchesReference(t *testing.T) {
	fbs := synthetic(3000, 7)
	st, err := New(fbs) // numbers fbs: the reference sees the ids
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	day := func() int32 {
		return DayNumber(time.Date(2025, 11, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, rng.IntN(400)))
	}
	searches := []string{"качество", "ёлка", "ДИРКА", "straße", "ART-00", "1000", "нет такого", " ", "👍"}
	for i := range 600 {
		q := All()
		q.Limit, q.Offset = int64(1+rng.IntN(100)), int64(rng.IntN(3)*rng.IntN(400))
		if rng.IntN(2) == 0 {
			q.Answered = int8(rng.IntN(2))
		}
		if rng.IntN(2) == 0 {
			q.Rating = int8(1 + rng.IntN(5))
		}
		if rng.IntN(3) == 0 {
			q.NmID = int64(100000 + rng.IntN(45)) // some products do not exist
		}
		if rng.IntN(3) == 0 {
			q.DayFrom = day()
		}
		if rng.IntN(3) == 0 {
			q.DayTo = day()
		}
		if rng.IntN(3) == 0 {
			q.Search = strings.TrimSpace(searches[rng.IntN(len(searches))])
		}
		q.CountsOnly = rng.IntN(5) == 0
		res := st.Find(q)
		page, total, answered, unanswered := reference(fbs, q)
		var got []int64
		for _, pos := range res.Page {
			var f Feedback
			if err := json.Unmarshal(st.JSON(pos), &f); err != nil {
				t.Fatal(err)
			}
			got = append(got, f.ID)
		}
		if !slices.Equal(got, page) || res.Total != total || res.Answered != answered || res.Unanswered != unanswered {
			t.Fatalf("query %d %+v:\n got page %v total %d answered %d unanswered %d\nwant page %v total %d answered %d unanswered %d",
				i, q, got, res.Total, res.Answered, res.Unanswered, page, total, answered, unanswered)
		}
	}
}

// New numbers reviews from 1, oldest first, and a review's JSON is its
// record with that id.
func TestNewNumbersOldestFirst(t *testing.T) {
	fbs := []Feedback{
		{FeedbackID: "b", CreatedDate: "2026-01-02 00:00:00", Video: json.RawMessage("null")},
		{FeedbackID: "a", CreatedDate: "2026-01-01 00:00:00", Video: json.RawMessage("null")},
		{FeedbackID: "c", CreatedDate: "2026-01-02 00:00:00", Video: json.RawMessage("null")},
	}
	st, err := New(fbs)
	if err != nil {
		t.Fatal(err)
	}
	q := All()
	q.Limit = 10
	var order []string
	for _, pos := range st.Find(q).Page {
		var f Feedback
		json.Unmarshal(st.JSON(pos), &f)
		order = append(order, fmt.Sprintf("%s=%d", f.FeedbackID, f.ID))
	}
	// Within a second, the one given later is newer: c, then b.
	if want := []string{"c=3", "b=2", "a=1"}; !slices.Equal(order, want) {
		t.Errorf("list order %v, want %v", order, want)
	}
	if _, err := New([]Feedback{{FeedbackID: "x", CreatedDate: "yesterday"}}); err == nil {
		t.Error("New accepted a created_date that is not a timestamp")
	}
}

func TestDayNumberBefore1970(t *testing.T) {
	for _, c := range []struct {
		t    time.Time
		want int32
	}{
		{time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC), 0},
		{time.Date(1970, 1, 1, 23, 59, 59, 0, time.UTC), 0},
		{time.Date(1969, 12, 31, 23, 59, 59, 0, time.UTC), -1},
		{time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC), -1},
		{time.Date(1969, 12, 30, 12, 0, 0, 0, time.UTC), -2},
	} {
		if got := DayNumber(c.t); got != c.want {
			t.Errorf("DayNumber(%s) = %d, want %d", c.t, got, c.want)
		}
	}
	if q := All(); q.DayFrom != math.MinInt32 || q.DayTo != math.MaxInt32 || q.Answered != AnyAnswered {
		t.Errorf("All() = %+v: it must not filter", q)
	}
}

func TestParseDate(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
	}{{"2026-02-28", true}, {"2024-02-29", true}, {"2026-02-29", false}, {"2026-2-1", false}, {"2026-13-01", false}, {"", false}, {"2026-01-01 ", false}} {
		if _, ok := ParseDate(c.in); ok != c.ok {
			t.Errorf("ParseDate(%q) ok = %v, want %v", c.in, ok, c.ok)
		}
	}
}
