package mock

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/shared"
)

// seedReviews draws n reviews around the end of demo's data: some in the
// newest days, where the engine and the arrivals work, some in the same
// second as one of like's, of like's products or others.
func seedReviews(rng *rand.Rand, n int, like []Feedback) []SeedReview {
	recs := make([]SeedReview, n)
	end := time.Date(2026, 11, 15, 21, 0, 0, 0, time.UTC)
	for i := range recs {
		r := SeedReview{ProductValuation: 1 + rng.IntN(5)}
		created := end.Add(-time.Duration(rng.IntN(20*24*3600)) * time.Second)
		if rng.IntN(8) == 0 {
			created, _ = time.Parse(time.DateTime, like[rng.IntN(len(like))].CreatedDate)
		}
		d := created.Format(time.DateTime)
		r.CreatedDate = &d
		if rng.IntN(2) == 0 {
			nm := like[rng.IntN(len(like))].NmID
			r.NmID = &nm
		}
		if rng.IntN(5) > 0 {
			r.Text = []string{"Плед отличный", "качество так себе", "нет такого цвета", "555 раз покупаю"}[rng.IntN(4)]
		}
		if rng.IntN(3) == 0 {
			r.AnswerText = "Спасибо!"
		}
		if rng.IntN(6) == 0 {
			r.UserName = "Ира"
		}
		recs[i] = r
	}
	return recs
}

// A living shop on seeded data, replacing the scenario's or added among
// it, answers every query, page and count as the full-copy reference on
// those reviews does, through arrivals, drafts, answers, settings
// changes and clock advances: the engine goes through the reviews oldest
// first whatever layer they are in.
func TestShopOnSeededMatchesFullCopy(t *testing.T) {
	clock := time.Date(2026, 11, 20, 9, 30, 0, 250, time.UTC)
	s, err := New(Options{Scenarios: shopFiles(t, "{arrivals_per_hour: 60, reply_delay: 10m, clock: frozen}"), Scenario: "shop",
		Now: func() time.Time { return clock }, SessionTTL: 10000 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	sc := s.scenarioMap()["shop"]
	base, _ := sc.Store()
	scenario, err := base.Feedbacks()
	if err != nil {
		t.Fatal(err)
	}
	var nmIDs []int64
	for _, f := range scenario {
		if !slices.Contains(nmIDs, f.NmID) {
			nmIDs = append(nmIDs, f.NmID)
		}
	}
	rng := rand.New(rand.NewPCG(5, 9))
	for _, mode := range []string{SeedReplace, SeedAppend} {
		sid := "seeded-" + mode
		res, err := s.SeedReviews(sid, "", mode, seedReviews(rng, 400, scenario))
		if err != nil {
			t.Fatal(err)
		}
		more, err := s.SeedReviews(sid, "", SeedAppend, seedReviews(rng, 100, scenario))
		if err != nil {
			t.Fatal(err)
		}
		fbs := append(slices.Clone(res.Reviews), more.Reviews...)
		if mode == SeedAppend {
			fbs = append(fbs, scenario...)
		}
		slices.SortFunc(fbs, func(a, b Feedback) int {
			if c := strings.Compare(a.CreatedDate, b.CreatedDate); c != 0 {
				return c
			}
			return cmp.Compare(a.ID, b.ID)
		})
		ref := newRefShopOn(t, sc, clock, fbs)
		shopAgainstRef(t, s, sid, ref, &clock, rng, nmIDs)
	}
}

// A hot reload whose new data reaches the ids of reviews a session
// added moves them up past it: the session's list stays whole, without
// an id twice.
func TestSeedAfterReloadRenumbers(t *testing.T) {
	files := shopFiles(t, "{}")
	grow := func(n int) {
		files["grow.yaml"] = &fstest.MapFile{Data: fmt.Appendf(nil, "extends: default\ndescription: x\ndata:\n  generate: {count: %d}\n", n)}
	}
	grow(10)
	s, err := New(Options{Scenarios: files, Scenario: "grow"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.SeedReviews("g", "", SeedAppend, []SeedReview{{ProductValuation: 1}, {ProductValuation: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if res.FirstID != 11 {
		t.Fatalf("added from %d, want 11", res.FirstID)
	}
	used := s.st.Seeds().Used()
	grow(50)
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	var env struct {
		Data struct {
			Feedbacks []Feedback
			Total     int
		}
	}
	if err := json.Unmarshal(serve(t, s, "GET", "/api/v1/feedbacks?limit=100", "g", ""), &env); err != nil {
		t.Fatal(err)
	}
	seen := make(map[int64]bool)
	for _, f := range env.Data.Feedbacks {
		if seen[f.ID] {
			t.Fatalf("id %d twice", f.ID)
		}
		seen[f.ID] = true
	}
	if env.Data.Total != 52 || !seen[51] || !seen[52] {
		t.Errorf("after the reload: %d reviews; the added ones should be 51 and 52", env.Data.Total)
	}
	if u := s.st.Seeds().Used(); u <= 0 || u > 2*used {
		t.Errorf("seeded bytes %d, were %d", u, used)
	}
	// Cleared, nothing is counted.
	if n := s.ClearSeeded("g"); n != 2 || s.st.Seeds().Used() != 0 {
		t.Errorf("cleared %d, %d bytes left", n, s.st.Seeds().Used())
	}
}

// A reset keeps the seeded reviews for a request under way as well: one
// that got its session before the reset and reads the list after it
// sees them, as the session's next requests do; the bytes stay counted
// once. Each step is what a request or an admin call does, in the order
// a race runs them.
func TestResetKeepsSeedsForRequestsUnderWay(t *testing.T) {
	for _, name := range []string{"default", "demo-frozen"} { // a living shop too
		s, err := New(Options{Scenario: name})
		if err != nil {
			t.Fatal(err)
		}
		counts := func(ss *session, sc *Scenario) (rated, all int) {
			t.Helper()
			lst, err := ss.Reviews(sc, time.Now()) // the server's clock: Options.Now is nil
			if err != nil {
				t.Fatal(err)
			}
			q := reviews.All()
			all = lst.Find(q).Total
			q.Rating = 4
			return lst.Find(q).Total, all
		}
		res, err := s.SeedReviews("r", "", SeedReplace, []SeedReview{{ProductValuation: 4}, {ProductValuation: 4}, {ProductValuation: 4}})
		if err != nil {
			t.Fatal(err)
		}
		used := s.st.Seeds().Used()
		old, sc, err := s.resolve("r", "") // a request's session, got before the reset
		if err != nil {
			t.Fatal(err)
		}
		s.Reset("r")
		if rated, all := counts(old, sc); rated != 3 || all != res.Total {
			t.Errorf("%s: a request under way during a reset lists %d of the rating, %d in all; want the 3 seeded", name, rated, all)
		}
		fresh, _, err := s.resolve("r", "")
		if err != nil {
			t.Fatal(err)
		}
		if fresh == old {
			t.Fatalf("%s: the reset kept the session", name)
		}
		if rated, all := counts(fresh, sc); rated != 3 || all != res.Total {
			t.Errorf("%s: after a reset the session lists %d of the rating, %d in all; want the 3 seeded", name, rated, all)
		}
		if u := s.st.Seeds().Used(); u != used {
			t.Errorf("%s: a reset changed the seeded bytes from %d to %d", name, used, u)
		}
		// A DELETE after the reset forgets them, once.
		if n := s.ClearSeeded("r"); n != 3 || s.st.Seeds().Used() != 0 {
			t.Errorf("%s: a DELETE after a reset removed %d, left %d bytes counted", name, n, s.st.Seeds().Used())
		}
		if rated, _ := counts(fresh, sc); rated == 3 || shared.SeedInfoOf(fresh, sc) != nil {
			t.Errorf("%s: after a DELETE the session lists %d of the rating, seeded %+v", name, rated, shared.SeedInfoOf(fresh, sc))
		}
	}
}
