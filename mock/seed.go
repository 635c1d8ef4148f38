package mock

import (
	"github.com/replymock/replymock/mock/internal/admin"
	"github.com/replymock/replymock/mock/internal/fixture"
	"github.com/replymock/replymock/mock/internal/shared"
	"github.com/replymock/replymock/mock/internal/wire"
)

// Bounds of seeded reviews (PUT /__mock/data).
const (
	// MaxSeedBodyBytes is the largest body PUT /__mock/data accepts.
	MaxSeedBodyBytes = admin.MaxSeedBodyBytes
	// MaxSeedReviews bounds the reviews of one request, and those a
	// session keeps seeded.
	MaxSeedReviews = fixture.MaxSeedReviews
)

// CodeTooManyReviews refuses seeded reviews past MaxSeedReviews for a
// session, or past Options.MaxSeedBytes for all sessions.
const CodeTooManyReviews = wire.CodeTooManyReviews

// Seed modes: the reviews replace the scenario's data, or are added to it.
const (
	SeedReplace = fixture.SeedReplace
	SeedAppend  = fixture.SeedAppend
)

// Seeding reviews.
type (
	// SeedReview is a review to seed: a fixture's review in which only
	// product_valuation is required. The mock fills in feedback_id,
	// created_date and the product fields when they are nil.
	SeedReview = fixture.SeedReview
	// SeedResult is the answer of PUT /__mock/data and Server.SeedReviews.
	SeedResult = shared.SeedResult
	// SeedInfo says what a session seeded in a scenario.
	SeedInfo = shared.SeedInfo
)

// SeedReviews seeds reviews for session (DefaultSession for "") in
// scenario ("" for the session's), as PUT /__mock/data does. SeedReplace
// makes them the session's whole data there; SeedAppend adds them.
// Without created_date, the reviews are a minute apart, the first
// newest: for replace, from the scenario's end date; for append, after
// the session's newest review.
//
// A problem is an *APIError naming its field (reviews[2].nm_id): 400
// invalid_body for a bad or duplicate field, 409 too_many_reviews past
// the bounds. A refused request changes nothing.
func (s *Server) SeedReviews(session, scenario, mode string, recs []SeedReview) (SeedResult, error) {
	return s.st.SeedReviews(session, scenario, mode, recs)
}

// ClearSeeded forgets the reviews session (every session for
// AllSessions) seeded, in every scenario, as DELETE /__mock/data does.
// It returns how many reviews went.
func (s *Server) ClearSeeded(session string) int { return s.st.ClearSeeded(session) }
