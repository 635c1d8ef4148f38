package statedir

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/fault"
	"github.com/replymock/replymock/mock/internal/scenario"
	"github.com/replymock/replymock/mock/internal/session"
	"github.com/replymock/replymock/mock/internal/settings"
	"github.com/replymock/replymock/mock/internal/shared"
	"github.com/replymock/replymock/mock/internal/shop"
	"github.com/replymock/replymock/mock/internal/snapshot"
)

// clock is a test's time, moved by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// server is the shared state of a server of the shipped scenarios,
// started at c's time, and the keeper of its sessions.
func server(t testing.TB, c *clock) *snapshot.Keeper {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	reg, err := scenario.Load(scenario.NewLoader(scenario.Config{Now: c.now, PublicURL: "http://localhost:8080", Logger: log}), c.now(), "default")
	if err != nil {
		t.Fatal(err)
	}
	cfg := shared.Config{Log: log, Now: c.now, Registry: reg, MaxSessions: 1000, SessionTTL: time.Hour, MaxShopBytes: 1 << 30,
		MaxSeedBytes: 1 << 30, JournalSize: 10, JournalBytes: 1 << 20, JournalEntries: 100}
	return snapshot.NewKeeper(shared.New(cfg), c.now, "test")
}

// openDir is the state folder dir, opened as a server does at start.
func openDir(t *testing.T, dir string) *Dir {
	t.Helper()
	d, err := Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// sign makes signature rating 1's signature in session sid's settings.
func sign(t testing.TB, k *snapshot.Keeper, sid, signature string) {
	t.Helper()
	ss, sc, err := k.State().Resolve(sid, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ss.PatchSettings(sc, k.Now(), func(set settings.Settings) (settings.Settings, error) {
		set.Feedback[0].Signature = signature
		return set, nil
	}); err != nil {
		t.Fatal(err)
	}
}

// taken is session sid's snapshot as JSON, taken at the clock's time.
func taken(t *testing.T, k *snapshot.Keeper, sid string) string {
	t.Helper()
	snap, err := k.Take(sid)
	b, jerr := json.Marshal(snap)
	if err = errors.Join(err, jerr); err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A save writes each session once it changed, leaves an unchanged one
// alone, and removes the file of a session that is gone; a server on the
// folder comes back with the sessions as they were.
func TestSave(t *testing.T) {
	c := &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	k := server(t, c)
	dir := t.TempDir()
	d := openDir(t, dir)
	long := strings.Repeat(".", 128)
	for _, s := range []string{"a", "b", "c.1", "Alice", "alice", long} {
		sign(t, k, s, s)
	}
	if err := d.Save(context.Background(), k, c.now()); err != nil {
		t.Fatal(err)
	}
	file := func(name string) string { return filepath.Join(dir, "sessions", name) }
	for _, name := range []string{"a.json", "b.json", "c%2E1.json", "%41lice.json", "alice.json", sessionFile(long)} {
		if _, err := os.Stat(file(name)); err != nil {
			t.Errorf("not written: %v", err)
		}
	}
	if name := sessionFile(long); !strings.HasPrefix(name, "sha256-") || len(name) > 200 {
		t.Errorf("a long id's file is %s, want it named by its hash", name)
	}
	stamp := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	os.Chtimes(file("a.json"), stamp, stamp)
	os.Chtimes(file("b.json"), stamp, stamp)
	c.add(time.Minute)
	if _, _, err := k.State().Resolve("a", ""); err != nil { // used, unchanged
		t.Fatal(err)
	}
	sign(t, k, "b", "b2")
	k.State().Reset("c.1")
	if err := d.Save(context.Background(), k, c.now()); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(file("a.json")); !fi.ModTime().Equal(stamp) {
		t.Error("an unchanged session was written again")
	}
	if fi, _ := os.Stat(file("b.json")); fi.ModTime().Equal(stamp) {
		t.Error("a changed session was not written")
	}
	if _, err := os.Stat(file("c%2E1.json")); !os.IsNotExist(err) {
		t.Errorf("a reset session's file is still there: %v", err)
	}
	want := map[string]string{}
	for _, s := range []string{"a", "b", "Alice", "alice", long} {
		want[s] = taken(t, k, s)
	}
	again := server(t, c)
	d2 := openDir(t, dir)
	if n := d2.Restore(again); n != len(want) {
		t.Errorf("restored %d sessions, want %d", n, len(want))
	}
	for s, w := range want {
		if got := taken(t, again, s); got != w {
			t.Errorf("session %s restored:\n got %.300s\nwant %.300s", s, got, w)
		}
	}
}

// The server's own state comes back: its scenario, the faults for every
// session with their ids, the overrides for every session; the present
// its data was anchored to is kept while a living shop could go on.
func TestServerStateComesBack(t *testing.T) {
	c := &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	k := server(t, c)
	st := k.State()
	if err := st.SetScenario(session.All, "demo-frozen"); err != nil {
		t.Fatal(err)
	}
	f, _, err := st.PutFault(session.All, fault.Fault{Name: "slow list", Path: "/feedbacks", Drop: true}, false)
	if err != nil {
		t.Fatal(err)
	}
	strict := true
	if err := st.SetOverridesFor(session.All, access.Overrides{Strict: &strict}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	d := openDir(t, dir)
	anchor := c.now().Add(-time.Hour)
	if err := d.Save(context.Background(), k, anchor); err != nil {
		t.Fatal(err)
	}
	again := server(t, c)
	d2 := openDir(t, dir)
	d2.Restore(again)
	st2 := again.State()
	if got := st2.Registry().Default().Name; got != "demo-frozen" {
		t.Errorf("scenario %q after the restore", got)
	}
	if got := st2.Faults(session.All); len(got) != 1 || got[0].ID != f.ID || got[0].Name != f.Name {
		t.Errorf("faults after the restore: %+v, want %s kept with its id", got, f.ID)
	}
	if got := st2.SharedOverrides(); got.Strict == nil || !*got.Strict {
		t.Errorf("overrides after the restore: %+v", got)
	}
	for _, tc := range []struct {
		now  time.Time
		want time.Time
	}{
		{anchor.Add(shop.MaxGap), anchor.UTC()},
		{anchor.Add(shop.MaxGap + time.Second), time.Time{}},
		{anchor.Add(-time.Second), time.Time{}},
	} {
		if got := d2.Anchor(tc.now); !got.Equal(tc.want) {
			t.Errorf("Anchor(%s) = %s, want %s", tc.now, got, tc.want)
		}
	}
}

// Files that do not load are set aside in rejected/, and the server's
// state stays as it was; the rest load.
func TestRestoreSetsAside(t *testing.T) {
	c := &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	k := server(t, c)
	sign(t, k, "good", "kept")
	dir := t.TempDir()
	d := openDir(t, dir)
	if err := d.Save(context.Background(), k, c.now()); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(filepath.Join(dir, "sessions", "good.json"))
	for name, data := range map[string]string{
		"sessions/garbage.json": "{not json",
		"sessions/other.json":   string(good), // session "good" under another's name
		"server.json":           `{"format":"replymock-server-state/1","scenario":"no-such"}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	again := server(t, c)
	d2 := openDir(t, dir)
	if n := d2.Restore(again); n != 1 {
		t.Errorf("restored %d sessions, want the good one", n)
	}
	if got, want := taken(t, again, "good"), taken(t, k, "good"); got != want {
		t.Errorf("the good session:\n got %.300s\nwant %.300s", got, want)
	}
	if got := again.State().Registry().Default().Name; got != "default" {
		t.Errorf("a server state that did not load changed the scenario to %q", got)
	}
	rejected, _ := os.ReadDir(filepath.Join(dir, "rejected"))
	if len(rejected) != 3 {
		t.Errorf("rejected/ holds %d files, want 3: %v", len(rejected), rejected)
	}
	for _, name := range []string{"sessions/garbage.json", "sessions/other.json", "server.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("%s is still in place: %v", name, err)
		}
	}
}
