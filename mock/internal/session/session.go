// Package session keeps each caller's state on top of the scenarios'
// data.
//
// A Session holds the scenario it picked, its settings in each scenario,
// its seeded reviews, its overrides, the counters of the faults it met
// and its living shops. It is read and changed only through its methods,
// and the sessions through the Store interface; Memory is the store of
// one process. A session's journal is journal.Journals', by its Key.
//
// Locks: the store's lock may be held while a session's is taken, never
// the other way round; a session's seeds have their own lock, taken
// under the session's. The shops' budget, the seeds' budget, the fault
// registry and the journals come after these.
package session

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/budget"
	"github.com/replymock/replymock/mock/internal/fault"
	"github.com/replymock/replymock/mock/internal/journal"
	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/scenario"
	"github.com/replymock/replymock/mock/internal/settings"
	"github.com/replymock/replymock/mock/internal/shop"
	"github.com/replymock/replymock/mock/internal/wire"
)

// Default is the session of requests without X-Mock-Session: it never
// expires, and its living shops are evicted last.
const Default = "default"

// All, given as a session, means every session.
const All = journal.AllSessions

var idRE = regexp.MustCompile(`^[A-Za-z0-9._:@-]{1,128}$`)

// ValidID reports whether s may name a session (or a request).
func ValidID(s string) bool { return idRE.MatchString(s) }

// MsgBadID says what a session id may be.
const MsgBadID = "must be 1 to 128 letters, digits or ._:@-"

// Session is one caller's state on top of the scenarios' data.
type Session struct {
	id       string
	lastUsed time.Time   // guarded by the store's lock
	key      journal.Key // names the session's journal; the zero Key, of a session only looked at, none
	shared   *shared     // what every session of the store uses

	mu        sync.Mutex // guards the fields below
	pick      string     // picked with PUT /__mock/scenario; "" follows the server
	states    map[string]*state
	dropped   bool                            // reset or evicted: no longer in the store
	counters  map[*fault.Fault]*fault.Counter // of every fault the session's requests met
	overrides access.Overrides
	seeds     *seedBox  // shared with the session a reset made
	keeps     bool      // a kept session: its shops and seeds are counted in the budgets
	stored    bool      // in the store: its overrides are counted in their budget
	counted   bool      // the request under way met a fault's counter (Meet)
	eviction  *Eviction // of the session this one replaces, until an API request takes it

	wrote atomic.Bool // something changed it: it is evicted after those that only read
}

// shared is what the sessions of a store use together.
type shared struct {
	shops     *shop.Budget
	common    sharedShops // the shops pristine sessions read
	seeds     *budget.Budget
	overrides *budget.Budget
	settings  *budget.Budget
	faults    *fault.Registry
	changed   func(id string) // nil for none
}

// state is what a session changes while it uses one scenario.
type state struct {
	sc       *scenario.Scenario // the version the state belongs to
	settings settings.Settings
	bytes    int // the size of settings counted in the settings' budget: 0 for the scenario's own
	window   access.Window
	shop     *shop.Shop // the session's own living shop, for a scenario with one
	// own is set once the session changed its shop on this version: from
	// then on it never reads the shared shop. When its own shop is
	// dropped, it is pristine again if its ratings' settings are the
	// scenario's.
	own bool
	// read is set once the session, while pristine, read the shared
	// shop: its snapshot shows that shop as its own.
	read bool
	last *Write // the last settings write, which stale reads lag
}

// Write is a session's last settings write in a scenario: the settings
// before it, when it was made, and how many stale reads answered them
// since (StaleSettings).
type Write struct {
	Before settings.Settings `json:"before"`
	At     time.Time         `json:"at"`
	Stale  int               `json:"stale_reads,omitempty"`
	// N numbers the session's writes, so that two at one instant are
	// two writes to count reads since.
	N int64 `json:"n,omitempty"`
}

// sameShop reports whether settings a and b make the same living shop.
func sameShop(a, b *settings.Settings) bool { return reflect.DeepEqual(a.Feedback, b.Feedback) }

// dropShopLocked drops st's own shop, if it has one: the session's next
// request starts it again. The caller holds the session's lock.
func (st *state) dropShopLocked() {
	if st.shop != nil {
		st.shop.Release()
	}
	st.forgetShopLocked()
}

// forgetShopLocked is dropShopLocked for a shop the budget let go of
// already. The caller holds the session's lock.
func (st *state) forgetShopLocked() {
	st.shop = nil
	set := st.sc.Settings()
	st.own = !sameShop(&st.settings, &set)
}

func (ss *Session) ID() string { return ss.id }

// Dropped reports whether the session was reset or evicted from the
// store.
func (ss *Session) Dropped() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.dropped
}

// TakeEviction returns, once, when and why the session this one
// replaces was evicted.
func (ss *Session) TakeEviction() (Eviction, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	e := ss.eviction
	ss.eviction = nil
	if e == nil {
		return Eviction{}, false
	}
	return *e, true
}

// Key names the session's journal.
func (ss *Session) Key() journal.Key { return ss.key }

// Lasting reports whether the session's shops are evicted last. With
// ID, TryLock and Unlock, it makes a Session the shop.Owner of its
// living shops.
func (ss *Session) Lasting() bool { return ss.id == Default }

// TryLock and Unlock take the session's lock for the shops' budget.
func (ss *Session) TryLock() bool { return ss.mu.TryLock() }

func (ss *Session) Unlock() { ss.mu.Unlock() }

// stateLocked returns the session's state for sc; the caller holds
// ss.mu. A reloaded scenario keeps the session's settings but starts its
// fault counters, rate limit and shop again.
func (ss *Session) stateLocked(sc *scenario.Scenario) *state {
	if ss.states == nil {
		ss.states = make(map[string]*state)
	}
	st, ok := ss.states[sc.Name]
	if !ok {
		st = &state{settings: sc.Settings()}
		ss.states[sc.Name] = st
	}
	if st.sc != sc {
		if st.sc != nil {
			for i := range st.sc.Faults() {
				delete(ss.counters, &st.sc.Faults()[i])
			}
		}
		st.sc, st.read = sc, false
		st.dropShopLocked()
		st.window = access.Window{}
	}
	return st
}

// pristineLocked reports whether the session reads the shared shop in
// st's scenario. ss.mu must be held.
func (ss *Session) pristineLocked(st *state) bool {
	if st.own || st.shop != nil || ss.shared.common.off {
		return false
	}
	return !ss.seeds.has(st.sc.Name)
}

// Pick is the scenario the session picked; "" follows the server's.
func (ss *Session) Pick() string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.pick
}

func (ss *Session) SetPick(name string) {
	ss.mu.Lock()
	ss.pick = name
	ss.mu.Unlock()
	ss.changed()
}

func (ss *Session) Settings(sc *scenario.Scenario) settings.Settings {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.stateLocked(sc).settings
}

// PatchSettings replaces the session's settings in sc with what apply
// returns, in one step. In a living shop, the reviews of a rating whose
// settings changed can be answered from now.
func (ss *Session) PatchSettings(sc *scenario.Scenario, now time.Time, apply func(settings.Settings) (settings.Settings, error)) (_ settings.Settings, err error) {
	defer func() {
		if err == nil {
			ss.changed()
		}
	}()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	st := ss.stateLocked(sc)
	next, err := apply(st.settings)
	if err != nil {
		return st.settings, err
	}
	// Counted before anything changes; given back if the shop fails.
	n, b := stateBytes(next, &Write{Before: st.settings}), ss.shared.settings
	if !ss.stored {
		b = nil // counted once the store keeps it
	}
	if b != nil && !b.Reserve(int64(n-st.bytes)) {
		return st.settings, &wire.APIError{Status: http.StatusRequestEntityTooLarge, Code: wire.CodePayloadTooLarge,
			Message: fmt.Sprintf("all sessions' settings would keep %d bytes, over the %d allowed (%d KiB a session): nothing changed; reset sessions done with theirs (POST /__mock/reset)",
				b.Used()+int64(n-st.bytes), b.Max(), MaxSettingsBytes>>10)}
	}
	defer func() {
		if err != nil && b != nil {
			b.Release(int64(n - st.bytes))
		}
	}()
	if sc.Shop() != nil && sameShop(&next, &st.settings) {
		// The shop goes on as it was, up to now.
		if err := ss.readShopLocked(sc, now, func(*shop.Shop) error { return nil }); err != nil {
			return st.settings, err
		}
	} else if sc.Shop() != nil {
		// A pristine session's shop forks from the shared one first.
		sh, err := ss.changeShopLocked(sc, now)
		if err != nil {
			return st.settings, err
		}
		at := sh.Now(now)
		for i := range next.Feedback {
			if !reflect.DeepEqual(next.Feedback[i], st.settings.Feedback[i]) {
				sh.SettingsChanged(i+1, at)
			}
		}
	}
	w := &Write{Before: st.settings, At: now, N: 1}
	if st.last != nil {
		w.N = st.last.N + 1
	}
	st.last = w
	st.settings, st.bytes = next, n
	return next, nil
}

// StaleSettings is the session's settings in sc before their last
// write, for a read that lags it (the stale_read fault): while the write
// is younger than within at now, or for the first reads reads after it.
// ok is false when the read is not behind. counter, when not nil,
// counts the reads since the write across a fleet; else the session
// counts them.
func (ss *Session) StaleSettings(sc *scenario.Scenario, now time.Time, within time.Duration, reads int, counter fault.SharedCounter) (_ settings.Settings, ok bool) {
	ss.mu.Lock()
	st := ss.stateLocked(sc)
	w := st.last
	set := st.settings
	ss.mu.Unlock()
	if w == nil {
		return set, false
	}
	n := w.Stale + 1 // this read's number since the write
	if counter != nil && reads > 0 {
		if c, err := counter.ReadSince(w.At, w.N); err == nil {
			n = c
		}
	}
	if now.Sub(w.At) >= within && n > reads {
		return set, false
	}
	ss.mu.Lock()
	if st.last == w { // a Take may hold w: a new Write, not w changed
		st.last = &Write{Before: w.Before, At: w.At, Stale: max(w.Stale+1, n), N: w.N}
	}
	ss.mu.Unlock()
	ss.changed()
	return w.Before, true
}

// MaxSettingsBytes is what the settings a session patched keep, on
// average over the sessions kept, at most: the settings' budget is
// MaxSessions of it. A PATCH's body is smaller.
const MaxSettingsBytes = 32 << 10

// settingsSize is what settings count in their budget: their JSON.
func settingsSize(set settings.Settings) int {
	b, _ := json.Marshal(set)
	return len(b)
}

// stateBytes is what a state's settings count in their budget: the
// settings, and those before their last write (for stale_read).
func stateBytes(set settings.Settings, last *Write) int {
	n := settingsSize(set)
	if last != nil {
		n += settingsSize(last.Before)
	}
	return n
}

// chargeSettings counts n bytes more of the sessions' settings.
func (ss *Session) chargeSettings(n int64) {
	if b := ss.shared.settings; b != nil && n != 0 {
		b.Charge(n)
	}
}

func (ss *Session) Overrides() access.Overrides {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.overrides
}

func (ss *Session) SetOverrides(o access.Overrides) {
	defer ss.changed()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.stored {
		ss.chargeOverridesLocked(o.Size() - ss.overrides.Size())
	}
	ss.overrides = o
}

// Turn is a request's turn with the session in a scenario, under its
// lock.
type Turn struct {
	Overrides access.Overrides // the session's over those for every session
	Window    *access.Window
}

// Meet decides which faults hit a request of the session in sc, and
// counts them: the scenario's faults first, then the run-time faults
// for every session, then the session's own. decide then gets the
// request's Turn, still under the session's lock.
func (ss *Session) Meet(sc *scenario.Scenario, all access.Overrides, req fault.Request, decide func(fault.Outcome, Turn) fault.Outcome) fault.Outcome {
	ss.mu.Lock()
	st := ss.stateLocked(sc)
	var o fault.Outcome
	for i := range st.sc.Faults() {
		o.Meet(&st.sc.Faults()[i], req, ss.counterLocked)
	}
	shared, own := ss.faultsLocked()
	for _, f := range shared {
		o.Meet(f, req, ss.counterLocked)
	}
	for _, f := range own {
		o.Meet(f, req, ss.counterLocked)
	}
	o = decide(o, Turn{Overrides: ss.overrides.Over(all), Window: &st.window})
	counted := ss.counted
	ss.counted = false
	ss.mu.Unlock()
	if counted {
		ss.changed()
	}
	return o
}

// faultsLocked returns the run-time faults that apply to the session.
// A session that has gone meets none of its own: its id belongs to
// another session now. The caller holds ss.mu.
func (ss *Session) faultsLocked() (shared, own []*fault.Fault) {
	shared, own = ss.shared.faults.For(ss.id)
	if ss.dropped {
		own = nil
	}
	return shared, own
}

// counterLocked returns the session's counter of fault f; the caller
// holds ss.mu.
func (ss *Session) counterLocked(f *fault.Fault) *fault.Counter {
	ss.counted = true
	if ss.counters == nil {
		ss.counters = make(map[*fault.Fault]*fault.Counter)
	}
	c, ok := ss.counters[f]
	if !ok {
		c = &fault.Counter{}
		ss.counters[f] = c
	}
	return c
}

// ForgetFaults drops the session's counters of faults that are gone.
func (ss *Session) ForgetFaults(gone []*fault.Fault) {
	ss.mu.Lock()
	n := len(ss.counters)
	for _, f := range gone {
		delete(ss.counters, f)
	}
	forgot := len(ss.counters) < n
	ss.mu.Unlock()
	if forgot {
		ss.changed()
	}
}

// Reviews is the list the session reads in sc, brought up to its clock.
func (ss *Session) Reviews(sc *scenario.Scenario, now time.Time) (*reviews.Stack, error) {
	if sc.Shop() == nil {
		// Outside ss.mu: a big scenario's first build holds no session's lock.
		if _, err := sc.Store(); err != nil {
			return nil, err
		}
		ss.mu.Lock()
		defer ss.mu.Unlock()
		return ss.baseLocked(sc)
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	var list *reviews.Stack
	err := ss.readShopLocked(sc, now, func(sh *shop.Shop) error {
		list = sh.Reviews()
		return nil
	})
	return list, err
}

// Shop runs fn on the session's living shop in sc, brought up to its
// clock, with the session's settings there, under the session's lock.
// With change set, fn may change the shop (a pristine session first
// forks its own); without it, fn must only read. sc must have a shop.
func (ss *Session) Shop(sc *scenario.Scenario, now time.Time, change bool, fn func(*shop.Shop, settings.Settings) error) error {
	if change {
		defer ss.changed() // its clock may have moved
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	set := ss.stateLocked(sc).settings
	if !change {
		return ss.readShopLocked(sc, now, func(sh *shop.Shop) error { return fn(sh, set) })
	}
	sh, err := ss.changeShopLocked(sc, now)
	if err != nil {
		return err
	}
	return fn(sh, set)
}

// readShopLocked runs fn on the living shop the session reads in sc:
// the shared shop, under its lock, while the session is pristine there,
// else its own. fn must only read. ss.mu must be held.
func (ss *Session) readShopLocked(sc *scenario.Scenario, now time.Time, fn func(*shop.Shop) error) error {
	st := ss.stateLocked(sc)
	if ss.pristineLocked(st) {
		st.read = true
		return ss.shared.common.read(sc, now, fn)
	}
	sh, err := ss.ownShopLocked(st, now)
	if err != nil {
		return err
	}
	return fn(sh)
}

// changeShopLocked returns the session's own shop in sc for a change,
// forked from the shared one if the session is pristine. ss.mu must be
// held, and the caller marks the session changed.
func (ss *Session) changeShopLocked(sc *scenario.Scenario, now time.Time) (*shop.Shop, error) {
	st := ss.stateLocked(sc)
	if !ss.pristineLocked(st) {
		return ss.ownShopLocked(st, now)
	}
	var fork *shop.Shop
	err := ss.shared.common.read(sc, now, func(sh *shop.Shop) error {
		fork = sh.Fork()
		return nil
	})
	if err != nil {
		return nil, err
	}
	st.own = true
	ss.keepShopLocked(st, fork)
	return fork, nil
}

// ownShopLocked returns the session's own living shop in st's scenario,
// brought up to its clock; one evicted or dropped starts again here.
// ss.mu must be held.
func (ss *Session) ownShopLocked(st *state, now time.Time) (*shop.Shop, error) {
	sh := st.shop
	if sh == nil {
		base, err := ss.baseLocked(st.sc)
		if err != nil {
			return nil, err
		}
		sh = shop.New(st.sc, base, now)
		ss.keepShopLocked(st, sh)
		if ss.shared.changed != nil {
			ss.shared.changed(ss.id) // the shop's clock starts now: kept, it comes back where it was
		}
	} else {
		sh.Touch()
	}
	return sh, sh.Bring(now, st.settings)
}

// keepShopLocked makes sh the state's own shop, counted in the shops'
// budget for a kept session. ss.mu must be held.
func (ss *Session) keepShopLocked(st *state, sh *shop.Shop) {
	st.shop = sh
	if ss.keeps && !ss.dropped {
		ss.shared.shops.Add(sh, ss, func() {
			if st.shop == sh {
				st.forgetShopLocked()
			}
		})
	}
}

// restartShopLocked drops the session's own living shop in the
// scenario name. The caller holds ss.mu.
func (ss *Session) restartShopLocked(name string) {
	if st := ss.states[name]; st != nil && st.sc != nil {
		st.dropShopLocked()
	}
}

// chargeOverridesLocked counts n bytes more of the session's overrides.
// The caller holds ss.mu.
func (ss *Session) chargeOverridesLocked(n int) {
	if b := ss.shared.overrides; b != nil && n != 0 {
		b.Charge(int64(n))
	}
}

// changed tells Config.Changed; it takes none of the session's locks.
func (ss *Session) changed() {
	ss.wrote.Store(true)
	if f := ss.shared.changed; f != nil {
		f(ss.id)
	}
}
