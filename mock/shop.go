package mock

import (
	"container/list"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/replymock/replymock/mock/internal/budget"
	"github.com/replymock/replymock/mock/internal/content"
	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/scenario"
)

// maxShopGap is how far back before now a living shop on a real clock
// goes on from its newest review: data that ends longer ago (a fixed
// generate.end shown months later) has an empty stretch before it;
// anchor it to now (generate.end: now) for a demo.
const maxShopGap = 48 * time.Hour

// Answer states of the reply engine, besides the spec's "sent"/"done":
// a semi_auto reply waits as a draft.
const (
	AnswerStateDraft = content.AnswerStateDraft
	StateDraft       = content.StateDraft
)

// shopState is one session's living shop in one scenario: its clock, and
// its reviews as they are now. The reviews are a Stack on the scenario's
// store, which every session shares and none changes: the session keeps
// only its arrivals, answers and drafts.
type shopState struct {
	spec      scenario.ShopSpec
	sc        *Scenario     // the version the shop stands on
	origin    time.Time     // the clock's start
	frozen    time.Time     // a frozen clock's time
	advanced  time.Duration // a real clock moved ahead by POST /__mock/clock
	processed time.Time     // the engine has run up to here
	st        *reviews.Stack
	changedAt [5]time.Time      // when each rating's settings last changed
	arrivals  *content.Arrivals // writes arrivals; made with the first one
	engine    *content.Engine   // writes replies
	arrived   int

	// Set by shopBudget.add, for a session's kept shop; nil budget for a
	// session that is only looked at, whose shop lasts one request.
	budget *shopBudget
	owner  *session       // whose mu guards the fields above
	home   *scenarioState // whose shop this is (home.shop), until evicted
	bytes  int64          // size() when last accounted; guarded by budget.mu
	elem   *list.Element  // in budget.lru; guarded by budget.mu
}

// newShopState starts a session's shop from base: the scenario's data,
// or the session's seeded data on it. Its replies draw from the
// scenario's seed alone: every session, whatever its id, sees the same
// shop.
func newShopState(sc *Scenario, base *reviews.Stack, now time.Time) (*shopState, error) {
	sh := &shopState{spec: *sc.Shop(), sc: sc, st: base, engine: content.NewEngine(sc.Bank(), content.SeededPCG(sc.Seed, "shop"))}
	// A frozen clock starts at the newest review (or a fixed day), so
	// data and clock agree whatever the day the tests run. A real one
	// shows now (never before the newest review), and the shop goes on
	// from where its data ends (generate.end, or the newest review if
	// later): the stretch between that and now, up to maxShopGap, fills
	// with arrivals and replies, with no empty gap. Data anchored to now
	// ends when the scenario loaded, so a shop starts where it does.
	newest := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if pos, ok := base.Newest(); ok {
		newest = time.Unix(base.Meta(pos).Created, 0).UTC()
	}
	sh.origin = newest
	if sh.spec.Clock == "frozen" {
		sh.frozen = sh.origin
	} else {
		if g := sc.Generate(); g != nil {
			if end, err := time.Parse(reviews.TimestampLayout, g.End); err == nil && end.After(sh.origin) {
				sh.origin = end
			}
		}
		if from := now.Add(-maxShopGap); from.After(sh.origin) {
			sh.origin = from
		}
		sh.advanced = max(newest.Sub(now), 0) // zero, unless the data is newer than now
	}
	sh.processed = sh.origin
	for i := range sh.changedAt {
		sh.changedAt[i] = sh.origin
	}
	return sh, nil
}

// now is the session's clock.
func (sh *shopState) now(real time.Time) time.Time {
	if sh.spec.Clock == "frozen" {
		return sh.frozen
	}
	return real.Add(sh.advanced)
}

// advance moves the clock ahead by d.
func (sh *shopState) advance(d time.Duration) {
	if sh.spec.Clock == "frozen" {
		sh.frozen = sh.frozen.Add(d)
	} else {
		sh.advanced += d
	}
}

// run brings the shop up to the clock: arrivals, then replies by the
// settings. Anything changed makes the shop's next Stack.
func (sh *shopState) run(now time.Time, settings Settings) error {
	if !now.After(sh.processed) {
		return nil
	}
	var arrivals []Feedback
	if g := sh.sc.Generate(); sh.spec.ArrivalsPerHour > 0 && g != nil && sh.engine.Bank() != nil {
		due := int(math.Floor(now.Sub(sh.origin).Hours()*sh.spec.ArrivalsPerHour + 1e-9))
		due = min(due, MaxShopReviews) // a session's arrivals are bounded too
		for ; sh.arrived < due; sh.arrived++ {
			arrivals = append(arrivals, sh.arrival(g, sh.arrivalTime(sh.arrived)))
		}
	}
	// Oldest first, as the replies' random sequence goes: the reviews the
	// shop has (the last in the list's order is the oldest), then the
	// arrivals. Only a review the engine changes is decoded.
	var changes []reviews.Change
	for i := range sh.st.OldestFirst() {
		mode := sh.due(sh.st.Meta(i), now, &settings)
		if mode == "" {
			continue
		}
		f := new(Feedback)
		if err := json.Unmarshal(sh.st.JSON(i), f); err != nil {
			return fmt.Errorf("shop: review at %d: %w", i, err)
		}
		sh.engine.Reply(f, mode, &settings)
		changes = append(changes, reviews.Change{Pos: i, F: f})
	}
	for i := range arrivals {
		m, err := reviews.MetaOf(&arrivals[i])
		if err != nil {
			return fmt.Errorf("shop: %w", err)
		}
		if mode := sh.due(m, now, &settings); mode != "" {
			sh.engine.Reply(&arrivals[i], mode, &settings)
		}
	}
	sh.processed = now
	if len(changes) == 0 && len(arrivals) == 0 {
		return nil
	}
	// The stack on top of the scenario's store takes the new reviews and
	// the changes; the previous one stays as it was for requests reading it.
	st, err := sh.st.With(changes, arrivals)
	if err != nil {
		return fmt.Errorf("shop: %w", err)
	}
	sh.st = st
	sh.budget.resize(sh)
	return nil
}

// arrivalTime is when the shop's i-th new review (from 0) arrives.
func (sh *shopState) arrivalTime(i int) time.Time {
	return sh.origin.Add(time.Duration(float64(i+1) / sh.spec.ArrivalsPerHour * float64(time.Hour))).Truncate(time.Second)
}

// arrival writes a new review at the time at, by the scenario's generator spec g.
func (sh *shopState) arrival(g *content.GenerateSpec, at time.Time) Feedback {
	if sh.arrivals == nil {
		sh.arrivals = content.NewArrivals(*g, sh.sc.Seed, sh.engine.Bank(), sh.sc.Media())
	}
	return sh.arrivals.Next(at) // it waits for the engine, unviewed
}

// due is what the engine does now to a review of the shop, by the
// settings for its rating and when they last changed.
func (sh *shopState) due(m reviews.Meta, now time.Time, settings *Settings) string {
	if m.Rating < 1 || m.Rating > 5 {
		return ""
	}
	return content.Due(m, now, &settings.Feedback[m.Rating-1], sh.changedAt[m.Rating-1], sh.spec.ReplyDelay.D())
}

// Estimates of what a shop holds besides its Stack (Stack.Bytes).
const (
	shopStateBytes = 1 << 10 // the state, its clock and random source
	shopGenBytes   = 8 << 10 // the arrivals' writer: gofakeit's source and the catalogue
)

// size estimates the memory the shop holds of its own: its stack beyond
// the scenario's store (arrivals, answers, drafts), its state, and once
// reviews arrive, their writer. The scenario's data is not counted: every
// session shares it.
func (sh *shopState) size() int64 {
	n := shopStateBytes + sh.st.Bytes()
	if sh.arrivals != nil {
		n += shopGenBytes
	}
	return n
}

// shopBudget keeps the memory the living shops of all sessions hold
// together (each shop's size) under Options.MaxShopBytes. Past it, the
// least recently used shops are evicted: each starts again from its
// scenario's start the next time its session uses it (the session's
// settings, faults and journal stay), and a warning names it. The
// default session's shops go last.
//
// Locks: mu is taken while a session's mu is held, never the other way
// round; to evict a shop, its session's mu is only tried (TryLock), and a
// session busy at that moment is passed over until the next use of any
// shop.
type shopBudget struct {
	bytes *budget.Budget // the sizes of the shops in lru, against MaxShopBytes
	log   *slog.Logger
	mu    sync.Mutex // guards lru, each listed shop's bytes and elem, and makes each change of bytes whole
	lru   list.List  // *shopState, the most recently used first

	evictions atomic.Int64 // shops evicted so far, for the metrics
}

// add accounts sh, the new shop of owner's home state; the caller holds
// owner.mu. A nil budget keeps nothing.
func (b *shopBudget) add(sh *shopState, owner *session, home *scenarioState) {
	if b == nil {
		return
	}
	sh.budget, sh.owner, sh.home = b, owner, home
	size := sh.size()
	b.mu.Lock()
	defer b.mu.Unlock()
	sh.bytes = size
	sh.elem = b.lru.PushFront(sh)
	b.bytes.Charge(size)
	b.enforceLocked(sh)
}

// touch marks sh as just used; the caller holds its owner's mu.
func (b *shopBudget) touch(sh *shopState) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if sh.elem != nil {
		b.lru.MoveToFront(sh.elem)
		b.enforceLocked(sh)
	}
}

// resize accounts sh's new size; the caller holds its owner's mu.
func (b *shopBudget) resize(sh *shopState) {
	if b == nil {
		return
	}
	size := sh.size()
	b.mu.Lock()
	defer b.mu.Unlock()
	if sh.elem == nil {
		return
	}
	b.bytes.Charge(size - sh.bytes)
	sh.bytes = size
	b.lru.MoveToFront(sh.elem)
	b.enforceLocked(sh)
}

// remove forgets sh: its session dropped it; the caller holds its owner's mu.
func (b *shopBudget) remove(sh *shopState) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if sh.elem != nil {
		b.lru.Remove(sh.elem)
		sh.elem = nil
		b.bytes.Release(sh.bytes)
	}
}

// enforceLocked evicts the least recently used shops but current until
// the total is within the budget, other sessions' first; current goes
// too if it alone is over. The caller holds b.mu and current's owner's mu.
func (b *shopBudget) enforceLocked(current *shopState) {
	for pass := 0; pass < 2 && b.bytes.Over() > 0; pass++ {
		for e := b.lru.Back(); e != nil && b.bytes.Over() > 0; {
			sh := e.Value.(*shopState)
			e = e.Prev()
			switch {
			case sh == current || pass == 0 && sh.owner.id == DefaultSession:
			case sh.owner == current.owner: // another scenario's shop of the same session: its mu is held
				b.evictLocked(sh)
			case sh.owner.mu.TryLock():
				b.evictLocked(sh)
				sh.owner.mu.Unlock()
			}
		}
	}
	if current.bytes > b.bytes.Max() {
		b.evictLocked(current)
	}
}

// evictLocked drops sh from its session: the next request starts the
// shop again. The caller holds b.mu and sh's owner's mu.
func (b *shopBudget) evictLocked(sh *shopState) {
	if sh.home.shop == sh {
		sh.home.shop = nil
	}
	b.lru.Remove(sh.elem)
	sh.elem = nil
	b.bytes.Release(sh.bytes)
	b.evictions.Add(1)
	b.log.Warn("living shop evicted: the shops' memory is over the budget (--max-shop-memory); it starts again from its scenario's start",
		"session", sh.owner.id, "scenario", sh.sc.Name, "shop_bytes", sh.bytes, "shops_bytes", b.bytes.Used(), "max_shop_bytes", b.bytes.Max())
}
