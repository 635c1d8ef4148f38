package session

import (
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/budget"
	"github.com/replymock/replymock/mock/internal/fault"
	"github.com/replymock/replymock/mock/internal/journal"
	"github.com/replymock/replymock/mock/internal/shop"
)

// Tx is the store held for a change of several steps, made as one: no
// other change of the store comes in between.
type Tx interface {
	// Open returns session id, making it if it is not kept (or has
	// expired), and marks it used.
	Open(id string) *Session
	// Find returns session id if it is kept and has not expired.
	Find(id string) (*Session, bool)
	// List returns session id, if it is kept, or every session for All.
	List(id string) []*Session
	// Drop forgets session id, its journal and its run-time faults.
	Drop(id string)
	// Put keeps ss, made by New and filled while no one else had it.
	Put(ss *Session)
}

// Store keeps the sessions.
type Store interface {
	Tx
	// Update runs fn with the store held.
	Update(fn func(Tx) error) error
	// Look returns session id as a request that only reads sees it: the
	// kept one, or a fresh one that is not kept and keeps nothing.
	Look(id string) *Session
	// New is a fresh session of id, not kept: filled, it goes in by Put.
	New(id string) *Session
	// Reset returns session id (every session for All) to its start:
	// all but its pick and seeded reviews go.
	Reset(id string)
	// Used lists the sessions kept, sorted, and which of them were used
	// at or after since.
	Used(since time.Time) ([]string, map[string]bool)
	// NoteEviction remembers that session id left a store shared with
	// other processes (a fleet's Redis) at at, for why, so that its next
	// request says so.
	NoteEviction(id string, at time.Time, why string)
}

// Config is what a Memory store keeps its sessions with.
type Config struct {
	Max   int           // sessions kept at most; past it, the least recently used goes (never Default)
	TTL   time.Duration // how long an unused session lives; Default never expires
	Now   func() time.Time
	Log   *slog.Logger
	Shops *shop.Budget // the living shops' memory
	// OwnShops gives every session a living shop of its own, where a
	// pristine one would read the shop its scenario's pristine sessions
	// share: the reference that shared shop is tested against.
	OwnShops  bool
	Seeds     *budget.Budget // the seeded reviews' memory
	Overrides *budget.Budget // the sessions' own overrides' memory; nil counts none
	Settings  *budget.Budget // the settings sessions patched or restored; nil counts none
	// Changed, when set, is told the id of every session that was put,
	// dropped or reset, or whose state changed, so that a store that
	// outlives the process writes it again.
	Changed func(id string)
	// Evicted, when set, is told the id of a session dropped to make
	// room, before Changed is: a store shared by several processes keeps
	// it for the others.
	Evicted func(id string)
	// Pinned, when set, reports whether requests are being served from
	// session id. A pinned session is never evicted, so a request never
	// reads a copy emptied under it; the store then passes Max by at most
	// the requests in flight, which the connection limit bounds.
	Pinned   func(id string) bool
	Faults   *fault.Registry
	Journals *journal.Journals
}

// Memory is a Store in this process's memory.
type Memory struct {
	cfg    Config
	shared *shared
	mu     sync.Mutex // guards the fields below and each session's lastUsed
	m      map[string]*Session
	gone   evictions // the sessions evicted, for their next request
}

// NewMemory is an empty Memory store.
func NewMemory(cfg Config) *Memory {
	return &Memory{cfg: cfg, shared: &shared{shops: cfg.Shops, common: sharedShops{budget: cfg.Shops, off: cfg.OwnShops}, seeds: cfg.Seeds, overrides: cfg.Overrides, settings: cfg.Settings, faults: cfg.Faults, changed: cfg.Changed}, m: make(map[string]*Session)}
}

func (m *Memory) New(id string) *Session {
	return &Session{id: id, shared: m.shared, seeds: &seedBox{}, keeps: true}
}

func (m *Memory) Look(id string) *Session {
	if ss, ok := m.Find(id); ok {
		return ss
	}
	return &Session{id: id, shared: m.shared, seeds: &seedBox{}}
}

func (m *Memory) Update(fn func(Tx) error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return fn(memTx{m})
}

// Open, Find, List, Drop and Put are Tx's, each a change on its own.
func (m *Memory) Open(id string) *Session {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.openLocked(id)
}

func (m *Memory) Find(id string) (*Session, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.findLocked(id)
}

func (m *Memory) List(id string) []*Session {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.listLocked(id)
}

func (m *Memory) Drop(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.dropLocked(id)
}

func (m *Memory) NoteEviction(id string, at time.Time, why string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.gone.add(id, at, why)
}

func (m *Memory) Put(ss *Session) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.putLocked(ss)
}

// memTx is the Memory store held by Update.
type memTx struct{ m *Memory }

func (t memTx) Open(id string) *Session         { return t.m.openLocked(id) }
func (t memTx) Find(id string) (*Session, bool) { return t.m.findLocked(id) }
func (t memTx) List(id string) []*Session       { return t.m.listLocked(id) }
func (t memTx) Drop(id string)                  { t.m.dropLocked(id) }
func (t memTx) Put(ss *Session)                 { t.m.putLocked(ss) }

// expired reports whether ss has been unused for longer than the TTL.
// The caller holds m.mu.
func (m *Memory) expired(ss *Session, now time.Time) bool {
	return ss.id != Default && now.Sub(ss.lastUsed) > m.cfg.TTL
}

func (m *Memory) findLocked(id string) (*Session, bool) {
	ss, ok := m.m[id]
	if ok && m.expired(ss, m.cfg.Now()) {
		return nil, false
	}
	return ss, ok
}

func (m *Memory) openLocked(id string) *Session {
	now := m.cfg.Now()
	ss, ok := m.m[id]
	if ok && m.expired(ss, now) {
		m.evictLocked(id, now, ExpiredWhy(m.cfg.TTL)) // expired: it starts again
		ok = false
	}
	if !ok {
		m.evictForLocked(now)
		ss = m.New(id)
		ss.key = m.cfg.Journals.Open(id)
		ss.stored = true // nobody else has it yet: no overrides to count
		if e, ok := m.gone.take(id); ok {
			ss.eviction = &e
		}
		m.m[id] = ss
	}
	ss.lastUsed = now
	return ss
}

func (m *Memory) listLocked(id string) []*Session {
	if id != All {
		if ss, ok := m.m[id]; ok {
			return []*Session{ss}
		}
		return nil
	}
	return slices.Collect(maps.Values(m.m))
}

func (m *Memory) putLocked(ss *Session) {
	m.dropLocked(ss.id)
	m.gone.take(ss.id) // restored: it has what it had
	now := m.cfg.Now()
	m.evictForLocked(now)
	ss.lastUsed = now
	ss.key = m.cfg.Journals.Open(ss.id)
	m.m[ss.id] = ss
	ss.mu.Lock()
	defer ss.mu.Unlock()
	defer ss.changed()
	ss.stored = true
	ss.chargeOverridesLocked(ss.overrides.Size())
	for _, st := range ss.states {
		ss.chargeSettings(int64(st.bytes))
		if st.shop != nil {
			ss.keepShopLocked(st, st.shop)
		}
	}
}

// evictForLocked makes room for one more session: it drops the expired
// sessions, then the least recently used, those that only read before
// those that wrote. The caller holds m.mu.
func (m *Memory) evictForLocked(now time.Time) {
	pinned := func(id string) bool { return id == Default || m.cfg.Pinned != nil && m.cfg.Pinned(id) }
	for oid, o := range m.m {
		if !pinned(oid) && m.expired(o, now) {
			m.evictLocked(oid, now, ExpiredWhy(m.cfg.TTL))
		}
	}
	for len(m.m) >= m.cfg.Max {
		var lru *Session
		for oid, o := range m.m {
			if pinned(oid) {
				continue
			}
			if lru == nil || evictsBefore(o, lru) {
				lru = o
			}
		}
		if lru == nil {
			return
		}
		m.cfg.Log.Info("session evicted: too many sessions", "session", lru.id, "max", m.cfg.Max)
		m.evictLocked(lru.id, now, PastWhy("--max-sessions", strconv.Itoa(m.cfg.Max)))
	}
}

// evictsBefore reports whether a goes before b to make room: a session
// that only read goes before one that wrote, then the least recently
// used. The caller holds m.mu.
func evictsBefore(a, b *Session) bool {
	if aw, bw := a.wrote.Load(), b.wrote.Load(); aw != bw {
		return !aw
	}
	return a.lastUsed.Before(b.lastUsed)
}

// ExpiredWhy is why a session unused for longer than ttl was evicted.
func ExpiredWhy(ttl time.Duration) string {
	return fmt.Sprintf("unused for longer than --session-ttl, %s", ttl)
}

// PastWhy is why the least recently used session was evicted past the
// bound flag set to value.
func PastWhy(flag, value string) string {
	return "the least recently used, past " + flag + " " + value
}

// evictLocked drops session id to make room, and remembers why for its
// next request; the caller holds m.mu.
func (m *Memory) evictLocked(id string, now time.Time, why string) {
	if m.cfg.Evicted != nil {
		m.cfg.Evicted(id)
	}
	m.dropLocked(id)
	m.gone.add(id, now, why)
}

// dropLocked forgets a session; the caller holds m.mu.
func (m *Memory) dropLocked(id string) {
	ss, ok := m.m[id]
	if !ok {
		return
	}
	delete(m.m, id)
	ss.mu.Lock()
	ss.dropSeedsLocked()
	m.clearLocked(ss)
	ss.mu.Unlock()
}

// clearLocked empties a session taken out of the store, keeping its
// scenario pick and seeded reviews, and marks it dropped. m.mu and ss.mu
// must be held.
func (m *Memory) clearLocked(ss *Session) {
	m.cfg.Journals.Drop(ss.key)
	for _, st := range ss.states {
		if st.shop != nil {
			st.shop.Release()
		}
	}
	if ss.stored {
		ss.chargeOverridesLocked(-ss.overrides.Size())
		for _, st := range ss.states {
			ss.chargeSettings(-int64(st.bytes))
		}
		ss.stored = false
	}
	ss.states, ss.counters, ss.overrides = nil, nil, access.Overrides{}
	m.cfg.Faults.Drop(ss.id)
	// A request still running on it keeps no shop and no journal entry,
	// and meets none of its faults.
	ss.dropped = true
	ss.changed()
}

func (m *Memory) Reset(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	reset := func(id string) {
		ss, ok := m.m[id]
		if !ok {
			return
		}
		// In one critical section: a seeding that got this session
		// before finds it dropped and tries again on the fresh one,
		// rather than seed a session that is going.
		ss.mu.Lock()
		picked, seeds := ss.pick, ss.seeds
		delete(m.m, id)
		m.clearLocked(ss)
		ss.mu.Unlock()
		if picked != "" || seeds.any() {
			// The fresh session shares the seeds with ss, which a
			// request that got it before the reset may still read.
			fresh := m.openLocked(id)
			fresh.pick, fresh.seeds = picked, seeds // nobody else has it yet
		}
	}
	if id != All {
		reset(id)
		return
	}
	for id := range m.m {
		reset(id)
	}
	m.shared.common.reset()
}

func (m *Memory) Used(since time.Time) ([]string, map[string]bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.cfg.Now()
	ids := make([]string, 0, len(m.m))
	used := make(map[string]bool)
	for id, ss := range m.m {
		if m.expired(ss, now) {
			continue
		}
		ids = append(ids, id)
		if !ss.lastUsed.Before(since) {
			used[id] = true
		}
	}
	slices.Sort(ids)
	return ids, used
}
