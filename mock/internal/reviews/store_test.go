package reviews

import (
	"bytes"
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
	order := make([]int, len(all))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		a, b := &all[i], &all[j]
		if a.CreatedDate != b.CreatedDate {
			return strings.Compare(b.CreatedDate, a.CreatedDate)
		}
		return int(b.ID - a.ID)
	})
	needle := Fold(q.Search)
	for _, i := range order {
		f := &all[i]
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
		isAnswered := f.AnswerText != "" && f.AnswerState != "rejected"
		if isAnswered {
			answered++
		} else {
			unanswered++
		}
		if q.Answered != AnyAnswered && isAnswered != (q.Answered == 1) {
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

// A Stack agrees with the reference on random queries through rounds of
// answers, drafts and arrivals; every stack it was made from still
// answers as it did, and the base store never changes.
func TestStackMatchesReference(t *testing.T) {
	base, err := New(synthetic(1500, 11))
	if err != nil {
		t.Fatal(err)
	}
	truth := decodeAll(t, base, base.Len())
	stackRounds(t, NewStack(base), truth, base, rand.New(rand.NewPCG(3, 4)))
}

// A mixed Stack, a session's reviews among the scenario's at any dates,
// agrees with the reference in the same rounds; so do its OldestFirst
// and Newest.
func TestMixedStackMatchesReference(t *testing.T) {
	base, err := New(synthetic(1500, 11))
	if err != nil {
		t.Fatal(err)
	}
	own := synthetic(300, 12)
	for i := range own {
		own[i].FeedbackID = fmt.Sprintf("own-%d", i)
		own[i].NmID = int64(100000 + i%60) // some products of the base's, some not
		if i%7 == 0 {
			own[i].CreatedDate = synthetic(1500, 11)[i].CreatedDate // the same second as one of the base's
		}
	}
	ownSt, err := NewFrom(base.Next(), own)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewMixedStack(ownSt, base); err == nil {
		t.Error("NewMixedStack took added reviews whose ids are not after the base's")
	}
	s, err := NewMixedStack(base, ownSt)
	if err != nil {
		t.Fatal(err)
	}
	truth := append(decodeAll(t, base, base.Len()), decodeAll(t, ownSt, len(own))[base.Len():]...)
	stackRounds(t, s, truth, base, rand.New(rand.NewPCG(5, 6)))
}

// decodeAll decodes st's reviews into a slice indexed by id - 1, n long.
func decodeAll(t *testing.T, st *Store, n int) []Feedback {
	t.Helper()
	truth := make([]Feedback, max(n, int(st.Next()-1)))
	for pos := range st.Len() {
		var f Feedback
		if err := json.Unmarshal(st.JSON(pos), &f); err != nil {
			t.Fatal(err)
		}
		truth[f.ID-1] = f
	}
	return truth
}

// stackRounds changes s (whose reviews are truth, by id - 1, and which
// stands on base) in rounds of answers, drafts and arrivals, checking
// each version against the reference.
func stackRounds(t *testing.T, s *Stack, truth []Feedback, base *Store, rng *rand.Rand) {
	baseBefore := marshalAll(t, base.Len(), base.JSON)
	type version struct {
		s     *Stack
		truth []Feedback
	}
	var versions []version
	check := func(s *Stack, truth []Feedback, round int) {
		t.Helper()
		if s.Len() != len(truth) {
			t.Fatalf("round %d: Len %d, want %d", round, s.Len(), len(truth))
		}
		for i := range 40 {
			q := randomQuery(rng)
			res := s.Find(q)
			page, total, answered, unanswered := reference(truth, q)
			var got []int64
			for _, pos := range res.Page {
				var f Feedback
				if err := json.Unmarshal(s.JSON(pos), &f); err != nil {
					t.Fatal(err)
				}
				got = append(got, f.ID)
				if want := AppendJSON(nil, &truth[f.ID-1]); !bytes.Equal(s.JSON(pos), want) {
					t.Fatalf("round %d: review %d:\n got %s\nwant %s", round, f.ID, s.JSON(pos), want)
				}
				if m, want := s.Meta(pos), metaOf(&truth[f.ID-1], s.Meta(pos).Created); m != want {
					t.Fatalf("round %d: review %d: Meta %+v, want %+v", round, f.ID, m, want)
				}
			}
			if !slices.Equal(got, page) || res.Total != total || res.Answered != answered || res.Unanswered != unanswered {
				t.Fatalf("round %d, query %d %+v:\n got page %v total %d answered %d unanswered %d\nwant page %v total %d answered %d unanswered %d",
					round, i, q, got, res.Total, res.Answered, res.Unanswered, page, total, answered, unanswered)
			}
			if b, want := s.AppendPage(nil, res, q), appendPageOf(res, q, s.JSON); !bytes.Equal(b, want) || s.PageSize(res) != pageSize(res, s.JSON) {
				t.Fatalf("round %d: AppendPage or PageSize disagrees with the records' JSON", round)
			}
		}
		// Oldest first is the whole list backwards; the newest is its first.
		all := All()
		all.Limit = int64(len(truth))
		want, _, _, _ := reference(truth, all)
		slices.Reverse(want)
		var got []int64
		for pos := range s.OldestFirst() {
			got = append(got, idAt(t, s, pos))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: OldestFirst gives %d reviews, not the list backwards", round, len(got))
		}
		if pos, ok := s.Newest(); !ok || idAt(t, s, pos) != want[len(want)-1] {
			t.Fatalf("round %d: Newest is not the list's first", round)
		}
	}
	check(s, truth, -1)
	for round := range 20 {
		var changes []Change
		for pos := range s.Len() {
			f := truth[idAt(t, s, pos)-1]
			if rng.IntN(8) != 0 {
				continue
			}
			switch {
			case f.AnswerState == "sent" && rng.IntN(3) == 0:
				// Moderation turns the answer down: no longer answered,
				// a flip from the store's state, or one undone.
				f.AnswerState, f.State = AnswerStateRejected, "new"
			case f.AnswerState == AnswerStateRejected:
				f.AnswerState, f.State = "sent", "done"
			case f.AnswerText != "":
				continue
			case f.AnswerState == AnswerStateDraft || rng.IntN(2) == 0:
				f.AnswerText, f.AnswerState, f.State, f.WasViewed = fmt.Sprintf("Ответ %d", round), "sent", "done", 1
			default:
				f.AnswerState, f.State = AnswerStateDraft, "draft"
			}
			changes = append(changes, Change{Pos: pos, F: &f})
		}
		var arrivals []Feedback
		if rng.IntN(3) > 0 {
			newest := time.Date(2026, 11, 15, 21, 0, 0, 0, time.UTC)
			for _, f := range truth {
				if c, _ := time.Parse(TimestampLayout, f.CreatedDate); c.After(newest) {
					newest = c
				}
			}
			for i, f := range synthetic(1+rng.IntN(1<<rng.IntN(10)), uint64(round)) {
				f.FeedbackID = fmt.Sprintf("new-%d-%d", round, i)
				newest = newest.Add(time.Duration(rng.IntN(2)) * time.Hour)
				f.CreatedDate = newest.Format(TimestampLayout)
				arrivals = append(arrivals, f)
			}
		}
		next, err := s.With(changes, arrivals)
		if err != nil {
			t.Fatal(err)
		}
		truth = slices.Clone(truth)
		for _, c := range changes {
			truth[c.F.ID-1] = *c.F
		}
		for i := range arrivals {
			arrivals[i].ID = int64(len(truth) + 1)
			truth = append(truth, arrivals[i])
		}
		versions = append(versions, version{s, nil})
		s = next
		check(s, truth, round)
		versions[len(versions)-1].truth = truth
		if len(s.layers) > 12 {
			t.Errorf("round %d: %d layers", round, len(s.layers))
		}
		if s.Bytes() <= 0 && len(s.layers) > s.bottom() {
			t.Errorf("round %d: Bytes %d", round, s.Bytes())
		}
	}
	t.Logf("%d reviews in %d layers, %d bytes beyond the bottom", s.Len(), len(s.layers), s.Bytes())
	// Older stacks answer as they did: With changed none of them.
	for i := 1; i < len(versions); i += 5 {
		check(versions[i].s, versions[i-1].truth, -i)
	}
	if !bytes.Equal(marshalAll(t, base.Len(), base.JSON), baseBefore) {
		t.Error("the base store changed")
	}
}

// idAt is the id of the review at pos.
func idAt(t *testing.T, s *Stack, pos int) int64 {
	t.Helper()
	var f struct{ ID int64 }
	if err := json.Unmarshal(s.JSON(pos), &f); err != nil {
		t.Fatal(err)
	}
	return f.ID
}

func marshalAll(t *testing.T, n int, js func(int) []byte) []byte {
	t.Helper()
	var b []byte
	for i := range n {
		b = append(append(b, js(i)...), '\n')
	}
	return b
}

func appendPageOf(res Result, q Query, js func(int) []byte) []byte {
	var parts [][]byte
	for _, i := range res.Page {
		parts = append(parts, js(i))
	}
	return fmt.Appendf(nil, `{"feedbacks":[%s],"total":%d,"limit":%d,"offset":%d}`, bytes.Join(parts, []byte(",")), res.Total, q.Limit, q.Offset)
}

func pageSize(res Result, js func(int) []byte) int {
	n := 0
	for _, i := range res.Page {
		n += len(js(i)) + 1
	}
	return n
}

// randomQuery is a list query with random filters, alone and combined.
func randomQuery(rng *rand.Rand) Query {
	day := func() int32 {
		return DayNumber(time.Date(2025, 11, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, rng.IntN(420)))
	}
	searches := []string{"качество", "ёлка", "ДИРКА", "straße", "ART-00", "1000", "нет такого", "👍"}
	q := All()
	q.Limit, q.Offset = int64(1+rng.IntN(100)), int64(rng.IntN(3)*rng.IntN(900))
	if rng.IntN(2) == 0 {
		q.Answered = int8(rng.IntN(2))
	}
	if rng.IntN(2) == 0 {
		q.Rating = int8(1 + rng.IntN(5))
	}
	if rng.IntN(3) == 0 {
		q.NmID = int64(100000 + rng.IntN(45))
	}
	if rng.IntN(3) == 0 {
		q.DayFrom = day()
	}
	if rng.IntN(3) == 0 {
		q.DayTo = day()
	}
	if rng.IntN(4) == 0 {
		q.Search = searches[rng.IntN(len(searches))]
	}
	q.CountsOnly = rng.IntN(6) == 0
	return q
}
