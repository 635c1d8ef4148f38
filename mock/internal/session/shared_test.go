package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/budget"
	"github.com/replymock/replymock/mock/internal/fault"
	"github.com/replymock/replymock/mock/internal/journal"
	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/scenario"
	"github.com/replymock/replymock/mock/internal/settings"
	"github.com/replymock/replymock/mock/internal/shop"
)

// liveScenario is the shipped demo with the default shop's settings, so
// that its shop writes answers and drafts as well as arrivals: a real
// clock, 30 arrivals an hour, replies 2 minutes on. Its data ends at
// *clock.
func liveScenario(t *testing.T, clock *time.Time) *scenario.Scenario {
	t.Helper()
	files := fstest.MapFS{"live.yaml": {Data: []byte("extends: demo\ndescription: test\nsettings: settings/default.yaml\n")}}
	log := slog.New(slog.DiscardHandler)
	reg, err := scenario.Load(scenario.NewLoader(scenario.Config{Scenarios: files, ShippedScenarios: true, Now: func() time.Time { return *clock }, Logger: log}), *clock, "live")
	if err != nil {
		t.Fatal(err)
	}
	sc, _, ok := reg.Get("live")
	if !ok || sc.Shop() == nil || sc.Shop().Clock == "frozen" {
		t.Fatal("no real-clock living scenario")
	}
	return sc
}

// shopStore is a Memory store at *clock whose changes are told to
// changed; with own, every session has a shop of its own.
func shopStore(clock *time.Time, own bool, changed func(string)) *Memory {
	log := slog.New(slog.DiscardHandler)
	return NewMemory(Config{Max: 5000, TTL: 100 * time.Hour, Now: func() time.Time { return *clock }, Log: log,
		Shops: shop.NewBudget(1<<30, log), OwnShops: own, Changed: changed,
		Seeds: budget.New("seeds", "", 1<<30), Overrides: budget.New("overrides", "", 5000*access.MaxSessionOverrideBytes),
		Faults: fault.NewRegistry(10, 1<<20), Journals: journal.New(10, 1<<20, 100)})
}

// listing is everything session sid's list shows in sc at now: every
// review, as the list writes the page, and the counts.
func listing(t *testing.T, m *Memory, sid string, sc *scenario.Scenario, now time.Time) []byte {
	t.Helper()
	l, err := m.Open(sid).Reviews(sc, now)
	if err != nil {
		t.Fatal(err)
	}
	q := reviews.All()
	q.Limit = 1 << 20
	res := l.Find(q)
	return fmt.Appendf(l.AppendPage(nil, res, q), " total %d answered %d unanswered %d", res.Total, res.Answered, res.Unanswered)
}

// taken is session sid's snapshot of its state in its scenarios, as a
// snapshot given out writes it.
func taken(t *testing.T, m *Memory, sid string, sc *scenario.Scenario, now time.Time) []byte {
	t.Helper()
	tk, err := m.Open(sid).Take(map[string]*scenario.Scenario{sc.Name: sc}, now, true)
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(tk.Scenarios)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// sameBytes fails unless got and want are the same, naming where they
// part.
func sameBytes(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if bytes.Equal(got, want) {
		return
	}
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(i-80, 0)
	t.Fatalf("%s differs from the own-shop reference at byte %d of %d/%d:\n got  …%s\n want …%s", what, i, len(got), len(want),
		got[lo:min(i+80, len(got))], want[lo:min(i+80, len(want))])
}

// A pristine session on the shared shop answers, for the same requests
// at the same times, byte for byte what a session with a shop of its
// own answers: its list and counts, its clock and its snapshot, two
// days into the demo, and after its first changes (a settings PATCH, a
// clock moved), which fork its own shop from the shared one as it
// stands. Another pristine session reading the shared shop alongside
// changes none of it; a session that arrives two days in sees the same
// shop as those there from the start; visitors that only read cost the
// shops' budget nothing and mark no change for the state folder.
func TestSharedShopAnswersAsOwnShop(t *testing.T) {
	clock := time.Date(2027, 3, 1, 12, 0, 0, 0, time.UTC)
	sc := liveScenario(t, &clock)
	var mu sync.Mutex
	marked := map[string]int{}
	shared := shopStore(&clock, false, func(id string) { mu.Lock(); marked[id]++; mu.Unlock() })
	ref := shopStore(&clock, true, nil)

	visitors := []string{"v", "w"} // v changes its shop on the way; w only reads
	compare := func(step string) {
		t.Helper()
		for _, sid := range visitors {
			sameBytes(t, step+": "+sid+"'s list", listing(t, shared, sid, sc, clock), listing(t, ref, sid, sc, clock))
		}
	}
	both := func(do func(m *Memory)) { do(shared); do(ref) }

	compare("at the start")
	listing(t, ref, "x", sc, clock) // x's own shop starts with the shared one; it is read again at the end only
	clock = clock.Add(90 * time.Minute)
	compare("90 minutes on")
	clock = clock.Add(47 * time.Hour)
	compare("two days on")
	if n := marked["v"] + marked["w"]; n != 0 {
		t.Errorf("pristine sessions that only read marked %d changes", n)
	}
	for _, sid := range visitors {
		sameBytes(t, "two days on: "+sid+"'s snapshot", taken(t, shared, sid, sc, clock), taken(t, ref, sid, sc, clock))
	}

	// v switches rating 1 to auto: its shop forks, and answers its
	// one-star reviews from two minutes on; w's stays the shared one.
	both(func(m *Memory) {
		if _, err := m.Open("v").PatchSettings(sc, clock, func(set settings.Settings) (settings.Settings, error) {
			set.Feedback[0].ReplyMode = "auto"
			return set, nil
		}); err != nil {
			t.Fatal(err)
		}
	})
	if marked["v"] == 0 {
		t.Error("the PATCH that forked v's shop marked no change")
	}
	compare("the PATCH")
	clock = clock.Add(10 * time.Minute)
	compare("10 minutes after the PATCH")
	v, _ := shared.Find("v")
	if st := v.states[sc.Name]; st.shop == nil || !st.own {
		t.Fatal("v's shop did not fork from the shared one on its PATCH")
	}

	// w's clock moves ahead three hours: its shop forks too.
	marks := marked["w"]
	both(func(m *Memory) {
		if err := m.Open("w").Shop(sc, clock, true, func(sh *shop.Shop, set settings.Settings) error {
			sh.Advance(3 * time.Hour)
			return sh.Run(clock, set)
		}); err != nil {
			t.Fatal(err)
		}
	})
	if marked["w"] == marks {
		t.Error("moving w's clock marked no change")
	}
	compare("w's clock moved")
	clock = clock.Add(time.Hour)
	compare("an hour after")
	for _, sid := range visitors {
		sameBytes(t, "at the end: "+sid+"'s snapshot", taken(t, shared, sid, sc, clock), taken(t, ref, sid, sc, clock))
	}

	// A visitor two days and more in sees the shop those there from the
	// start see, and a thousand of them cost the shops nothing more.
	first := listing(t, shared, "late-0", sc, clock)
	used := shared.shared.shops.Bytes().Used()
	marks = len(marked)
	for i := range 1000 {
		sid := fmt.Sprintf("late-%d", i)
		if i%250 == 0 {
			sameBytes(t, "a late visitor's list", listing(t, shared, sid, sc, clock), first)
		} else if _, err := shared.Open(sid).Reviews(sc, clock); err != nil {
			t.Fatal(err)
		}
	}
	if now := shared.shared.shops.Bytes().Used(); now != used {
		t.Errorf("1,000 visitors that read took the shops from %d to %d bytes", used, now)
	}
	if len(marked) != marks {
		t.Errorf("1,000 visitors that read marked %d sessions changed", len(marked)-marks)
	}
	// It is what a shop of its own started with the shared one shows,
	// though that one ran once at the end, the shared one at every step.
	sameBytes(t, "a late visitor's list", first, listing(t, ref, "x", sc, clock))
}

// Sessions reading the shared shop, forking it, moving their clocks and
// being reset, all at once, over a shops' budget too small for them:
// every call returns (the budget only tries the locks it takes), and
// once they are done the budget accounts what it keeps, within its
// maximum. Run it with -race.
func TestSharedShopConcurrent(t *testing.T) {
	clock := time.Date(2027, 3, 1, 12, 0, 0, 0, time.UTC)
	sc := liveScenario(t, &clock)
	m := shopStore(&clock, false, nil)
	// Room for a few shops a day old: forks and the shared one evict
	// one another.
	m.shared.shops = shop.NewBudget(4<<20, slog.New(slog.DiscardHandler))
	m.shared.common.budget = m.shared.shops
	now := clock.Add(24 * time.Hour) // read-only from here: each goroutine passes its own times
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Go(func() {
			for i := range 20 {
				at := now.Add(time.Duration(g*20+i) * time.Minute)
				ss := m.Open(fmt.Sprintf("g%d-%d", g, i%5))
				if _, err := ss.Reviews(sc, at); err != nil {
					t.Error(err)
					return
				}
				switch i % 5 {
				case 1:
					ss.PatchSettings(sc, at, func(set settings.Settings) (settings.Settings, error) {
						set.Feedback[i%5].ReplyMode = "auto"
						return set, nil
					})
				case 2:
					ss.Shop(sc, at, true, func(sh *shop.Shop, set settings.Settings) error {
						sh.Advance(time.Hour)
						return sh.Run(at, set)
					})
				case 3:
					if _, err := ss.Take(map[string]*scenario.Scenario{sc.Name: sc}, at, true); err != nil {
						t.Error(err)
					}
				case 4:
					if g == 0 {
						m.Reset(All)
					} else {
						m.Reset(ss.ID())
					}
				}
			}
		})
	}
	wg.Wait()
	if _, err := m.Open("last").Reviews(sc, now.Add(3*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if m.shared.shops.Evictions() == 0 {
		t.Error("no shop was evicted: the budget was not pushed past")
	}
	if sizes, used := m.shared.shops.Audit(); sizes != used || used > m.shared.shops.Bytes().Max() {
		t.Errorf("the shops account %d bytes, their sizes add up to %d, the most is %d", used, sizes, m.shared.shops.Bytes().Max())
	}
}
