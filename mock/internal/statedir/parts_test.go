package statedir

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/session"
)

// The splices diffParts finds, written as records and read back, make
// the old lists into the new, whatever the edits: changes in place,
// insertions, deletions, appends, cuts, parts come and gone; and an
// append or a change costs a record of its own size.
func TestDiffPartsReplays(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	item := func(n int) json.RawMessage { return json.RawMessage(fmt.Sprintf(`{"id":%d}`, n)) }
	next := 0
	fresh := func() json.RawMessage { next++; return item(next) }
	lists := map[string][]json.RawMessage{}
	var log []byte
	var hashes map[string][]uint64
	var prevLists map[string][]json.RawMessage
	for round := range 300 {
		for _, part := range []string{"arrivals:a", "changed:a", "seeded:b"} {
			l := slices.Clone(lists[part])
			for range rng.IntN(4) {
				switch op := rng.IntN(6); {
				case op == 0 || len(l) == 0:
					l = append(l, fresh())
				case op == 1:
					l[rng.IntN(len(l))] = fresh()
				case op == 2:
					l = slices.Insert(l, rng.IntN(len(l)+1), fresh(), fresh())
				case op == 3:
					i := rng.IntN(len(l))
					l = slices.Delete(l, i, min(len(l), i+1+rng.IntN(3)))
				case op == 4 && round%50 == 0:
					l = nil
				}
			}
			if len(l) == 0 {
				delete(lists, part)
			} else {
				lists[part] = l
			}
		}
		splices, h := diffParts(&partsLog{parts: hashes, items: prevLists}, lists)
		prevLists = maps.Clone(lists) // items are never changed in place: their identity holds
		for _, s := range splices {
			log = appendRecord(log, s)
		}
		hashes = h
		path := filepath.Join(t.TempDir(), "x.log")
		os.WriteFile(path, append(log, "a torn tail"...), 0o600)
		got, err := readLog(path, int64(len(log)))
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(lists) {
			t.Fatalf("round %d: read back\n%s\nwant\n%s", round, got, lists)
		}
	}
	// An append costs the new item, a change in place the changed one.
	l := []json.RawMessage{item(1), item(2), item(3)}
	_, h := diffParts(nil, map[string][]json.RawMessage{"p": l})
	splices, _ := diffParts(&partsLog{parts: h, items: map[string][]json.RawMessage{"p": l}}, map[string][]json.RawMessage{"p": {l[0], item(20), l[2], item(4)}})
	if fmt.Sprint(splices) != fmt.Sprint([]splice{{Part: "p", At: 1, Del: 1, Items: []json.RawMessage{item(20)}}, {Part: "p", At: 3, Items: []json.RawMessage{item(4)}}}) {
		t.Errorf("a change and an append: %v", splices)
	}
}

// A log whose records within the head's end do not read (a flipped
// byte, a record cut short) is refused; bytes past the end are not
// read.
func TestReadLogRefusesWhatDoesNotRead(t *testing.T) {
	log := appendRecord(nil, splice{Part: "p", Items: []json.RawMessage{json.RawMessage(`{"id":1}`), json.RawMessage(`{"id":2}`)}})
	path := filepath.Join(t.TempDir(), "x.log")
	flipped := slices.Clone(log)
	flipped[len(flipped)-2] ^= 1
	for name, c := range map[string]struct {
		data []byte
		end  int64
	}{"flipped": {flipped, int64(len(log))}, "cut": {log[:len(log)-1], int64(len(log))}, "end in a record": {log, int64(len(log) - 3)}} {
		os.WriteFile(path, c.data, 0o600)
		if _, err := readLog(path, c.end); err == nil {
			t.Errorf("%s: read", name)
		}
	}
	os.WriteFile(path, append(slices.Clone(log), 0xff, 0xff), 0o600)
	if got, err := readLog(path, int64(len(log))); err != nil || len(got["p"]) != 2 {
		t.Errorf("with bytes past the end: %v %v", got, err)
	}
}

// A session's living shop kept as it goes on: each keeping appends to
// its log what arrived (a few kilobytes, not the whole shop), its head
// stays small; the log is written anew once grown past twice what it
// holds; a keeping cut short leaves bytes past the head's end, which a
// restart drops; what comes back is the session as it was.
func TestLogKeepsWhatChanged(t *testing.T) {
	start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	c := &clock{t: start}
	k := server(t, c)
	dir := t.TempDir()
	d := openDir(t, dir)
	if err := k.State().SetScenario("shop", "demo"); err != nil {
		t.Fatal(err)
	}
	sign(t, k, "shop", "own") // its own shop
	for range 12 {            // ten hours of arrivals, the session used within its TTL
		c.add(50 * time.Minute)
		sign(t, k, "shop", "own")
	}
	save(t, d, k, c)
	files := func() (headSize, logSize int64, logs []string) {
		des, _ := os.ReadDir(filepath.Join(dir, sessionsDir))
		for _, de := range des {
			fi, _ := de.Info()
			switch {
			case de.Name() == "shop.json":
				headSize = fi.Size()
			case strings.HasPrefix(de.Name(), "shop.") && strings.HasSuffix(de.Name(), ".log"):
				logSize += fi.Size()
				logs = append(logs, de.Name())
			}
		}
		return
	}
	head0, log0, logs := files()
	if !slices.Equal(logs, []string{"shop.1.log"}) || head0 > 16<<10 || log0 < 200<<10 {
		t.Fatalf("a day of arrivals: head %d bytes, logs %v of %d bytes", head0, logs, log0)
	}
	c.add(50 * time.Minute) // 25 arrivals
	sign(t, k, "shop", "an hour on")
	if err := k.State().SyncWrite(context.Background(), "shop"); err != nil {
		t.Fatal(err)
	}
	_, log1, _ := files()
	if grown := log1 - log0; grown <= 0 || grown > 64<<10 {
		t.Errorf("an hour's arrivals grew the log by %d bytes, want the new reviews' few kilobytes", grown)
	}
	// A keeping cut short: records appended past the head's end.
	f, _ := os.OpenFile(filepath.Join(dir, sessionsDir, "shop.1.log"), os.O_WRONLY|os.O_APPEND, 0)
	f.Write(appendRecord(nil, splice{Part: "arrivals:demo", Del: 5}))
	f.Close()
	want := taken(t, k, "shop")
	again := anchoredServer(t, c, start)
	d2 := openDir(t, dir)
	if n := d2.Restore(again); n != 1 {
		t.Fatalf("restored %d sessions", n)
	}
	if got := taken(t, again, "shop"); got != want {
		t.Errorf("restored:\n got %.300s\nwant %.300s", got, want)
	}
	// Seeded reviews replaced again and again: past twice what it holds
	// and a megabyte, the log is written anew and the old one goes.
	ss, sc, err := again.State().Resolve("shop", "default")
	if err != nil {
		t.Fatal(err)
	}
	var prev *session.Seed
	for round := range 20 {
		var fbs []reviews.Feedback
		for i := range 200 {
			fbs = append(fbs, reviews.Feedback{ID: int64(900000 + i), Text: fmt.Sprintf("review %d of round %d ", i, round) + strings.Repeat("x", 1000),
				ProductValuation: 5, CreatedDate: "2026-11-01 10:00:00", UserName: "Anna"})
		}
		own, err := reviews.NewNumbered(fbs)
		if err != nil {
			t.Fatal(err)
		}
		next := session.NewSeed(false, own)
		if kept, err := ss.KeepSeed(sc.Name, prev, next, func(int) error { return nil }); !kept || err != nil {
			t.Fatalf("seeding: %v, %v", kept, err)
		}
		prev = next
		save(t, d2, again, c)
	}
	if _, _, logs := files(); len(logs) != 1 || logs[0] == "shop.1.log" {
		t.Errorf("after the seeds, the logs are %v, want one written anew", logs)
	}
	want = taken(t, again, "shop")
	third := anchoredServer(t, c, start)
	d3 := openDir(t, dir)
	if n := d3.Restore(third); n != 1 {
		t.Fatalf("restored %d sessions", n)
	}
	if got := taken(t, third, "shop"); got != want {
		t.Errorf("restored after the log was written anew:\n got %.300s\nwant %.300s", got, want)
	}
	// A byte flipped within the log: the session does not load; its head
	// and its log are set aside together.
	_, _, logs = files()
	path := filepath.Join(dir, sessionsDir, logs[0])
	data, _ := os.ReadFile(path)
	data[len(data)/2] ^= 0x20
	os.WriteFile(path, data, 0o600)
	d4 := openDir(t, dir)
	if n := d4.Restore(anchoredServer(t, c, start)); n != 0 {
		t.Errorf("restored %d sessions from a log with a byte flipped", n)
	}
	if rejected, _ := os.ReadDir(filepath.Join(dir, rejectedDir)); len(rejected) != 2 {
		t.Errorf("set aside: %v, want the head and its log", rejected)
	}
}

// A session whose log is gone (removed by hand, say) is written anew,
// log and all, at its next keeping: its writes do not fail for good,
// and what comes back is the session as it was answered.
func TestLogGoneIsWrittenAnew(t *testing.T) {
	start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	c := &clock{t: start}
	k := server(t, c)
	dir := t.TempDir()
	d := openDir(t, dir)
	if err := k.State().SetScenario("shop", "demo"); err != nil {
		t.Fatal(err)
	}
	sign(t, k, "shop", "own")
	c.add(50 * time.Minute) // arrivals: a log to append to
	sign(t, k, "shop", "first")
	save(t, d, k, c)
	if err := os.Remove(filepath.Join(dir, sessionsDir, "shop.1.log")); err != nil {
		t.Fatal(err)
	}
	c.add(50 * time.Minute)
	sign(t, k, "shop", "after the log went")
	if err := k.State().SyncWrite(context.Background(), "shop"); err != nil {
		t.Fatalf("a write with its log gone: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, sessionsDir, "shop.2.log")); err != nil {
		t.Errorf("the log written anew: %v", err)
	}
	want := taken(t, k, "shop")
	again := anchoredServer(t, c, start)
	d2 := openDir(t, dir)
	if n := d2.Restore(again); n != 1 {
		t.Fatalf("restored %d sessions", n)
	}
	if got := taken(t, again, "shop"); got != want {
		t.Errorf("restored:\n got %.300s\nwant %.300s", got, want)
	}
}

// A session whose append would pass the folder's budget while its log
// written anew fits is written anew, and its head names that log: what
// comes back after a restart is the session as it was answered.
func TestAppendPastBudgetIsWrittenAnew(t *testing.T) {
	start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	c := &clock{t: start}
	k := server(t, c)
	dir := t.TempDir()
	d := openDir(t, dir)
	if err := k.State().SetScenario("shop", "demo"); err != nil {
		t.Fatal(err)
	}
	sign(t, k, "shop", "own")
	c.add(50 * time.Minute) // arrivals: a log to append to
	sign(t, k, "shop", "first")
	save(t, d, k, c)
	c.add(50 * time.Minute)
	sign(t, k, "shop", "an hour on")
	// The budget: room for the log written anew, not for the append.
	d.mu.Lock()
	snap, err := k.TakeOwn("shop")
	if err != nil {
		t.Fatal(err)
	}
	parts := takeParts(snap)
	prev := d.written["shop.json"]
	splices, hashes := diffParts(prev.log, parts)
	size := func(w logWrite) int64 {
		hd, err := headOf(snap, w.next)
		if err != nil {
			t.Fatal(err)
		}
		return int64(len(hd)) + w.next.sizeOnDisk()
	}
	appended := d.plan("shop.json", prev.log, parts, splices, hashes)
	anew := size(d.planAnew("shop.json", prev.log, parts, hashes))
	if !appended.appending || size(appended) <= anew {
		t.Fatalf("want an append bigger than the log written anew: append %v of %d bytes, anew %d", appended.appending, size(appended), anew)
	}
	d.max = d.used - prev.size + anew
	d.mu.Unlock()
	if err := k.State().SyncWrite(context.Background(), "shop"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, sessionsDir, "shop.2.log")); err != nil {
		t.Errorf("the log written anew: %v", err)
	}
	want := taken(t, k, "shop")
	again := anchoredServer(t, c, start)
	if n := openDir(t, dir).Restore(again); n != 1 {
		t.Fatalf("restored %d sessions", n)
	}
	if got := taken(t, again, "shop"); got != want {
		t.Errorf("restored:\n got %.300s\nwant %.300s", got, want)
	}
}
