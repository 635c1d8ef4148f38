package mocktest_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/mock/mocktest"
)

// Each builder method sets its field and only it, on a copy.
func TestReviewBuilder(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	s := func(v string) *string { return &v }
	nm, zero := int64(42), 0
	for _, tc := range []struct {
		name string
		b    mocktest.ReviewBuilder
		want mock.SeedReview
	}{
		{"Review", mocktest.Review(), mock.SeedReview{ProductValuation: 5}},
		{"Rating", mocktest.Review().Rating(2), mock.SeedReview{ProductValuation: 2}},
		{"Text", mocktest.Review().Text("t"), mock.SeedReview{ProductValuation: 5, Text: "t"}},
		{"Pros", mocktest.Review().Pros("p"), mock.SeedReview{ProductValuation: 5, Pros: "p"}},
		{"Cons", mocktest.Review().Cons("c"), mock.SeedReview{ProductValuation: 5, Cons: "c"}},
		{"Answered", mocktest.Review().Answered("a"), mock.SeedReview{ProductValuation: 5, AnswerText: "a"}},
		{"Product", mocktest.Review().Product(42), mock.SeedReview{ProductValuation: 5, NmID: &nm}},
		{"Created", mocktest.Review().Created(at), mock.SeedReview{ProductValuation: 5, CreatedDate: s("2026-03-04 05:06:07")}},
		{"FeedbackID", mocktest.Review().FeedbackID("f"), mock.SeedReview{ProductValuation: 5, FeedbackID: s("f")}},
		{"User", mocktest.Review().User("u"), mock.SeedReview{ProductValuation: 5, UserName: "u"}},
		{"Tags", mocktest.Review().Tags("a", "b"), mock.SeedReview{ProductValuation: 5, ValuationTags: []string{"a", "b"}}},
		{"Photos", mocktest.Review().Photos(mock.Photo{FullSize: "f", MiniSize: "m"}), mock.SeedReview{ProductValuation: 5, Photos: []mock.Photo{{FullSize: "f", MiniSize: "m"}}}},
		{"Unviewed", mocktest.Review().Unviewed(), mock.SeedReview{ProductValuation: 5, WasViewed: &zero}},
		{"With", mocktest.Review().With(func(r *mock.SeedReview) { r.State = s("x") }), mock.SeedReview{ProductValuation: 5, State: s("x")}},
	} {
		if got := tc.b.SeedReview(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
	// A template is not changed by what is built from it, slices included.
	tags := []string{"a"}
	tpl := mocktest.Review().Tags(tags...)
	tags[0] = "changed"
	tpl.With(func(r *mock.SeedReview) { r.ValuationTags[0] = "changed too" })
	tpl.Rating(1)
	if got := tpl.SeedReview(); got.ValuationTags[0] != "a" || got.ProductValuation != 5 {
		t.Errorf("the template changed: %+v", got)
	}
}

// SeedReviews replaces the session's data, AppendReviews adds to it,
// ClearReviews brings the scenario's back; other sessions see none of it.
func TestSeedAndClearReviews(t *testing.T) {
	srv := mocktest.New(t)
	total := func(session string) int {
		_, body := call(t, srv, "GET", "/feedbacks?counts_only=1", mock.HeaderSession, session)
		var env struct{ Data struct{ Total int } }
		if err := json.Unmarshal(body, &env); err != nil {
			t.Fatal(err)
		}
		return env.Data.Total
	}
	scenario := total("other")
	got := srv.SeedReviews(t, "s", mocktest.Review().Rating(1).Text("один"), mocktest.Review().Answered("да"))
	if len(got) != 2 || got[0].Text != "один" || got[0].ProductValuation != 1 || got[1].AnswerState != "sent" || got[0].ProductName == "" {
		t.Fatalf("SeedReviews returned %+v", got)
	}
	more := srv.AppendReviews(t, "s", mocktest.Review().Rating(3))
	if total("s") != 3 || total("other") != scenario || more[0].ID != 3 {
		t.Errorf("s has %d, other %d; appended id %d", total("s"), total("other"), more[0].ID)
	}
	srv.AppendReviews(t, "", mocktest.Review())
	if total(mock.DefaultSession) != scenario+1 {
		t.Errorf("the default session: %d", total(mock.DefaultSession))
	}
	srv.ClearReviews(t, "s")
	srv.ClearReviews(t, "")
	if total("s") != scenario || total(mock.DefaultSession) != scenario {
		t.Errorf("after ClearReviews: s %d, default %d; want %d", total("s"), total(mock.DefaultSession), scenario)
	}
}

// A review the server refuses fails the test with the field named; the
// session's data stays as it was.
func TestSeedReviewsFails(t *testing.T) {
	srv := mocktest.New(t)
	rec := &recordingTB{}
	for _, f := range []func(){
		func() { srv.SeedReviews(rec, "s", mocktest.Review(), mocktest.Review().Rating(9)) },
		func() {
			srv.AppendReviews(rec, "s", mocktest.Review().FeedbackID("x"), mocktest.Review().FeedbackID("x"))
		},
		func() { srv.SeedReviews(rec, mock.AllSessions, mocktest.Review()) },
	} {
		if rec.run(f) {
			t.Error("a refused review did not fail the test")
		}
	}
	want := []string{"reviews[1].product_valuation", "reviews[1].feedback_id", "session"}
	for i, msg := range rec.fatals {
		if !strings.HasPrefix(msg, "mocktest: ") || !strings.Contains(msg, want[i]) {
			t.Errorf("failure %d: %q, want it to name %s", i, msg, want[i])
		}
	}
	if len(rec.fatals) != 3 || rec.helpers == 0 {
		t.Errorf("%d failures, %d Helper calls", len(rec.fatals), rec.helpers)
	}
	if _, body := call(t, srv, "GET", "/feedbacks?counts_only=1", mock.HeaderSession, "s"); !strings.Contains(string(body), `"total":1009`) {
		t.Errorf("after the refusals: %s", body)
	}
}
