package shop

import (
	"encoding/json"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/scenario"
	"github.com/replymock/replymock/mock/internal/wire"
)

var discard = slog.New(slog.NewTextHandler(io.Discard, nil))

// frozenShop is the shipped demo-frozen scenario, with its data.
func frozenShop(t *testing.T) (*scenario.Scenario, *reviews.Stack) {
	t.Helper()
	now := func() time.Time { return time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC) }
	reg, err := scenario.Load(scenario.NewLoader(scenario.Config{Now: now, Logger: discard}), now(), "demo-frozen")
	if err != nil {
		t.Fatal(err)
	}
	sc, _, ok := reg.Get("demo-frozen")
	if !ok || sc.Shop() == nil {
		t.Fatal("no living demo-frozen scenario")
	}
	base, err := sc.Store()
	if err != nil {
		t.Fatal(err)
	}
	return sc, reviews.NewStack(base)
}

// owner is a shop.Owner for tests.
type owner struct {
	sync.Mutex
	id      string
	lasting bool
}

func (o *owner) ID() string    { return o.id }
func (o *owner) Lasting() bool { return o.lasting }

// advance moves sh's clock ahead by d and runs it by sc's settings.
func advance(t *testing.T, sh *Shop, sc *scenario.Scenario, real time.Time, d time.Duration) {
	t.Helper()
	sh.Advance(d)
	if err := sh.Run(real, sc.Settings()); err != nil {
		t.Fatal(err)
	}
}

// A shop advanced a day, taken and restored, is the same shop: the same
// reviews, the same clock, and the same next day.
func TestSnapshotRoundTrip(t *testing.T) {
	sc, base := frozenShop(t)
	real := time.Now()
	sh := New(sc, base, real)
	advance(t, sh, sc, real, 24*time.Hour)
	if sh.Reviews().Len() <= base.Len() {
		t.Fatalf("a day on, the shop has %d reviews, its data %d: want arrivals", sh.Reviews().Len(), base.Len())
	}
	snap := sh.Snapshot(base, real)
	decode := func(raws []json.RawMessage, path string) ([]reviews.Feedback, error) {
		out := make([]reviews.Feedback, len(raws))
		for i := range raws {
			if err := json.Unmarshal(raws[i], &out[i]); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	back, err := Restore(sc, base, snap, "shop", real, decode)
	if err != nil {
		t.Fatal(err)
	}
	advance(t, sh, sc, real, 24*time.Hour)
	advance(t, back, sc, real, 24*time.Hour)
	if !back.Now(real).Equal(sh.Now(real)) || back.Reviews().Len() != sh.Reviews().Len() {
		t.Fatalf("restored: %v, %d reviews; taken: %v, %d", back.Now(real), back.Reviews().Len(), sh.Now(real), sh.Reviews().Len())
	}
	for i := range sh.Reviews().Len() {
		if string(back.Reviews().JSON(i)) != string(sh.Reviews().JSON(i)) {
			t.Fatalf("review %d differs a day after the restore:\n%s\n%s", i, back.Reviews().JSON(i), sh.Reviews().JSON(i))
		}
	}
	// A bad snapshot is refused with the field it names.
	bad := *snap
	bad.Lead = wire.Duration(MaxLead + time.Hour)
	bad.Clock = "frozen"
	if _, err := Restore(sc, base, &bad, "shop", real, decode); err == nil {
		t.Error("a lead past MaxLead restored")
	}
	bad = *snap
	bad.Clock = "real"
	if _, err := Restore(sc, base, &bad, "shop", real, decode); err == nil {
		t.Error("a real clock restored into a frozen shop")
	}
}

// Shops grown past the budget: the least recently used goes first, the
// lasting owner's last, each eviction told to its owner, and the
// accounting equals the sizes of the shops kept.
func TestBudgetEvicts(t *testing.T) {
	sc, base := frozenShop(t)
	real := time.Now()
	one := New(sc, base, real)
	advance(t, one, sc, real, 24*time.Hour)
	b := NewBudget(3*one.Size()+one.Size()/2, discard) // room for three grown shops
	owners := []*owner{{id: "default", lasting: true}, {id: "a"}, {id: "b"}, {id: "c"}, {id: "d"}}
	evicted := map[string]int{}
	for _, o := range owners {
		sh := New(sc, base, real)
		o.Lock()
		b.Add(sh, o, func() { evicted[o.id]++ })
		advance(t, sh, sc, real, 24*time.Hour)
		o.Unlock()
		if sizes, used := b.Audit(); sizes != used || used > b.Bytes().Max() {
			t.Fatalf("after %s: sizes %d, accounted %d, max %d", o.id, sizes, used, b.Bytes().Max())
		}
	}
	if evicted["default"] != 0 || evicted["a"] != 1 || evicted["b"] != 1 || evicted["c"]+evicted["d"] != 0 {
		t.Errorf("evicted %v; want the two least recently used, not the lasting owner's", evicted)
	}
	if b.Evictions() != 2 {
		t.Errorf("%d evictions counted; want 2", b.Evictions())
	}
}

// A fork goes on as the shop it was forked from: a day later, the same
// reviews, arrivals and answers, byte for byte, though its arrivals'
// writer was made again; and the shop it came from is not changed by
// the fork's own change.
func TestForkGoesOnAsTheShop(t *testing.T) {
	sc, base := frozenShop(t)
	real := time.Now()
	set := sc.Settings()
	for i := range set.Feedback {
		set.Feedback[i].ReplyMode = "auto"
	}
	sh := New(sc, base, real)
	sh.Advance(24 * time.Hour)
	if err := sh.Run(real, set); err != nil {
		t.Fatal(err)
	}
	fork := sh.Fork()
	for _, s := range []*Shop{sh, fork} {
		s.Advance(24 * time.Hour)
		if err := s.Run(real, set); err != nil {
			t.Fatal(err)
		}
	}
	if fork.Reviews().Len() != sh.Reviews().Len() || fork.Reviews().Len() < base.Len()+2*700 {
		t.Fatalf("fork: %d reviews, shop: %d, data: %d", fork.Reviews().Len(), sh.Reviews().Len(), base.Len())
	}
	for i := range sh.Reviews().Len() {
		if string(fork.Reviews().JSON(i)) != string(sh.Reviews().JSON(i)) {
			t.Fatalf("review %d differs a day after the fork:\n%s\n%s", i, fork.Reviews().JSON(i), sh.Reviews().JSON(i))
		}
	}
	before := sh.Reviews()
	fork.Advance(time.Hour)
	if err := fork.Run(real, set); err != nil {
		t.Fatal(err)
	}
	if sh.Reviews() != before || !sh.Now(real).Equal(fork.Now(real).Add(-time.Hour)) {
		t.Error("moving the fork moved the shop it came from")
	}
}
