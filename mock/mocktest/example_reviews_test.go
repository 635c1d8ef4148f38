package mocktest_test

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/mock/mocktest"
)

// feedbacks lists one session's reviews (query after the ?).
func feedbacks(t *exampleT, srv *mocktest.Server, session, query string) (list struct {
	Feedbacks []mock.Feedback `json:"feedbacks"`
	Total     int             `json:"total"`
}) {
	exchange(t, srv, session, "GET", "/feedbacks?"+query, "", &list)
	return list
}

// A test's own reviews: the session's list is exactly these, in the
// order given, with what the test leaves out filled in.
func ExampleServer_SeedReviews() {
	t := &exampleT{} // in a test: the test's *testing.T
	defer t.finish()

	srv := mocktest.New(t)
	seeded := srv.SeedReviews(t, "test-1",
		mocktest.Review().Rating(1).Text("Пришёл с дыркой"),
		mocktest.Review().Rating(5).Text("Отличный плед").Answered("Спасибо!"),
		mocktest.Review().Rating(4), // rating only
	)
	fmt.Println("ids:", seeded[0].ID, seeded[1].ID, seeded[2].ID, "feedback_id of 20:", len(seeded[0].FeedbackID) == 20)

	list := feedbacks(t, srv, "test-1", "answered=0")
	fmt.Println("unanswered:", list.Total)
	for _, f := range list.Feedbacks {
		fmt.Printf("%d★ %q %s\n", f.ProductValuation, f.Text, f.CreatedDate)
	}
	// Output:
	// ids: 3 2 1 feedback_id of 20: true
	// unanswered: 2
	// 1★ "Пришёл с дыркой" 2026-11-15 21:00:00
	// 4★ "" 2026-11-15 20:58:00
}

// One more review among the scenario's: here an angry one on the
// hand-written edge cases' product, dated where a test wants it.
func ExampleServer_AppendReviews() {
	t := &exampleT{} // in a test: the test's *testing.T
	defer t.finish()

	srv := mocktest.New(t)
	before := feedbacks(t, srv, "test-2", "rating=1&nm_id=555000111")
	added := srv.AppendReviews(t, "test-2",
		mocktest.Review().Rating(1).Product(555000111).Text("Линяет").Created(time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)))
	after := feedbacks(t, srv, "test-2", "rating=1&nm_id=555000111")
	fmt.Println("1★ of the product:", before.Total, "then", after.Total)
	fmt.Println("added:", added[0].ProductName, added[0].CreatedDate)

	srv.ClearReviews(t, "test-2")
	fmt.Println("cleared:", feedbacks(t, srv, "test-2", "rating=1&nm_id=555000111").Total)
	// Output:
	// 1★ of the product: 1 then 2
	// added: Плед флисовый «Северное сияние» 150×200 см 2026-07-01 12:00:00
	// cleared: 1
}

// A builder is a value: a template for several reviews, and the review
// the server takes, in the fixture format.
func ExampleReview() {
	angry := mocktest.Review().Rating(1).Product(555000111)
	first := angry.Text("Брак").FeedbackID("A1")
	second := angry.Unviewed().Tags("качество").With(func(r *mock.SeedReview) {
		r.Video = &mock.Video{PreviewImage: "https://cdn.example/v1.jpg", Link: "https://cdn.example/v1.m3u8", DurationSec: 12}
	})

	for _, b := range []mocktest.ReviewBuilder{angry, first, second} {
		js, _ := json.Marshal(b.SeedReview())
		fmt.Println(string(js))
	}
	// Output:
	// {"nm_id":555000111,"product_valuation":1}
	// {"feedback_id":"A1","nm_id":555000111,"text":"Брак","product_valuation":1}
	// {"nm_id":555000111,"product_valuation":1,"valuation_tags":["качество"],"video":{"previewImage":"https://cdn.example/v1.jpg","link":"https://cdn.example/v1.m3u8","durationSec":12},"was_viewed":0}
}

// A test that seeded its session can give it back its scenario's data.
func ExampleServer_ClearReviews() {
	t := &exampleT{} // in a test: the test's *testing.T
	defer t.finish()

	srv := mocktest.New(t)
	scenario := feedbacks(t, srv, "test-3", "limit=1").Total
	srv.SeedReviews(t, "test-3", mocktest.Review().Rating(2).Text("Мал"))
	fmt.Println("seeded:", feedbacks(t, srv, "test-3", "limit=1").Total)
	srv.ClearReviews(t, "test-3")
	fmt.Println("cleared, the scenario's again:", feedbacks(t, srv, "test-3", "limit=1").Total == scenario)
	// Output:
	// seeded: 1
	// cleared, the scenario's again: true
}
