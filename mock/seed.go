package mock

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	sessionpkg "github.com/replymock/replymock/mock/internal/session"

	"github.com/replymock/replymock/mock/internal/content"
	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/wire"
)

// Bounds of seeded reviews (PUT /__mock/data).
const (
	// MaxSeedBodyBytes is the largest body PUT /__mock/data accepts (413
	// above it): room for MaxSeedReviews reviews of a usual size.
	MaxSeedBodyBytes = 8 << 20
	// MaxSeedReviews bounds the reviews of one request (400 above it) and
	// those a session keeps seeded, in all its scenarios together (409).
	MaxSeedReviews = content.MaxSeedReviews
)

// CodeTooManyReviews refuses seeded reviews past MaxSeedReviews for a
// session, or past Options.MaxSeedBytes for all sessions (409 Conflict:
// clearing some makes room).
const CodeTooManyReviews = "too_many_reviews"

// Seed modes: the reviews replace the scenario's data, or are added to it.
const (
	SeedReplace = content.SeedReplace
	SeedAppend  = content.SeedAppend
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
type SeedReview = content.SeedReview

// SeedResult is the answer of PUT /__mock/data and Server.SeedReviews.
type SeedResult struct {
	Session  string `json:"session"`
	Scenario string `json:"scenario"`
	Mode     string `json:"mode"`     // the request's
	Added    int    `json:"added"`    // reviews added by the request
	Seeded   int    `json:"seeded"`   // reviews the session has seeded in the scenario now
	Total    int    `json:"total"`    // reviews the session's list holds now (before a living shop's arrivals)
	FirstID  int64  `json:"first_id"` // the ids of the added reviews: FirstID to LastID; 0 for none
	LastID   int64  `json:"last_id"`
	// Reviews are the added reviews as the list shows them, in the order given.
	Reviews []Feedback `json:"-"`
}

// SeedInfo says what a session seeded in a scenario (GET /__mock/data).
type SeedInfo struct {
	Mode  string `json:"mode"`  // replace: the scenario's data is not shown; append: added to it
	Count int    `json:"count"` // the seeded reviews
}

// seedState is what a session seeded in one scenario (session's).
type seedState = sessionpkg.Seed

// seedInfo is what ss seeded in sc, nil for nothing.
func seedInfo(ss *session, sc *Scenario) *SeedInfo {
	sd, _ := ss.Seeded(sc.Name)
	if sd == nil {
		return nil
	}
	mode := SeedAppend
	if sd.Replace() {
		mode = SeedReplace
	}
	return &SeedInfo{Mode: mode, Count: sd.Reviews().Len()}
}

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
	if session == "" {
		session = DefaultSession
	}
	switch {
	case session == AllSessions:
		return SeedResult{}, errSeedAllSessions
	case !validID(session):
		return SeedResult{}, wire.InvalidParameter("session", "%s", msgBadSessionID)
	}
	if mode == "" {
		mode = SeedReplace
	}
	if mode != SeedReplace && mode != SeedAppend {
		return SeedResult{}, wire.InvalidBody("mode", "must be replace or append, got %q", clip(mode))
	}
	if len(recs) > MaxSeedReviews {
		return SeedResult{}, wire.InvalidBody("reviews", "at most %d reviews a request, got %d", MaxSeedReviews, len(recs))
	}
	// Built against the session as it is, without creating it; kept only
	// if nothing changed it meanwhile, else built again.
	for range 8 {
		ss, sc, err := s.peek(session, scenario)
		if err != nil {
			return SeedResult{}, err
		}
		prev, others := ss.Seeded(sc.Name)
		base, err := sc.Store()
		if err != nil {
			return SeedResult{}, err
		}
		next, res, err := s.buildSeed(session, sc, base, prev, mode, recs)
		if err != nil {
			return SeedResult{}, err
		}
		delta := next.Bytes()
		if prev != nil {
			delta -= prev.Bytes()
		}
		if err := s.seedRoom(others, next, delta); err != nil {
			return SeedResult{}, err
		}
		ss, sc2, err := s.resolve(session, scenario)
		if err != nil {
			return SeedResult{}, err
		}
		if sc2 != sc {
			continue // switched or reloaded meanwhile
		}
		kept, err := ss.KeepSeed(sc.Name, prev, next, func(others int) error {
			if err := s.seedRoom(others, next, delta); err != nil {
				return err
			}
			if !s.seedBudget.Reserve(delta) {
				return s.errSeedMemory(delta)
			}
			return nil
		})
		switch {
		case err != nil:
			return SeedResult{}, err
		case kept:
			return res, nil
		}
	}
	err := StatusError(http.StatusConflict) // "conflict"
	err.Message = "the session's data kept changing while seeding; try again"
	return SeedResult{}, err
}

var errSeedAllSessions = wire.InvalidParameter("session", "seeded reviews belong to one session: name it (session=* is allowed only to DELETE every session's)")

// seedRoom checks next against the bounds: the session's count (with
// others, its reviews seeded in other scenarios) and all sessions' bytes.
func (s *Server) seedRoom(others int, next *seedState, delta int64) error {
	if n := others + next.Reviews().Len(); n > MaxSeedReviews {
		return &APIError{Status: http.StatusConflict, Code: CodeTooManyReviews, Field: "reviews",
			Message: fmt.Sprintf("a session keeps at most %d seeded reviews, in all its scenarios; this would make %d (DELETE /__mock/data to start again)", MaxSeedReviews, n)}
	}
	if !s.seedBudget.Fits(delta) {
		return s.errSeedMemory(delta)
	}
	return nil
}

func (s *Server) errSeedMemory(delta int64) error {
	return &APIError{Status: http.StatusConflict, Code: CodeTooManyReviews, Field: "reviews",
		Message: fmt.Sprintf("all sessions' seeded reviews would keep %d bytes, over the %d allowed (Options.MaxSeedBytes); DELETE /__mock/data of sessions done with theirs",
			s.seedBudget.Used()+delta, s.seedBudget.Max())}
}

// ClearSeeded forgets the reviews session (every session for
// AllSessions) seeded, in every scenario, as DELETE /__mock/data does;
// living shops start again on the scenarios' data. It returns how many
// reviews went.
func (s *Server) ClearSeeded(session string) int {
	// With the store held: a reset cannot replace a session between
	// finding it and clearing it, which would leave the replacing
	// session's living shop on the reviews.
	n := 0
	s.sessions.Update(func(tx sessionpkg.Tx) error {
		for _, ss := range tx.List(session) {
			n += ss.DropSeeds()
		}
		return nil
	})
	return n
}

// buildSeed makes what the session will have seeded in sc: prev (nil for
// nothing) with recs, by mode; base is sc's data.
func (s *Server) buildSeed(sid string, sc *Scenario, base *reviews.Store, prev *seedState, mode string, recs []SeedReview) (*seedState, SeedResult, error) {
	replace := mode == SeedReplace || prev != nil && prev.Replace()
	var kept []Feedback
	if mode == SeedAppend && prev != nil {
		var err error
		if kept, err = prev.Reviews().Feedbacks(); err != nil {
			return nil, SeedResult{}, err
		}
	}
	// The newest review the session has, for the dates to fill.
	end, _ := time.Parse(reviews.TimestampLayout, content.DefaultEnd)
	if g := sc.Generate(); g != nil {
		end, _ = time.Parse(reviews.TimestampLayout, g.End)
	}
	anchor := end // the date of the request's first review, the newest
	if mode == SeedAppend {
		var newest time.Time
		if !replace {
			if pos, ok := reviews.NewStack(base).Newest(); ok {
				newest = time.Unix(base.Meta(pos).Created, 0).UTC()
			}
		}
		for i := range kept {
			if t, err := time.Parse(reviews.TimestampLayout, kept[i].CreatedDate); err == nil && t.After(newest) {
				newest = t
			}
		}
		if !newest.IsZero() { // else as for replace
			anchor = newest.Add(time.Minute * time.Duration(len(recs)))
		}
	}
	f := s.seedFiller(sid, sc, base, anchor)
	if len(kept) > 0 {
		f.Kept = prev.Reviews()
	}
	added := make([]Feedback, len(recs))
	for j := range recs {
		fb, err := f.Fill(&recs[j], len(kept)+j, j)
		if err != nil {
			return nil, SeedResult{}, err
		}
		added[j] = fb
	}
	if err := checkSeedIDs(sc, base, replace, kept, added); err != nil {
		return nil, SeedResult{}, err
	}
	first := int64(1)
	if !replace {
		first = base.Next()
	}
	if prev != nil && mode == SeedAppend {
		first = max(first, prev.Reviews().Next())
	}
	if err := reviews.Number(added, first); err != nil {
		return nil, SeedResult{}, err
	}
	own, err := reviews.NewNumbered(append(kept, added...))
	if err != nil {
		return nil, SeedResult{}, err
	}
	next, err := sessionpkg.NewSeedOn(sc, base, replace, own)
	if err != nil {
		return nil, SeedResult{}, err
	}
	res := SeedResult{Session: sid, Scenario: sc.Name, Mode: mode, Added: len(added), Seeded: own.Len(), Total: next.Len(), Reviews: added}
	if len(added) > 0 {
		res.FirstID, res.LastID = first, first+int64(len(added))-1
	}
	return next, res, nil
}

// checkSeedIDs refuses a feedback_id given twice in added, or one the
// session's data has already (kept, and base unless replaced).
func checkSeedIDs(sc *Scenario, base *reviews.Store, replace bool, kept, added []Feedback) error {
	at := make(map[string]int, len(added))
	for j := range added {
		id := added[j].FeedbackID
		if i, dup := at[id]; dup {
			return wire.InvalidBody(fmt.Sprintf("reviews[%d].feedback_id", j), "%q is reviews[%d]'s feedback_id too", clip(id), i)
		}
		at[id] = j
	}
	for i := range kept {
		if j, dup := at[kept[i].FeedbackID]; dup {
			return wire.InvalidBody(fmt.Sprintf("reviews[%d].feedback_id", j), "%q is already seeded in this session (id %d)", clip(kept[i].FeedbackID), kept[i].ID)
		}
	}
	if replace || len(added) == 0 {
		return nil
	}
	for pos, id := range base.FeedbackIDs() {
		if j, dup := at[id]; dup {
			var f struct{ ID int64 }
			json.Unmarshal(base.JSON(pos), &f)
			return wire.InvalidBody(fmt.Sprintf("reviews[%d].feedback_id", j), "%q is already in scenario %s's data (id %d)", clip(id), sc.Name, f.ID)
		}
	}
	return nil
}

// seedFiller fills what the session sid's seeded reviews in sc leave
// out (content.Filler); base is sc's data, anchor the created_date of
// the request's first review.
func (s *Server) seedFiller(sid string, sc *Scenario, base *reviews.Store, anchor time.Time) *content.Filler {
	products := content.DefaultProducts
	if g := sc.Generate(); g != nil {
		products = g.Products
	}
	return &content.Filler{Session: sid, Seed: sc.Seed, Anchor: anchor, Base: base, URLs: sc.Media(), Products: products,
		Bank: func() (*content.Bank, error) {
			if b := sc.Bank(); b != nil {
				return b, nil
			}
			return s.registry.Loader().LoadPhrases(sc.Locale)
		}}
}

// --- the body of PUT /__mock/data ------------------------------------------

// readSeedBody reads a PUT /__mock/data body, JSON or YAML (made JSON),
// of at most MaxSeedBodyBytes.
func readSeedBody(r *http.Request) ([]byte, error) {
	bound := fmt.Sprintf("%d reviews at most, %d MiB", MaxSeedReviews, MaxSeedBodyBytes>>20)
	return wire.ReadDocument(r, MaxSeedBodyBytes, MaxSeedBodyBytes, bound, bound)
}

// decodeSeedBody decodes the JSON document of PUT /__mock/data
// (content.DecodeSeedBody).
func decodeSeedBody(body []byte) (string, []SeedReview, error) { return content.DecodeSeedBody(body) }
