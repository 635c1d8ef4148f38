package mocktest

import (
	"slices"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
)

// ReviewBuilder describes a review for SeedReviews and AppendReviews:
// what a test cares about, set by its methods; the server fills in the
// rest (feedback_id, dates, the product), the same way on every run.
// Each method returns a changed copy, so a builder can serve as a
// template for several reviews.
type ReviewBuilder struct{ r mock.SeedReview }

// Review starts a review: five stars, no text (a rating-only review), not
// answered, by an anonymous reviewer.
func Review() ReviewBuilder { return ReviewBuilder{r: mock.SeedReview{ProductValuation: 5}} }

// Rating sets the rating, 1 to 5 (product_valuation).
func (b ReviewBuilder) Rating(n int) ReviewBuilder { b.r.ProductValuation = n; return b }

// Text sets the review's text.
func (b ReviewBuilder) Text(s string) ReviewBuilder { b.r.Text = s; return b }

// Pros sets the advantages the reviewer names.
func (b ReviewBuilder) Pros(s string) ReviewBuilder { b.r.Pros = s; return b }

// Cons sets the disadvantages the reviewer names.
func (b ReviewBuilder) Cons(s string) ReviewBuilder { b.r.Cons = s; return b }

// Answered gives the review the seller's answer (answer_state "sent",
// state "done").
func (b ReviewBuilder) Answered(answer string) ReviewBuilder { b.r.AnswerText = answer; return b }

// Product puts the review on product nmID: the product's other fields
// are those the session's or the scenario's reviews of it have.
func (b ReviewBuilder) Product(nmID int64) ReviewBuilder { b.r.NmID = &nmID; return b }

// Created sets created_date (and so created_at), read as shop-local time.
func (b ReviewBuilder) Created(t time.Time) ReviewBuilder {
	s := t.Format(time.DateTime)
	b.r.CreatedDate = &s
	return b
}

// FeedbackID sets the marketplace's id of the review, unique in the
// session's data.
func (b ReviewBuilder) FeedbackID(id string) ReviewBuilder { b.r.FeedbackID = &id; return b }

// User sets the reviewer's name.
func (b ReviewBuilder) User(name string) ReviewBuilder { b.r.UserName = name; return b }

// Tags sets the valuation tags.
func (b ReviewBuilder) Tags(tags ...string) ReviewBuilder {
	b.r.ValuationTags = slices.Clone(tags)
	return b
}

// Photos sets the photos: each {fullSize, miniSize}, an http(s) URL or a
// path the mock serves (/__mock/media/photos/KEY/1/fs.jpg).
func (b ReviewBuilder) Photos(photos ...mock.Photo) ReviewBuilder {
	b.r.Photos = slices.Clone(photos)
	return b
}

// Unviewed marks the review as not viewed yet (was_viewed 0).
func (b ReviewBuilder) Unviewed() ReviewBuilder {
	zero := 0
	b.r.WasViewed = &zero
	return b
}

// With changes any field of the review, for what the other methods do
// not set (a video, the product's name, the states).
func (b ReviewBuilder) With(change func(r *mock.SeedReview)) ReviewBuilder {
	b.r.ValuationTags, b.r.Photos, b.r.Video = slices.Clone(b.r.ValuationTags), slices.Clone(b.r.Photos), cloneVideo(b.r.Video)
	change(&b.r)
	return b
}

// SeedReview is the review as the server takes it, for Server.Mock or
// the body of PUT /__mock/data.
func (b ReviewBuilder) SeedReview() mock.SeedReview { return b.With(func(*mock.SeedReview) {}).r }

// SeedReviews makes reviews the whole data of session ("" for the
// default session) in the scenario it uses: its list shows them and only
// them, in the order given (the first newest, unless dates are set). It
// returns them as the list shows them. Reset keeps them; ClearReviews
// brings the scenario's data back.
func (s *Server) SeedReviews(tb testing.TB, session string, reviews ...ReviewBuilder) []mock.Feedback {
	tb.Helper()
	return s.seed(tb, session, mock.SeedReplace, reviews)
}

// AppendReviews adds reviews to what session ("" for the default
// session) has in the scenario it uses: the scenario's data, or reviews
// seeded before. Without dates they are the newest, in the order given.
// It returns them as the list shows them.
func (s *Server) AppendReviews(tb testing.TB, session string, reviews ...ReviewBuilder) []mock.Feedback {
	tb.Helper()
	return s.seed(tb, session, mock.SeedAppend, reviews)
}

func (s *Server) seed(tb testing.TB, session, mode string, reviews []ReviewBuilder) []mock.Feedback {
	tb.Helper()
	recs := make([]mock.SeedReview, len(reviews))
	for i, b := range reviews {
		recs[i] = b.r
	}
	res, err := s.Mock.SeedReviews(session, "", mode, recs)
	if err != nil {
		tb.Fatalf("mocktest: %v", err)
	}
	return res.Reviews
}

// ClearReviews forgets the reviews seeded for session ("" for the
// default session, mock.AllSessions for every one), in every scenario:
// the session's list shows its scenario's data again.
func (s *Server) ClearReviews(tb testing.TB, session string) {
	tb.Helper()
	if session == "" {
		session = mock.DefaultSession
	}
	s.Mock.ClearSeeded(session)
}

// cloneVideo copies a video, so that builders share none.
func cloneVideo(v *mock.Video) *mock.Video {
	if v == nil {
		return nil
	}
	c := *v
	return &c
}
