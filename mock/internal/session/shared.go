package session

import (
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/scenario"
	"github.com/replymock/replymock/mock/internal/shop"
)

// A living shop follows from the scenario, the settings and the clock
// alone, so every session that has changed nothing of its shop has the
// same shop. Such a pristine session reads the one its store shares for
// the scenario's version: a visitor costs its session, not a shop. Its
// first change forks a shop of its own (Shop.Fork).

// sharedShops are the shops pristine sessions read, one per scenario.
type sharedShops struct {
	budget *shop.Budget
	off    bool // Config.OwnShops
	mu     sync.Mutex
	m      map[string]*sharedShop
}

// sharedShop is the shop pristine sessions read in one scenario, and
// its Owner in the shops' budget: counted once, it goes last.
type sharedShop struct {
	mu sync.Mutex
	sc *scenario.Scenario // the version sh stands on
	sh *shop.Shop         // nil until read, or once evicted
}

// SharedOwner is how the shops' budget names a shared shop's owner in
// its log lines: no session's id, which has no parentheses.
const SharedOwner = "(shared)"

func (c *sharedShop) ID() string    { return SharedOwner }
func (c *sharedShop) Lasting() bool { return true }
func (c *sharedShop) TryLock() bool { return c.mu.TryLock() }
func (c *sharedShop) Unlock()       { c.mu.Unlock() }

func (s *sharedShops) of(sc *scenario.Scenario) *sharedShop {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = make(map[string]*sharedShop)
	}
	c := s.m[sc.Name]
	if c == nil {
		c = &sharedShop{}
		s.m[sc.Name] = c
	}
	return c
}

// read runs fn, under the shared shop's lock, on the shop pristine
// sessions read in sc, brought up to its clock at now. It starts again
// for a new version of the scenario or once the budget evicted it.
func (s *sharedShops) read(sc *scenario.Scenario, now time.Time, fn func(*shop.Shop) error) error {
	c := s.of(sc)
	c.mu.Lock()
	defer c.mu.Unlock()
	sh := c.sh
	if sh == nil || c.sc != sc {
		if sh != nil {
			sh.Release()
		}
		base, err := sc.Store()
		if err != nil {
			return err
		}
		sh = shop.New(sc, reviews.NewStack(base), now)
		c.sc, c.sh = sc, sh
		s.budget.Add(sh, c, func() {
			if c.sh == sh {
				c.sh = nil
			}
		})
	} else {
		sh.Touch()
	}
	if err := sh.Bring(now, sc.Settings()); err != nil {
		return err
	}
	return fn(sh)
}

// reset drops every shared shop: each starts again when next read.
func (s *sharedShops) reset() {
	s.mu.Lock()
	all := slices.Collect(maps.Values(s.m))
	s.mu.Unlock()
	for _, c := range all {
		c.mu.Lock()
		if c.sh != nil {
			c.sh.Release()
			c.sh = nil
		}
		c.mu.Unlock()
	}
}
