package shared

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/replymock/replymock/mock/internal/fixture"
	"github.com/replymock/replymock/mock/internal/generate"
	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/scenario"
	"github.com/replymock/replymock/mock/internal/session"
	"github.com/replymock/replymock/mock/internal/wire"
)

// SeedResult is the answer of PUT /__mock/data and Server.SeedReviews.
type SeedResult struct {
	Session  string             `json:"session"`
	Scenario string             `json:"scenario"`
	Mode     string             `json:"mode"`
	Added    int                `json:"added"`
	Seeded   int                `json:"seeded"`   // in the scenario now
	Total    int                `json:"total"`    // the session's list now (before a living shop's arrivals)
	FirstID  int64              `json:"first_id"` // the ids of the added reviews: FirstID to LastID; 0 for none
	LastID   int64              `json:"last_id"`
	Reviews  []reviews.Feedback `json:"-"` // the added reviews, in the order given
}

// SeedInfo says what a session seeded in a scenario (GET /__mock/data).
type SeedInfo struct {
	Mode  string `json:"mode"`
	Count int    `json:"count"`
}

// SeedInfoOf is what ss seeded in sc, nil for nothing.
func SeedInfoOf(ss *session.Session, sc *scenario.Scenario) *SeedInfo {
	sd, _ := ss.Seeded(sc.Name)
	if sd == nil {
		return nil
	}
	mode := fixture.SeedAppend
	if sd.Replace() {
		mode = fixture.SeedReplace
	}
	return &SeedInfo{Mode: mode, Count: sd.Reviews().Len()}
}

// SeedReviews seeds recs for session sid in scenario scName by mode, as
// Server.SeedReviews says.
func (st *State) SeedReviews(sid, scName, mode string, recs []fixture.SeedReview) (SeedResult, error) {
	if sid == "" {
		sid = session.Default
	}
	switch {
	case sid == session.All:
		return SeedResult{}, ErrSeedAllSessions
	case !session.ValidID(sid):
		return SeedResult{}, wire.InvalidParameter("session", "%s", session.MsgBadID)
	}
	if mode == "" {
		mode = fixture.SeedReplace
	}
	if mode != fixture.SeedReplace && mode != fixture.SeedAppend {
		return SeedResult{}, wire.InvalidBody("mode", "must be replace or append, got %q", wire.Clip(mode))
	}
	if len(recs) > fixture.MaxSeedReviews {
		return SeedResult{}, wire.InvalidBody("reviews", "at most %d reviews a request, got %d", fixture.MaxSeedReviews, len(recs))
	}
	// Built against the session as it is, without creating it; kept only
	// if nothing changed it meanwhile, else built again.
	for range 8 {
		ss, sc, err := st.Peek(sid, scName)
		if err != nil {
			return SeedResult{}, err
		}
		prev, others := ss.Seeded(sc.Name)
		base, err := sc.Store()
		if err != nil {
			return SeedResult{}, err
		}
		next, res, err := st.buildSeed(sid, sc, base, prev, mode, recs)
		if err != nil {
			return SeedResult{}, err
		}
		delta := next.Bytes()
		if prev != nil {
			delta -= prev.Bytes()
		}
		if err := st.seedRoom(others, next, delta); err != nil {
			return SeedResult{}, err
		}
		ss, sc2, err := st.Resolve(sid, scName)
		if err != nil {
			return SeedResult{}, err
		}
		if sc2 != sc {
			continue // switched or reloaded meanwhile
		}
		kept, err := ss.KeepSeed(sc.Name, prev, next, func(others int) error {
			if err := st.seedRoom(others, next, delta); err != nil {
				return err
			}
			if !st.seeds.Reserve(delta) {
				return st.errSeedMemory(delta)
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
	err := wire.StatusError(http.StatusConflict) // "conflict"
	err.Message = "the session's data kept changing while seeding; try again"
	return SeedResult{}, err
}

// ErrSeedAllSessions refuses seeding every session at once.
var ErrSeedAllSessions = wire.InvalidParameter("session", "seeded reviews belong to one session: name it (session=* is allowed only to DELETE every session's)")

// seedRoom checks next against the bounds; others are the session's
// reviews seeded in other scenarios.
func (st *State) seedRoom(others int, next *session.Seed, delta int64) error {
	if err := CheckSeedCount(others+next.Reviews().Len(), "reviews", "this would make"); err != nil {
		return err
	}
	if !st.seeds.Fits(delta) {
		return st.errSeedMemory(delta)
	}
	return nil
}

func (st *State) errSeedMemory(delta int64) error {
	return &wire.APIError{Status: http.StatusConflict, Code: wire.CodeTooManyReviews, Field: "reviews",
		Message: fmt.Sprintf("all sessions' seeded reviews would keep %d bytes, over the %d allowed (Options.MaxSeedBytes); DELETE /__mock/data of sessions done with theirs",
			st.seeds.Used()+delta, st.seeds.Max())}
}

// ClearSeeded forgets the reviews session sid seeded, as DELETE
// /__mock/data does, and returns how many went.
func (st *State) ClearSeeded(sid string) int {
	// The store is held so that a reset cannot replace a session between
	// finding it and clearing it.
	n := 0
	st.sessions.Update(func(tx session.Tx) error {
		for _, ss := range tx.List(sid) {
			n += ss.DropSeeds()
		}
		return nil
	})
	return n
}

// buildSeed makes what the session will have seeded in sc: prev (nil for
// nothing) with recs, by mode; base is sc's data.
func (st *State) buildSeed(sid string, sc *scenario.Scenario, base *reviews.Store, prev *session.Seed, mode string, recs []fixture.SeedReview) (*session.Seed, SeedResult, error) {
	replace := mode == fixture.SeedReplace || prev != nil && prev.Replace()
	var kept []reviews.Feedback
	if mode == fixture.SeedAppend && prev != nil {
		var err error
		if kept, err = prev.Reviews().Feedbacks(); err != nil {
			return nil, SeedResult{}, err
		}
	}
	// The newest review the session has, for the dates to fill.
	end, _ := time.Parse(reviews.TimestampLayout, generate.DefaultEnd)
	if g := sc.Generate(); g != nil {
		end, _ = time.Parse(reviews.TimestampLayout, g.End)
	}
	anchor := end // the date of the request's first review, the newest
	if mode == fixture.SeedAppend {
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
	f := st.seedFiller(sid, sc, base, anchor)
	if len(kept) > 0 {
		f.Kept = prev.Reviews()
	}
	added := make([]reviews.Feedback, len(recs))
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
	if prev != nil && mode == fixture.SeedAppend {
		first = max(first, prev.Reviews().Next())
	}
	if err := reviews.Number(added, first); err != nil {
		return nil, SeedResult{}, err
	}
	own, err := reviews.NewNumbered(append(kept, added...))
	if err != nil {
		return nil, SeedResult{}, err
	}
	next, err := session.NewSeedOn(sc, base, replace, own)
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
func checkSeedIDs(sc *scenario.Scenario, base *reviews.Store, replace bool, kept, added []reviews.Feedback) error {
	at := make(map[string]int, len(added))
	for j := range added {
		id := added[j].FeedbackID
		if i, dup := at[id]; dup {
			return wire.InvalidBody(fmt.Sprintf("reviews[%d].feedback_id", j), "%q is reviews[%d]'s feedback_id too", wire.Clip(id), i)
		}
		at[id] = j
	}
	for i := range kept {
		if j, dup := at[kept[i].FeedbackID]; dup {
			return wire.InvalidBody(fmt.Sprintf("reviews[%d].feedback_id", j), "%q is already seeded in this session (id %d)", wire.Clip(kept[i].FeedbackID), kept[i].ID)
		}
	}
	if replace || len(added) == 0 {
		return nil
	}
	for pos, id := range base.FeedbackIDs() {
		if j, dup := at[id]; dup {
			var f struct{ ID int64 }
			json.Unmarshal(base.JSON(pos), &f)
			return wire.InvalidBody(fmt.Sprintf("reviews[%d].feedback_id", j), "%q is already in scenario %s's data (id %d)", wire.Clip(id), sc.Name, f.ID)
		}
	}
	return nil
}

// seedFiller fills what the session sid's seeded reviews in sc leave
// out; anchor is the created_date of the request's first review.
func (st *State) seedFiller(sid string, sc *scenario.Scenario, base *reviews.Store, anchor time.Time) *fixture.Filler {
	products := generate.DefaultProducts
	if g := sc.Generate(); g != nil {
		products = g.Products
	}
	return &fixture.Filler{Session: sid, Seed: sc.Seed, Anchor: anchor, Base: base, URLs: sc.Media(), Products: products,
		Bank: func() (*generate.Bank, error) {
			if b := sc.Bank(); b != nil {
				return b, nil
			}
			return st.registry.Loader().LoadPhrases(sc.Locale)
		}}
}
