// Package shop runs a session's living shop: its clock, the reviews that
// arrive and the replies written by the settings.
//
// There is one shop per session and scenario, guarded by its session's
// lock. All shops share one memory budget (Budget), whose lock is taken
// while a session's is held.
package shop

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/replymock/replymock/mock/internal/generate"
	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/scenario"
	"github.com/replymock/replymock/mock/internal/settings"
)

// MaxGap is how far before now a real clock's shop starts at most. Data
// that ends longer ago has an empty stretch after it; a demo anchors its
// data to now (generate.end: now).
const MaxGap = 48 * time.Hour

// MaxClockYear is the last year a living shop's clock reaches, so the
// dates it writes keep four-digit years.
const MaxClockYear = 2199

// Shop is one session's living shop in one scenario: its clock, and its
// reviews as they are now. The reviews are a Stack on the scenario's
// shared store, so a session keeps only its arrivals, answers and drafts.
type Shop struct {
	spec      scenario.ShopSpec
	sc        *scenario.Scenario // the version the shop stands on
	origin    time.Time          // the clock's start
	frozen    time.Time          // a frozen clock's time
	advanced  time.Duration      // a real clock moved ahead by POST /__mock/clock
	processed time.Time          // the engine has run up to here
	st        *reviews.Stack
	changedAt [5]time.Time       // when each rating's settings last changed
	arrivals  *generate.Arrivals // made with the first arrival
	engine    *generate.Engine
	arrived   int

	acct *account // set by Budget.Add; nil for a shop that lasts one request
}

// New starts a session's shop on base, the scenario's data or the
// session's seeded data on it. Its replies draw from the scenario's seed
// and each review alone, so every session sees the same shop.
func New(sc *scenario.Scenario, base *reviews.Stack, now time.Time) *Shop {
	sh := &Shop{spec: *sc.Shop(), sc: sc, st: base, engine: generate.NewShopEngine(sc.Bank(), sc.Seed)}
	// A frozen clock starts at the newest review, so data and clock
	// agree whatever day the tests run. A real clock shows now, and the
	// shop goes on from where its data ends, at most MaxGap before now.
	// It starts when its scenario loaded, so every session and every
	// replica of a fleet shows the same clock and arrivals.
	newest := newestOf(base, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if l := sc.Loaded(); !l.IsZero() && l.Before(now) {
		now = l
	}
	sh.origin = newest
	if sh.Frozen() {
		sh.frozen = sh.origin
	} else {
		if g := sc.Generate(); g != nil {
			if end, err := time.Parse(reviews.TimestampLayout, g.End); err == nil && end.After(sh.origin) {
				sh.origin = end
			}
		}
		if from := now.Add(-MaxGap); from.After(sh.origin) {
			sh.origin = from
		}
		sh.advanced = max(newest.Sub(now), 0) // zero, unless the data is newer than now
	}
	sh.processed = sh.origin
	for i := range sh.changedAt {
		sh.changedAt[i] = sh.origin
	}
	return sh
}

// newestOf is when base's newest review was written; or if it has none.
func newestOf(base *reviews.Stack, or time.Time) time.Time {
	if pos, ok := base.Newest(); ok {
		return time.Unix(base.Meta(pos).Created, 0).UTC()
	}
	return or
}

// Scenario is the version of the scenario the shop stands on.
func (sh *Shop) Scenario() *scenario.Scenario { return sh.sc }

// Reviews is the shop's reviews as they are now.
func (sh *Shop) Reviews() *reviews.Stack { return sh.st }

// Frozen reports whether the shop's clock stands still but for POST
// /__mock/clock.
func (sh *Shop) Frozen() bool { return sh.spec.Clock == "frozen" }

// Now is the shop's clock when the server's shows real.
func (sh *Shop) Now(real time.Time) time.Time {
	if sh.Frozen() {
		return sh.frozen
	}
	return real.Add(sh.advanced)
}

// Advance moves the clock ahead by d.
func (sh *Shop) Advance(d time.Duration) {
	if sh.Frozen() {
		sh.frozen = sh.frozen.Add(d)
	} else {
		sh.advanced += d
	}
}

// SettingsChanged notes that the settings of rating (1 to 5) changed at
// the shop's time at: replies due by the old ones are not written.
func (sh *Shop) SettingsChanged(rating int, at time.Time) { sh.changedAt[rating-1] = at }

// Bring brings the shop up to its clock at the server's time real. A real
// clock's shop goes up to its last whole second, so a shop read at any
// moment of a second, on any replica, is the same.
func (sh *Shop) Bring(real time.Time, set settings.Settings) error {
	at := sh.Now(real)
	if !sh.Frozen() {
		at = at.Truncate(time.Second)
	}
	return sh.run(at, set)
}

// Run brings the shop up to its clock at the server's time real, however
// little it moved since the last run.
func (sh *Shop) Run(real time.Time, set settings.Settings) error { return sh.run(sh.Now(real), set) }

// run brings the shop up to now: arrivals, then replies.
func (sh *Shop) run(now time.Time, set settings.Settings) error {
	if !now.After(sh.processed) {
		return nil
	}
	var arrivals []reviews.Feedback
	if g := sh.sc.Generate(); sh.spec.ArrivalsPerHour > 0 && g != nil && sh.sc.Bank() != nil {
		due := int(math.Floor(now.Sub(sh.origin).Hours()*sh.spec.ArrivalsPerHour + 1e-9))
		due = min(due, scenario.MaxShopReviews) // a session's arrivals are bounded too
		for ; sh.arrived < due; sh.arrived++ {
			arrivals = append(arrivals, sh.arrival(g, sh.arrivalTime(sh.arrived)))
		}
	}
	// Each reply draws from its review's own random sequence, so neither
	// the order nor the number of runs changes the replies.
	var changes []reviews.Change
	for i := range sh.st.OldestFirst() {
		mode := sh.due(sh.st.Meta(i), now, &set)
		if mode == "" {
			continue
		}
		f := new(reviews.Feedback)
		if err := json.Unmarshal(sh.st.JSON(i), f); err != nil {
			return fmt.Errorf("shop: review at %d: %w", i, err)
		}
		sh.engine.Reply(f, mode, &set)
		changes = append(changes, reviews.Change{Pos: i, F: f})
	}
	for i := range arrivals {
		m, err := reviews.MetaOf(&arrivals[i])
		if err != nil {
			return fmt.Errorf("shop: %w", err)
		}
		if mode := sh.due(m, now, &set); mode != "" {
			sh.engine.Reply(&arrivals[i], mode, &set)
		}
	}
	sh.processed = now
	if len(changes) == 0 && len(arrivals) == 0 {
		return nil
	}
	// A new Stack: the previous one stays as it was for requests reading it.
	st, err := sh.st.With(changes, arrivals)
	if err != nil {
		return fmt.Errorf("shop: %w", err)
	}
	sh.st = st
	sh.Touch()
	return nil
}

// arrivalTime is when the shop's i-th new review (from 0) arrives.
func (sh *Shop) arrivalTime(i int) time.Time {
	return sh.origin.Add(time.Duration(float64(i+1) / sh.spec.ArrivalsPerHour * float64(time.Hour))).Truncate(time.Second)
}

// arrival writes a new review at the time at, by the generator spec g.
func (sh *Shop) arrival(g *generate.GenerateSpec, at time.Time) reviews.Feedback {
	if sh.arrivals == nil {
		sh.arrivals = generate.NewArrivals(*g, sh.sc.Seed, sh.sc.Bank(), sh.sc.Media())
		// A fork or a restored shop has arrivals this writer did not
		// write: it writes them again and lets them go.
		for i := range sh.arrived {
			sh.arrivals.Next(sh.arrivalTime(i))
		}
	}
	return sh.arrivals.Next(at)
}

// Fork is a copy of the shop that goes on apart from it: a session's own
// shop, made from the one pristine sessions share. It is in no budget
// until Budget.Add.
func (sh *Shop) Fork() *Shop {
	return &Shop{spec: sh.spec, sc: sh.sc, origin: sh.origin, frozen: sh.frozen, advanced: sh.advanced, processed: sh.processed,
		st: sh.st, changedAt: sh.changedAt, arrived: sh.arrived, engine: generate.NewShopEngine(sh.sc.Bank(), sh.sc.Seed)}
}

// due is what the engine does now to a review (see generate.Due).
func (sh *Shop) due(m reviews.Meta, now time.Time, set *settings.Settings) string {
	if m.Rating < 1 || m.Rating > 5 {
		return ""
	}
	return generate.Due(m, now, &set.Feedback[m.Rating-1], sh.changedAt[m.Rating-1], sh.spec.ReplyDelay.D())
}

// Estimates of what a shop holds besides its Stack (Stack.Bytes).
const (
	stateBytes = 1 << 10 // the state, its clock and random source
	genBytes   = 8 << 10 // the arrivals' writer: gofakeit's source and the catalogue
)

// Size estimates the memory the shop holds of its own, without the
// scenario's data, which every session shares.
func (sh *Shop) Size() int64 {
	n := stateBytes + sh.st.Bytes()
	if sh.arrivals != nil {
		n += genBytes
	}
	return n
}
