package session

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/budget"
	"github.com/replymock/replymock/mock/internal/fault"
	"github.com/replymock/replymock/mock/internal/journal"
	"github.com/replymock/replymock/mock/internal/scenario"
	"github.com/replymock/replymock/mock/internal/settings"
	"github.com/replymock/replymock/mock/internal/shop"
	"github.com/replymock/replymock/mock/internal/wire"
)

// newStore is a Memory store of at most max sessions, at the time *clock,
// and the shipped default scenario.
func newStore(t *testing.T, max int, clock *time.Time) (*Memory, *scenario.Scenario) {
	t.Helper()
	now := func() time.Time { return *clock }
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	reg, err := scenario.Load(scenario.NewLoader(scenario.Config{Now: now, Logger: log}), now(), "default")
	if err != nil {
		t.Fatal(err)
	}
	sc, _, ok := reg.Get("default")
	if !ok {
		t.Fatal("no default scenario")
	}
	m := NewMemory(Config{Max: max, TTL: time.Hour, Now: now, Log: log,
		Shops: shop.NewBudget(1<<30, log), Seeds: budget.New("seeds", "", 1<<30), Overrides: budget.New("overrides", "", int64(max)*access.MaxSessionOverrideBytes),
		Settings: budget.New("settings", "", int64(max)*MaxSettingsBytes), Faults: fault.NewRegistry(10, 1<<20), Journals: journal.New(10, 1<<20, 100)})
	return m, sc
}

// Dropped sessions keep nothing, though a request under way may still
// hold them: evicted past the limit, their state is gone.
func TestDroppedSessionKeepsNothing(t *testing.T) {
	clock := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	m, sc := newStore(t, 2, &clock)
	var first *Session
	for i := range 10 {
		clock = clock.Add(time.Second)
		ss := m.Open(fmt.Sprintf("s%d", i))
		if i == 0 {
			first = ss
		}
		ss.PutSettings(sc, sc.Settings())
	}
	first.mu.Lock()
	defer first.mu.Unlock()
	if !first.dropped || first.states != nil {
		t.Errorf("an evicted session keeps its state: dropped %v, %d states", first.dropped, len(first.states))
	}
	if ids, _ := m.Used(time.Time{}); len(ids) != 2 || ids[0] != "s8" || ids[1] != "s9" {
		t.Errorf("kept %v; want the two most recently used", ids)
	}
}

// A session Config.Pinned names (requests are served from it) is not
// evicted at the limit: the least recently used of the others is, and
// the store holds more than its limit while every other one is pinned
// too, by at most the sessions pinned.
func TestPinnedSessionNotEvicted(t *testing.T) {
	clock := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	m, _ := newStore(t, 2, &clock)
	pinned := map[string]bool{"w": true}
	m.cfg.Pinned = func(id string) bool { return pinned[id] }
	for _, id := range []string{"w", "a", "b", "c"} {
		clock = clock.Add(time.Second)
		m.Open(id)
	}
	if ids, _ := m.Used(time.Time{}); strings.Join(ids, ",") != "c,w" {
		t.Errorf("kept %v; want the pinned w, the oldest, and c, the newest", ids)
	}
	pinned["c"] = true
	clock = clock.Add(time.Second)
	m.Open("d")
	if ids, _ := m.Used(time.Time{}); strings.Join(ids, ",") != "c,d,w" {
		t.Errorf("every other one pinned: kept %v; want c, d and w, one past the limit", ids)
	}
	pinned = map[string]bool{}
	clock = clock.Add(time.Second)
	m.Open("e")
	if ids, _ := m.Used(time.Time{}); strings.Join(ids, ",") != "d,e" {
		t.Errorf("none pinned: kept %v; want d and e (the limit, the least recently used gone)", ids)
	}
}

// A session unused past the TTL is not found, starts again when opened,
// and the default session never expires.
func TestSessionsExpire(t *testing.T) {
	clock := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	m, sc := newStore(t, 10, &clock)
	for _, id := range []string{"a", Default} {
		ss := m.Open(id)
		ss.SetPick("slow")
		ss.PutSettings(sc, sc.Settings())
	}
	clock = clock.Add(time.Hour + time.Second)
	if _, ok := m.Find("a"); ok {
		t.Error("a session unused past the TTL is found")
	}
	if ss := m.Open("a"); ss.Pick() != "" {
		t.Errorf("an expired session opened again keeps its pick %q", ss.Pick())
	}
	if ss, ok := m.Find(Default); !ok || ss.Pick() != "slow" {
		t.Errorf("the default session expired: found %v", ok)
	}
}

// Reset keeps a session's pick and seeds and nothing else; a session
// with neither is forgotten.
func TestResetKeepsPickAndSeeds(t *testing.T) {
	clock := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	m, sc := newStore(t, 10, &clock)
	a := m.Open("a")
	a.SetPick("slow")
	a.PutSettings(sc, sc.Settings())
	m.Open("b").PutSettings(sc, sc.Settings())
	m.Reset(All)
	fresh, ok := m.Find("a")
	if !ok || fresh == a || fresh.Pick() != "slow" || fresh.states != nil {
		t.Errorf("after a reset: found %v, same %v, pick %q", ok, fresh == a, fresh.Pick())
	}
	if _, ok := m.Find("b"); ok {
		t.Error("a session with no pick nor seeds is kept through a reset")
	}
	if !a.dropped {
		t.Error("the reset session is not marked dropped")
	}
}

// The sessions' own overrides are counted in their budget while the
// sessions are in the store, and no longer once they go: past the
// limit, reset, replaced by Put, or set again. The budget never holds
// more than the sessions kept, each at its bound.
func TestOverridesCountedWhileKept(t *testing.T) {
	clock := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	const max = 3
	m, _ := newStore(t, max, &clock)
	b := m.shared.overrides
	big := access.Overrides{Auth: &access.Auth{Type: "bearer", Tokens: []string{strings.Repeat("t", access.MaxSessionOverrideBytes-16)}}}
	each := int64(big.Size())
	for i := range 2 * max { // past the limit: the least recently used go, and their bytes
		clock = clock.Add(time.Second)
		m.Update(func(tx Tx) error { tx.Open(fmt.Sprintf("s%d", i)).SetOverrides(big); return nil })
		if want := min(int64(i+1), max) * each; b.Used() != want {
			t.Fatalf("after %d sessions: %d bytes counted, want %d", i+1, b.Used(), want)
		}
	}
	if b.Used() > b.Max() {
		t.Fatalf("%d bytes counted, over the budget's %d", b.Used(), b.Max())
	}
	ss, _ := m.Find("s5")
	ss.SetOverrides(access.Overrides{}) // cleared: nothing counted
	if want := 2 * each; b.Used() != want {
		t.Fatalf("after clearing one: %d bytes, want %d", b.Used(), want)
	}
	m.Reset("s4")
	if want := each; b.Used() != want {
		t.Fatalf("after a reset: %d bytes, want %d", b.Used(), want)
	}
	fresh := m.New("s3") // filled before Put, as a restore does: counted once kept
	fresh.SetOverrides(big)
	if b.Used() != each {
		t.Fatalf("a session not yet kept is counted: %d bytes", b.Used())
	}
	m.Put(fresh) // in place of s3, whose bytes go
	if b.Used() != each {
		t.Fatalf("after Put in place of a session alike: %d bytes, want %d", b.Used(), each)
	}
	m.Reset(All)
	if b.Used() != 0 {
		t.Fatalf("after resetting all: %d bytes counted", b.Used())
	}
}

// The settings sessions patched are counted in their budget while the
// sessions are kept; a PATCH past it is a 413 payload_too_large that
// changes nothing, and a reset or a restore in place gives the bytes
// back.
func TestSettingsCountedAndRefusedPastTheirBudget(t *testing.T) {
	clock := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	const max = 3
	m, sc := newStore(t, max, &clock)
	b := m.shared.settings
	sign := func(ss *Session, n int) error {
		_, err := ss.PatchSettings(sc, clock, func(set settings.Settings) (settings.Settings, error) {
			set.Feedback[0].Signature = strings.Repeat("s", n)
			return set, nil
		})
		return err
	}
	big := MaxSettingsBytes // with the rest of the settings, two fit in the budget of three sessions, not three
	if err := sign(m.Open("a"), big); err != nil {
		t.Fatal(err)
	}
	each := b.Used()
	if each < int64(big) {
		t.Fatalf("a PATCH of %d bytes counted %d", big, each)
	}
	if err := sign(m.Open("b"), big); err != nil {
		t.Fatal(err)
	}
	c := m.Open("c")
	before := c.Settings(sc)
	var apiErr *wire.APIError
	if err := sign(c, big); !errors.As(err, &apiErr) || apiErr.Status != http.StatusRequestEntityTooLarge ||
		apiErr.Code != wire.CodePayloadTooLarge || !strings.Contains(apiErr.Message, "nothing changed") {
		t.Fatalf("past the budget: %v, want 413 payload_too_large", err)
	}
	if !reflect.DeepEqual(c.Settings(sc), before) || b.Used() != 2*each {
		t.Errorf("a refused PATCH changed the settings or the count: %d bytes, want %d", b.Used(), 2*each)
	}
	if b.Used() > b.Max() {
		t.Errorf("%d bytes counted, over the budget's %d", b.Used(), b.Max())
	}
	if err := sign(c, 10); err != nil { // a small one fits
		t.Errorf("a small PATCH beside the big ones: %v", err)
	}
	m.Reset("a")
	cBefore := c.Settings(sc)
	if err := sign(c, big); err != nil {
		t.Errorf("after a reset made room: %v", err)
	}
	// c counts its settings and those before its last write (stale_read's).
	cBytes := int64(stateBytes(c.Settings(sc), &Write{Before: cBefore}))
	fresh := m.New("b") // filled before Put, as a restore does
	fresh.PutSettings(sc, sc.Settings())
	m.Put(fresh)
	if want := cBytes + int64(settingsSize(sc.Settings())); b.Used() != want {
		t.Errorf("after b restored in place with the scenario's settings: %d bytes, want %d", b.Used(), want)
	}
	m.Reset(All)
	if b.Used() != 0 {
		t.Errorf("after resetting all: %d bytes counted", b.Used())
	}
}
