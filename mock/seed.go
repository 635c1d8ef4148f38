package mock

import (
	"github.com/replymock/replymock/mock/internal/admin"
	"github.com/replymock/replymock/mock/internal/fixture"
	"github.com/replymock/replymock/mock/internal/shared"
	"github.com/replymock/replymock/mock/internal/wire"
)

// Bounds of seeded reviews (PUT /__mock/data).
const (
	// MaxSeedBodyBytes is the largest body PUT /__mock/data accepts (413
	// above it): room for MaxSeedReviews reviews of a usual size.
	MaxSeedBodyBytes = admin.MaxSeedBodyBytes
	// MaxSeedReviews bounds the reviews of one request (400 above it) and
	// those a session keeps seeded, in all its scenarios together (409).
	MaxSeedReviews = fixture.MaxSeedReviews
)

// CodeTooManyReviews refuses seeded reviews past MaxSeedReviews for a
// session, or past Options.MaxSeedBytes for all sessions (409 Conflict:
// clearing some makes room).
const CodeTooManyReviews = wire.CodeTooManyReviews

// Seed modes: the reviews replace the scenario's data, or are added to it.
const (
	SeedReplace = fixture.SeedReplace
	SeedAppend  = fixture.SeedAppend
)

// SeedReview is a review to seed with PUT /__mock/data or
// Server.SeedReviews: a record of a reviews fixture (fixtures/reviews/),
// with the spec's field names, in which only product_valuation is
// required. A nil field is filled in, the same way for the same
// session, position and scenario: feedback_id (20 letters and digits),
// created_date (see Server.SeedReviews), the product fields from the
// scenario's catalogue (nm_id, imt_id, product_name, supplier_article,
// brand_name; those of the product nm_id names, when it names one of
// the session's or the scenario's). The rest default as in a fixture:
// text, pros, cons and user_name empty (a rating-only review, an
// anonymous reviewer), created_at = created_date, answer_state and state
// from answer_text, was_viewed 1, no tags, photos or video. id is
// assigned.
type SeedReview = fixture.SeedReview

// SeedResult is the answer of PUT /__mock/data and Server.SeedReviews.
type SeedResult = shared.SeedResult

// SeedInfo says what a session seeded in a scenario (GET /__mock/data).
type SeedInfo = shared.SeedInfo

// SeedReviews seeds reviews for session (DefaultSession for "") in
// scenario ("": the session's), as PUT /__mock/data does: mode
// SeedReplace ("" too) makes them the session's whole data there,
// SeedAppend adds them to what it has (the scenario's data, or reviews
// it seeded to replace it). Missing fields are filled as SeedReview
// says; missing created_dates put the request's reviews a minute apart,
// the first newest: for replace, the first at the scenario's end date
// (data.generate.end, 2026-11-15 21:00:00 by default); for append, the
// last a minute after the session's newest review. Ids follow the
// highest the session's list has (from 1 for replace), oldest first.
//
// Every problem is an *APIError naming its field (reviews[2].nm_id):
// 400 invalid_body for a bad or duplicate field (a feedback_id given
// twice, or already in the session's data), 409 too_many_reviews past
// MaxSeedReviews for the session or Options.MaxSeedBytes for all. A
// refused request changes nothing. A living shop in the scenario starts
// again on the new data.
func (s *Server) SeedReviews(session, scenario, mode string, recs []SeedReview) (SeedResult, error) {
	return s.st.SeedReviews(session, scenario, mode, recs)
}

// ClearSeeded forgets the reviews session (every session for
// AllSessions) seeded, in every scenario, as DELETE /__mock/data does;
// living shops start again on the scenarios' data. It returns how many
// reviews went.
func (s *Server) ClearSeeded(session string) int { return s.st.ClearSeeded(session) }
