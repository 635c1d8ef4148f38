package api

import (
	"encoding/json"
	"time"

	"github.com/replymock/replymock/mock/internal/fault"
	"github.com/replymock/replymock/mock/internal/generate"
	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/scenario"
	"github.com/replymock/replymock/mock/internal/session"
	"github.com/replymock/replymock/mock/internal/settings"
)

// liveRead is one read as the faults that play a live service change
// it (fault.Live): the list or the settings it answers. Nothing of the
// session changes: what a list shows follows the faults' counts alone,
// the same on every replica of a fleet.
type liveRead struct {
	// ss and sc, not the call: a call points at the request's journal
	// entry, which would then move to the heap on every request.
	ss *session.Session
	sc *scenario.Scenario
	// counter counts across a fleet the reads stale_read lags by; nil
	// in one process.
	counter fault.SharedCounter
	now     time.Time
	list    *reviews.Stack     // nil for a read of the settings
	q       reviews.Query      // the list's query
	set     *settings.Settings // nil for a read of the list
	// lagN and lagFor say how far a counts_only answer lags (Lag).
	lagN   int
	lagFor time.Duration
}

// Arrive puts n reviews written by the scenario's generator on top of
// the list, a minute apart after its newest, and answers the m newest
// unanswered ones below them with the reply engine. A scenario that
// writes no reviews (fixtures only) gets none.
func (v *liveRead) Arrive(n, m int) []int64 {
	sc := v.sc
	g := sc.Generate()
	if v.list == nil || g == nil || sc.Bank() == nil {
		return nil
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if pos, ok := v.list.Newest(); ok {
		at = time.Unix(v.list.Meta(pos).Created, 0).UTC()
	}
	w := generate.NewArrivals(*g, sc.Seed, sc.Bank(), sc.Media())
	arrivals := make([]reviews.Feedback, n)
	for i := range arrivals {
		arrivals[i] = w.Next(at.Add(time.Duration(i+1) * time.Minute))
	}
	var changes []reviews.Change
	if m > 0 {
		set := v.ss.Settings(sc)
		engine := generate.NewShopEngine(sc.Bank(), sc.Seed)
		for i := 0; i < v.list.Len() && len(changes) < m; i++ {
			if meta := v.list.Meta(i); meta.Answered || meta.Rating < 1 || meta.Rating > 5 {
				continue
			}
			f := new(reviews.Feedback)
			if json.Unmarshal(v.list.JSON(i), f) != nil {
				continue
			}
			engine.Reply(f, "auto", &set)
			changes = append(changes, reviews.Change{Pos: i, F: f})
		}
	}
	list, err := v.list.With(changes, arrivals)
	if err != nil {
		return nil
	}
	v.list = list
	ids := make([]int64, n)
	for i := range arrivals {
		ids[i] = arrivals[i].ID
	}
	return ids
}

// Reject takes the answer away from the n newest answered reviews of
// the list: answer_state "rejected", state "new", the text kept.
func (v *liveRead) Reject(n int) []int64 {
	if v.list == nil {
		return nil
	}
	var changes []reviews.Change
	var ids []int64
	for i := 0; i < v.list.Len() && len(changes) < n; i++ {
		if !v.list.Meta(i).Answered {
			continue
		}
		f := new(reviews.Feedback)
		if json.Unmarshal(v.list.JSON(i), f) != nil {
			continue
		}
		f.AnswerState, f.State = reviews.AnswerStateRejected, "new"
		changes = append(changes, reviews.Change{Pos: i, F: f})
		ids = append(ids, f.ID)
	}
	list, err := v.list.With(changes, nil)
	if err != nil {
		return nil
	}
	v.list = list
	return ids
}

// Stale makes a read of the settings answer them as they were before
// the session's last write, if the session says the read lags it.
func (v *liveRead) Stale(within time.Duration, reads int) bool {
	if v.set == nil {
		return false
	}
	set, ok := v.ss.StaleSettings(v.sc, v.now, within, reads, v.counter)
	if ok {
		*v.set = set
	}
	return ok
}

// Lag makes a counts_only read count the list as it was before its
// newest reviews arrived (see counts).
func (v *liveRead) Lag(n int, within time.Duration) bool {
	if v.list == nil || !v.q.CountsOnly {
		return false
	}
	v.lagN, v.lagFor = n, within
	return true
}

// counts is res, the counts of v.q, as a lagging read answers them:
// without the lagN newest reviews it counts and those written within
// lagFor of the newest, at most fault.MaxDrift.
func (v *liveRead) counts(res reviews.Result) reviews.Result {
	if v.lagN == 0 && v.lagFor == 0 {
		return res
	}
	q := v.q
	q.CountsOnly, q.Offset, q.Limit = false, 0, fault.MaxDrift
	var newest int64
	for i, pos := range v.list.Find(q).Page {
		m := v.list.Meta(pos)
		if i == 0 {
			newest = m.Created
		}
		if i >= v.lagN && time.Duration(newest-m.Created)*time.Second >= v.lagFor {
			break
		}
		if m.Answered {
			res.Answered--
		} else {
			res.Unanswered--
		}
		res.Total--
	}
	return res
}
