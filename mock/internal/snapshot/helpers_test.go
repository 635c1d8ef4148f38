package snapshot

import (
	"log/slog"
	"testing"
	"testing/fstest"
	"time"

	"github.com/replymock/replymock/mock/internal/scenario"
	"github.com/replymock/replymock/mock/internal/settings"
	"github.com/replymock/replymock/mock/internal/shared"
	"github.com/replymock/replymock/mock/internal/shop"
)

// start is when the tests' servers start.
var start = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// shopFile is a frozen living shop on the shipped demo, with arrivals.
var shopFile = fstest.MapFS{"shop.yaml": {Data: []byte("extends: demo\ndescription: test shop\nshop: {arrivals_per_hour: 12, reply_delay: 10m, clock: frozen}\n")}}

// newKeeper is the keeper of a server's state serving active among the
// shipped scenarios and shop, at start, with the limits a server has by
// default.
func newKeeper(t *testing.T, active string) *Keeper {
	t.Helper()
	now := func() time.Time { return start }
	log := slog.New(slog.DiscardHandler)
	reg, err := scenario.Load(scenario.NewLoader(scenario.Config{Scenarios: shopFile, ShippedScenarios: true, Now: now,
		PublicURL: "http://localhost:8080", Logger: log}), start, active)
	if err != nil {
		t.Fatal(err)
	}
	st := shared.New(shared.Config{Log: log, Now: now, Registry: reg, MaxSessions: 1000, SessionTTL: time.Hour,
		MaxShopBytes: 1 << 30, MaxSeedBytes: 512 << 20, JournalSize: 100, JournalBytes: 1 << 20, JournalEntries: 1000})
	return NewKeeper(st, now, "test")
}

// shopSession is a keeper of shop whose session "a" had its settings
// changed by edit, then its shop moved on by d.
func shopSession(t *testing.T, edit func(*settings.Settings), d time.Duration) *Keeper {
	t.Helper()
	k := newKeeper(t, "shop")
	patch(t, k, "a", edit)
	advance(t, k, "a", d)
	return k
}

// patch changes session sid's settings in its scenario by edit, as
// PATCH /api/v1/settings/ai does.
func patch(t *testing.T, k *Keeper, sid string, edit func(*settings.Settings)) {
	t.Helper()
	ss, sc, err := k.State().Resolve(sid, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ss.PatchSettings(sc, k.Now(), func(set settings.Settings) (settings.Settings, error) {
		edit(&set)
		return set, nil
	}); err != nil {
		t.Fatal(err)
	}
}

// advance moves session sid's living shop on by d, as POST
// /__mock/clock does.
func advance(t *testing.T, k *Keeper, sid string, d time.Duration) {
	t.Helper()
	ss, sc, err := k.State().Resolve(sid, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := ss.Shop(sc, k.Now(), true, func(sh *shop.Shop, set settings.Settings) error {
		sh.Advance(d)
		return sh.Run(k.Now(), set)
	}); err != nil {
		t.Fatal(err)
	}
}

// take is session sid's snapshot.
func take(t *testing.T, k *Keeper, sid string) *Snapshot {
	t.Helper()
	snap, err := k.Take(sid)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// taken is session sid's snapshot as JSON (taken at start, as every
// snapshot of the tests is).
func taken(t *testing.T, k *Keeper, sid string) string {
	t.Helper()
	b, err := Marshal(take(t, k, sid), false)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
