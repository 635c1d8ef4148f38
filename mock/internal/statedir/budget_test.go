package statedir

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/scenario"
	"github.com/replymock/replymock/mock/internal/session"
	"github.com/replymock/replymock/mock/internal/shared"
	"github.com/replymock/replymock/mock/internal/snapshot"
	"github.com/replymock/replymock/mock/internal/wire"
)

// logBuffer is a log's lines, written by any goroutine.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// diskUse is what dir's sessions/ and rejected/ hold, and the files in
// sessions/.
func diskUse(t *testing.T, dir string) (int64, map[string]bool) {
	t.Helper()
	var n int64
	names := map[string]bool{}
	for _, sub := range []string{sessionsDir, rejectedDir} {
		des, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil {
			t.Fatal(err)
		}
		for _, de := range des {
			fi, err := de.Info()
			if err != nil {
				t.Fatal(err)
			}
			n += fi.Size()
			if sub == sessionsDir {
				names[de.Name()] = true
			}
		}
	}
	return n, names
}

// save keeps what changed in d.
func save(t *testing.T, d *Dir, k *snapshot.Keeper, c *clock) {
	t.Helper()
	if err := d.Save(context.Background(), k, c.now()); err != nil {
		t.Fatal(err)
	}
}

// Sessions written past the folder's budget: the files set aside go
// first, then a write that would pass it is refused with 503
// store_unavailable and changes nothing (a new session is gone, a
// changed one is as its file keeps it); no session's file goes for
// another's, for each holds answered writes; a folder over a budget
// lowered since keeps every file at start and refuses what grows it.
func TestBudgetKeepsTheFolderWithin(t *testing.T) {
	c := &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	k := server(t, c)
	dir := t.TempDir()
	logs := &logBuffer{}
	d, err := Open(dir, slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	sign(t, k, session.Default, "the default")
	save(t, d, k, c)
	one, _ := diskUse(t, dir)
	// A file set aside before, as a start that could not load it does.
	if err := os.WriteFile(filepath.Join(dir, rejectedDir, "old.json.x"), bytes.Repeat([]byte("x"), int(one)), 0o600); err != nil {
		t.Fatal(err)
	}
	max := 4*one + one/2 // room for four sessions' files
	d2, err := Open(dir, slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	d2.SetMax(max)
	k = server(t, c)
	d2.Restore(k)
	d2.Keep(k, c.now())
	st := k.State()
	for i := range 6 {
		c.add(time.Second)
		sid := fmt.Sprintf("s%d", i)
		sign(t, k, sid, "the same length")
		err := st.SyncWrite(context.Background(), sid)
		if used, _ := diskUse(t, dir); used > max {
			t.Fatalf("after %s, the folder holds %d bytes, over the %d allowed", sid, used, max)
		}
		var apiErr *wire.APIError
		switch {
		case i < 3 && err != nil:
			t.Errorf("%s, within the budget once the file set aside goes: %v", sid, err)
		case i >= 3 && (!errors.As(err, &apiErr) || apiErr.Status != 503 || apiErr.Code != wire.CodeStoreUnavailable ||
			apiErr.RetryAfter == 0 || !strings.Contains(apiErr.Message, "--max-state-disk") || !strings.Contains(apiErr.Message, "nothing changed")):
			t.Errorf("%s, past the budget: %v, want 503 store_unavailable naming --max-state-disk, with Retry-After", sid, err)
		case i >= 3:
			if _, ok := st.Sessions().Find(sid); ok {
				t.Errorf("%s, refused, still lives in memory", sid)
			}
		}
	}
	_, names := diskUse(t, dir)
	for _, want := range []string{"default.json", "s0.json", "s1.json", "s2.json"} {
		if !names[want] {
			t.Errorf("%s, an answered write, is not kept; the folder holds %v", want, names)
		}
	}
	if len(names) != 4 {
		t.Errorf("the folder holds %v, want the default session's and the three answered", names)
	}
	if _, err := os.Stat(filepath.Join(dir, rejectedDir, "old.json.x")); !os.IsNotExist(err) {
		t.Errorf("the file set aside is still there, though the folder was full: %v", err)
	}
	if !strings.Contains(logs.String(), "a file set aside removed") {
		t.Errorf("the removal of the file set aside is not logged:\n%s", logs)
	}

	// s0 grows past the budget (500 reviews seeded): refused, and s0 is
	// as its file keeps it, its seed gone.
	ss, sc, err := st.Resolve("s0", "")
	if err != nil {
		t.Fatal(err)
	}
	var fbs []reviews.Feedback
	for i := range 500 {
		fbs = append(fbs, reviews.Feedback{ID: int64(900000 + i), Text: strings.Repeat("long review ", 20), ProductValuation: 5,
			CreatedDate: "2026-11-01 10:00:00", UserName: "Anna"})
	}
	own, err := reviews.NewNumbered(fbs)
	if err != nil {
		t.Fatal(err)
	}
	before := taken(t, k, "s0")
	if kept, err := ss.KeepSeed(sc.Name, nil, session.NewSeed(false, own), func(int) error { return nil }); !kept || err != nil {
		t.Fatalf("seeding: %v, %v", kept, err)
	}
	if err := st.SyncWrite(context.Background(), "s0"); err == nil {
		t.Error("a seed past the budget answered with success")
	}
	if after := taken(t, k, "s0"); after != before {
		t.Errorf("s0 after a refused seed:\n%.300s\nwant as before:\n%.300s", after, before)
	}
	if used, names := diskUse(t, dir); !names["s0.json"] || used > max {
		t.Errorf("after a refused seed, the folder holds %v, %d bytes of %d", names, used, max)
	}

	// Started again with a lower budget: every file stays, with a
	// warning, and a write that grows the folder is refused.
	d3, _ := Open(dir, slog.New(slog.NewTextHandler(logs, nil)))
	d3.SetMax(2*one + one/2)
	k3 := server(t, c)
	if n := d3.Restore(k3); n != 4 {
		t.Errorf("restored %d sessions under a lower budget, want all 4", n)
	}
	if !strings.Contains(logs.String(), "holds more than --max-state-disk") {
		t.Errorf("a folder over its budget at start is not logged:\n%s", logs)
	}
	d3.Keep(k3, c.now())
	sign(t, k3, "s9", "new")
	if err := k3.State().SyncWrite(context.Background(), "s9"); err == nil {
		t.Error("a new session in a folder over its budget answered with success")
	}
}

// anchoredServer is server with the data that ends now anchored to
// anchor.
func anchoredServer(t *testing.T, c *clock, anchor time.Time) *snapshot.Keeper {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	reg, err := scenario.Load(scenario.NewLoader(scenario.Config{Now: c.now, PublicURL: "http://localhost:8080", Logger: log}), anchor, "default")
	if err != nil {
		t.Fatal(err)
	}
	cfg := shared.Config{Log: log, Now: c.now, Registry: reg, MaxSessions: 1000, SessionTTL: time.Hour, MaxShopBytes: 1 << 30,
		MaxSeedBytes: 1 << 30, JournalSize: 10, JournalBytes: 1 << 20, JournalEntries: 100}
	return snapshot.NewKeeper(shared.New(cfg), c.now, "test")
}

// A session that only changed its pick, reading the demo's living shop
// alongside, is written without the shop every pristine session shares,
// a few kilobytes, and comes back reading that shop again: the same
// list as a session that never left.
func TestPristineSessionKeepsNoShop(t *testing.T) {
	c := &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	k := server(t, c)
	dir := t.TempDir()
	d := openDir(t, dir)
	if err := k.State().SetScenario("visitor", "demo"); err != nil {
		t.Fatal(err)
	}
	c.add(24 * time.Hour) // the shop's day of arrivals
	list := func(k *snapshot.Keeper, sid string) string {
		ss, sc, err := k.State().Resolve(sid, "demo")
		if err != nil {
			t.Fatal(err)
		}
		l, err := ss.Reviews(sc, c.now())
		if err != nil {
			t.Fatal(err)
		}
		q := reviews.All()
		q.Limit = 100
		return string(l.AppendPage(nil, l.Find(q), q))
	}
	before := list(k, "visitor")
	save(t, d, k, c)
	fi, err := os.Stat(filepath.Join(dir, sessionsDir, "visitor.json"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > 8<<10 {
		t.Errorf("a pristine session's file is %d bytes: it holds the shared shop", fi.Size())
	}
	if public := taken(t, k, "visitor"); !strings.Contains(public, `"arrivals"`) {
		t.Error("the session's snapshot given out does not show the shop it reads")
	}
	// Restarted a day on, the server anchors the demo's data where it
	// did (as the command line does with the folder's anchor).
	again := anchoredServer(t, c, c.now().Add(-24*time.Hour))
	d2 := openDir(t, dir)
	if n := d2.Restore(again); n != 1 {
		t.Fatalf("restored %d sessions", n)
	}
	if got := list(again, "visitor"); got != before {
		t.Errorf("restored, the pristine session lists\n%.300s\nwant\n%.300s", got, before)
	}
	if got := list(again, "newcomer"); got != before {
		t.Errorf("a newcomer lists\n%.300s\nwant\n%.300s", got, before)
	}
}
