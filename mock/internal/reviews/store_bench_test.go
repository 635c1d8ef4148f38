package reviews

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"
)

// benchQueries are the query shapes of the performance targets.
func benchQueries(st *Store) []struct {
	name string
	q    Query
} {
	day := func(s string) int32 { t, _ := ParseDate(s); return DayNumber(t) }
	q := func(edit func(*Query)) Query {
		q := All()
		q.Limit = 20
		edit(&q)
		return q
	}
	return []struct {
		name string
		q    Query
	}{
		{"first-page", q(func(*Query) {})},
		{"limit100-deep-offset", q(func(q *Query) { q.Limit, q.Offset = 100, 400 })},
		{"answered-rating", q(func(q *Query) { q.Answered, q.Rating, q.Limit = 0, 1, 100 })},
		{"dates", q(func(q *Query) { q.DayFrom, q.DayTo, q.Limit = day("2026-03-01"), day("2026-04-30"), 100 })},
		{"all-filters", q(func(q *Query) {
			q.Answered, q.Rating, q.DayFrom, q.DayTo, q.Limit, q.Offset = 1, 5, day("2026-01-01"), day("2026-09-30"), 100, 50
		})},
		{"nm_id", q(func(q *Query) { q.NmID, q.Limit = 100007, 100 })},
		{"counts-only", q(func(q *Query) { q.CountsOnly, q.Rating, q.DayFrom = true, 4, day("2026-02-01") })},
		{"search-common", q(func(q *Query) { q.Search, q.Limit = "качество", 100 })},
		{"search-rare", q(func(q *Query) { q.Search, q.Limit = "дирка", 100 })},
		{"search-and-rating", q(func(q *Query) { q.Search, q.Rating, q.Answered, q.Limit = "качество", 5, 1, 100 })},
	}
}

// BenchmarkFind measures filtering and counting, without HTTP or
// encoding, at each shop size.
func BenchmarkFind(b *testing.B) {
	for _, n := range []int{1_000, 100_000, 1_000_000} {
		st := syntheticStore(b, n)
		for _, bq := range benchQueries(st) {
			b.Run(fmt.Sprintf("%s/n=%d", bq.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					st.Find(bq.q)
				}
			})
		}
	}
}

// BenchmarkPage measures assembling a page's JSON from encoded records.
func BenchmarkPage(b *testing.B) {
	for _, n := range []int{1_000, 1_000_000} {
		st := NewStack(syntheticStore(b, n))
		for _, limit := range []int64{20, 100} {
			q := All()
			q.Limit = limit
			res := st.Find(q)
			b.Run(fmt.Sprintf("limit=%d/n=%d", limit, n), func(b *testing.B) {
				b.ReportAllocs()
				var buf []byte
				for b.Loop() {
					buf = st.AppendPage(buf[:0], res, q)
				}
				b.SetBytes(int64(len(buf)))
			})
		}
	}
}

// BenchmarkNew measures building a store (encoding and indexing).
func BenchmarkNew(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		fbs := synthetic(n, 1)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			start := time.Now()
			for b.Loop() {
				if _, err := New(fbs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N)/float64(n), "ns/review")
		})
	}
}

// BenchmarkStack compares a living shop session's Stack (a shared base,
// a day of arrivals on top, answers as edits) with a Store holding the
// same reviews flat, as every session did before stacks.
func BenchmarkStack(b *testing.B) {
	for _, n := range []int{1_000, 20_000} {
		fbs := synthetic(n, 1)
		base, err := New(fbs)
		if err != nil {
			b.Fatal(err)
		}
		arrivals := synthetic(720, 2)
		newest, _ := time.Parse(TimestampLayout, "2026-11-15 21:00:00")
		for i := range arrivals {
			arrivals[i].CreatedDate = newest.Add(time.Duration(i+1) * 2 * time.Minute).Format(TimestampLayout)
			arrivals[i].AnswerText, arrivals[i].AnswerState, arrivals[i].State = "", "", "new"
		}
		var changes []Change
		flat := make([]Feedback, n) // by id - 1, as New numbered them
		for _, f := range fbs {
			flat[f.ID-1] = f
		}
		for i := range flat {
			if f := &flat[i]; f.AnswerText == "" && i%2 == 0 {
				f.AnswerText, f.AnswerState, f.State = "Спасибо!", "sent", "done"
			}
		}
		for pos := range base.Len() {
			var f Feedback
			json.Unmarshal(base.JSON(pos), &f)
			if g := flat[f.ID-1]; g.AnswerText != f.AnswerText {
				changes = append(changes, Change{Pos: pos, F: &g})
			}
		}
		stack, err := NewStack(base).With(changes, slices.Clone(arrivals))
		if err != nil {
			b.Fatal(err)
		}
		whole, err := New(append(flat, arrivals...))
		if err != nil {
			b.Fatal(err)
		}
		for _, bq := range benchQueries(whole) {
			for _, v := range []struct {
				name string
				find func(Query) Result
			}{{"flat", whole.Find}, {"stack", stack.Find}} {
				b.Run(fmt.Sprintf("%s/n=%d/%s", bq.name, n, v.name), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						v.find(bq.q)
					}
				})
			}
		}
		b.Run(fmt.Sprintf("page100/n=%d/stack", n), func(b *testing.B) {
			q := All()
			q.Limit = 100
			res := stack.Find(q)
			var buf []byte
			for b.Loop() {
				buf = stack.AppendPage(buf[:0], res, q)
			}
		})
		b.Run(fmt.Sprintf("page100/n=%d/flat", n), func(b *testing.B) {
			q := All()
			q.Limit = 100
			res := whole.Find(q)
			var buf []byte
			for b.Loop() {
				buf = NewStack(whole).AppendPage(buf[:0], res, q)
			}
		})
		b.Logf("n=%d: a day's stack holds %d bytes beyond the base; the flat store %d", n, stack.Bytes(), whole.Bytes())
	}
}
