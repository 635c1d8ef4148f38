package session

import (
	"cmp"
	"slices"
	"sync"

	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/scenario"
)

// Seed is what a session seeded in one scenario (PUT /__mock/data).
type Seed struct {
	replace bool           // the scenario's data is replaced, not added to
	own     *reviews.Store // the seeded reviews, with their ids
	bytes   int64          // counted in the seeds' budget
	view    *reviews.Stack // own on the data of the scenario version viewOf
	viewOf  *scenario.Scenario
}

// seedOverhead estimates what a Seed keeps besides its store.
const seedOverhead = 1 << 10

// NewSeed is a seed of own, the scenario's data replaced or added to.
func NewSeed(replace bool, own *reviews.Store) *Seed {
	return &Seed{replace: replace, own: own, bytes: own.Bytes() + seedOverhead}
}

// NewSeedOn is NewSeed with its view on base, the data of sc, made now.
func NewSeedOn(sc *scenario.Scenario, base *reviews.Store, replace bool, own *reviews.Store) (*Seed, error) {
	sd := NewSeed(replace, own)
	sd.viewOf = sc
	if replace {
		sd.view = reviews.NewStack(own)
		return sd, nil
	}
	var err error
	sd.view, err = reviews.NewMixedStack(base, own)
	return sd, err
}

// Len is how many reviews the session's list shows with the seed.
func (sd *Seed) Len() int { return sd.view.Len() }

func (sd *Seed) Replace() bool { return sd.replace }

func (sd *Seed) Reviews() *reviews.Store { return sd.own }

func (sd *Seed) Bytes() int64 { return sd.bytes }

// seedBox holds what a session seeded, by scenario name. A reset hands
// the box to the session that replaces the reset one, so a request still
// running on the reset session sees the same seeded reviews as the next
// requests, and the reviews are counted once.
type seedBox struct {
	mu sync.Mutex
	m  map[string]*Seed
}

func (b *seedBox) any() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.m) > 0
}

func (b *seedBox) has(name string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.m[name] != nil
}

// countLocked counts the reviews in every scenario but except. The
// caller holds b.mu.
func (b *seedBox) countLocked(except string) int {
	n := 0
	for name, sd := range b.m {
		if name != except {
			n += sd.own.Len()
		}
	}
	return n
}

func (b *seedBox) bytes() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	var n int64
	for _, sd := range b.m {
		n += sd.bytes
	}
	return n
}

// Seeded is what the session seeded in the scenario name, nil for
// nothing, and how many reviews it seeded in the others.
func (ss *Session) Seeded(name string) (sd *Seed, others int) {
	ss.seeds.mu.Lock()
	defer ss.seeds.mu.Unlock()
	return ss.seeds.m[name], ss.seeds.countLocked(name)
}

func (ss *Session) SeedBytes() int64 { return ss.seeds.bytes() }

// KeepSeed makes next what the session seeded in the scenario name, in
// place of prev, and restarts its living shop there. It returns false if
// the session has gone or seeded something else meanwhile. room checks
// the bounds and reserves next's bytes; its error refuses the seed.
func (ss *Session) KeepSeed(name string, prev, next *Seed, room func(others int) error) (kept bool, err error) {
	defer func() {
		if kept {
			ss.changed()
		}
	}()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	b := ss.seeds
	b.mu.Lock()
	if ss.dropped || b.m[name] != prev {
		b.mu.Unlock()
		return false, nil
	}
	if err := room(b.countLocked(name)); err != nil {
		b.mu.Unlock()
		return false, err
	}
	if b.m == nil {
		b.m = make(map[string]*Seed)
	}
	b.m[name] = next
	b.mu.Unlock()
	ss.restartShopLocked(name)
	return true, nil
}

// DropSeeds forgets every seeded review of the session, and starts its
// living shops again; it returns how many.
func (ss *Session) DropSeeds() int {
	ss.mu.Lock()
	had := ss.seeds.any()
	n := ss.dropSeedsLocked()
	ss.mu.Unlock()
	if had { // a seed of no reviews goes too
		ss.changed()
	}
	return n
}

func (ss *Session) dropSeedsLocked() int {
	ss.seeds.mu.Lock()
	seeds := ss.seeds.m
	ss.seeds.m = nil
	ss.seeds.mu.Unlock()
	n := 0
	for name, sd := range seeds {
		n += sd.own.Len()
		if ss.keeps {
			ss.shared.seeds.Release(sd.bytes)
		}
		ss.restartShopLocked(name)
	}
	return n
}

// seedViewLocked is the session's seeded data in sc, or nil. A new
// version of the scenario gets a new view: added reviews keep their ids
// unless the new data reaches them, then move up past it. ss.mu must be
// held.
func (ss *Session) seedViewLocked(sc *scenario.Scenario, base *reviews.Store) (*reviews.Stack, error) {
	ss.seeds.mu.Lock()
	defer ss.seeds.mu.Unlock()
	sd := ss.seeds.m[sc.Name]
	if sd == nil {
		return nil, nil
	}
	if sd.viewOf == sc {
		return sd.view, nil
	}
	if sd.replace {
		sd.view, sd.viewOf = reviews.NewStack(sd.own), sc
		return sd.view, nil
	}
	v, err := reviews.NewMixedStack(base, sd.own)
	if err != nil { // the new data's ids reach the seeded ones
		if v, err = ss.renumberLocked(sd, base); err != nil {
			return nil, err
		}
	}
	sd.view, sd.viewOf = v, sc
	return v, nil
}

// renumberLocked moves sd's reviews up past base's ids, and returns them
// on base. The caller holds ss.mu and ss.seeds.mu.
func (ss *Session) renumberLocked(sd *Seed, base *reviews.Store) (*reviews.Stack, error) {
	fbs, err := sd.own.Feedbacks()
	if err != nil {
		return nil, err
	}
	byID := func(a, b reviews.Feedback) int { return cmp.Compare(a.ID, b.ID) }
	shift := base.Next() - slices.MinFunc(fbs, byID).ID
	for i := range fbs {
		fbs[i].ID += shift
	}
	own, err := reviews.NewNumbered(fbs)
	if err != nil {
		return nil, err
	}
	v, err := reviews.NewMixedStack(base, own)
	if err != nil {
		return nil, err
	}
	bytes := own.Bytes() + seedOverhead
	if ss.keeps {
		ss.shared.seeds.Charge(bytes - sd.bytes)
	}
	sd.own, sd.bytes = own, bytes
	return v, nil
}

// Base is what a living shop in sc starts from: the session's seeded
// data, or the scenario's.
func (ss *Session) Base(sc *scenario.Scenario) (*reviews.Stack, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.baseLocked(sc)
}

func (ss *Session) baseLocked(sc *scenario.Scenario) (*reviews.Stack, error) {
	base, err := sc.Store()
	if err != nil {
		return nil, err
	}
	v, err := ss.seedViewLocked(sc, base)
	if v == nil || err != nil {
		return reviews.NewStack(base), err
	}
	return v, nil
}
