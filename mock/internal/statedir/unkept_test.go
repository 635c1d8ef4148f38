package statedir

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/replymock/replymock/mock/internal/fault"
	"github.com/replymock/replymock/mock/internal/session"
	"github.com/replymock/replymock/mock/internal/snapshot"
	"github.com/replymock/replymock/mock/internal/wire"
)

// keptServer is a server whose state a new folder keeps, all of it
// kept already, with its clock and the folder.
func keptServer(t *testing.T) (*clock, *snapshot.Keeper, string) {
	t.Helper()
	c := &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	k := server(t, c)
	dir := t.TempDir()
	openDir(t, dir).Keep(k, c.now())
	if err := k.State().Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	return c, k, dir
}

// A session whose file cannot be written fails its own writes, not
// those of other sessions kept with it, and is as the folder keeps it
// (a new session: gone). Its file's path is a folder
// with a file in it: no write renames over that, root's neither.
func TestOneUnwritableSessionFailsItsOwnWrites(t *testing.T) {
	c, k, dir := keptServer(t)
	st := k.State()
	blocker := filepath.Join(dir, sessionsDir, sessionFile("bad"))
	if err := os.MkdirAll(filepath.Join(blocker, "in-the-way"), 0o700); err != nil {
		t.Fatal(err)
	}
	sign(t, k, "bad", "b1")
	sign(t, k, "good", "g1") // kept in the same keeping as bad's
	if err := st.SyncWrite(context.Background(), "good"); err != nil {
		t.Errorf("good, kept beside bad: %v", err)
	}
	if err := st.SyncWrite(context.Background(), "bad"); err == nil || !strings.Contains(err.Error(), "bad") {
		t.Errorf("bad, not kept: %v", err)
	}
	if _, ok := st.Sessions().Find("bad"); ok {
		t.Error("bad, new and not kept, still lives in memory")
	}
	sign(t, k, "bad", "b1") // made again, and refused again
	sign(t, k, "good", "g2")
	if err := st.SyncWrite(context.Background(), "good"); err != nil {
		t.Errorf("good again, with bad still not kept: %v", err)
	}
	if err := st.SyncWrite(context.Background()); err == nil {
		t.Error("a write of every session answered, though bad is not kept")
	}
	if _, ok := st.Sessions().Find("bad"); ok {
		t.Error("bad, refused again, still lives in memory")
	}
	sign(t, k, "bad", "b1")
	if _, err := os.Stat(filepath.Join(dir, sessionsDir, sessionFile("good"))); err != nil {
		t.Errorf("good's file: %v", err)
	}
	if err := os.RemoveAll(blocker); err != nil {
		t.Fatal(err)
	}
	// With nothing changed since, a Sync (the last save's, say) tries
	// bad again, and keeps it now.
	if err := st.Sync(context.Background()); err != nil {
		t.Errorf("with the way clear, bad kept by the next Sync: %v", err)
	}
	sign(t, k, "other", "o1")
	if err := st.SyncWrite(context.Background()); err != nil {
		t.Errorf("with the way clear, every session kept: %v", err)
	}
	again := server(t, c)
	d2 := openDir(t, dir)
	if n := d2.Restore(again); n != 3 {
		t.Errorf("restored %d sessions, want bad, good and other", n)
	}
	for sid, want := range map[string]string{"bad": "b1", "good": "g2"} {
		if got := taken(t, again, sid); !strings.Contains(got, `"signature":"`+want+`"`) {
			t.Errorf("session %s restored without its signature %s: %.200s", sid, want, got)
		}
	}
}

// A write the folder refuses names why: a full disk or quota, or
// --max-state-disk, as full; any other failure as not kept. Each is a
// 503 store_unavailable with Retry-After that says nothing changed.
func TestRefusalSaysWhy(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&os.PathError{Op: "write", Path: "s.json", Err: syscall.ENOSPC}, "the state folder is full"},
		{&os.PathError{Op: "write", Path: "s.json", Err: syscall.EDQUOT}, "the state folder is full"},
		{fmt.Errorf("%w: over", errFull), "the state folder is full"},
		{&os.PathError{Op: "open", Path: "s.json", Err: syscall.EACCES}, "could not keep the change"},
	} {
		var e *wire.APIError
		if !errors.As(refusal(tc.err), &e) || e.Status != http.StatusServiceUnavailable || e.Code != wire.CodeStoreUnavailable ||
			e.RetryAfter <= 0 || !strings.Contains(e.Message, tc.want) || !strings.Contains(e.Message, "nothing changed") {
			t.Errorf("refusal(%v) = %#v, want 503 store_unavailable saying %q", tc.err, e, tc.want)
		}
	}
}

// A folder the server cannot write in is refused by Open, naming it,
// rather than failing the first write: a read-only folder (not as root,
// who writes anyway) and, as root too, a folder in the way of the file
// Open writes to find out.
func TestOpenRefusesAFolderItCannotWriteIn(t *testing.T) {
	inTheWay := t.TempDir()
	if err := os.MkdirAll(filepath.Join(inTheWay, sessionsDir, probeFile, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	readOnly := t.TempDir()
	if err := os.Chmod(readOnly, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(readOnly, 0o700) })
	for name, dir := range map[string]string{"in the way": inTheWay, "read-only": readOnly} {
		if name == "read-only" && os.Geteuid() == 0 {
			t.Log("read-only: not tried as root, who writes in a folder of mode 0500; the case in the way covers root")
			continue
		}
		if _, err := Open(dir, nil); err == nil || !strings.Contains(err.Error(), "cannot write in it") || !strings.Contains(err.Error(), dir) {
			t.Errorf("%s: Open: %v, want an error naming the folder", name, err)
		}
	}
	if _, err := Open(t.TempDir(), nil); err != nil {
		t.Errorf("a writable folder: %v", err)
	}
}

// A server-wide change the folder cannot keep (server.json's path is a
// folder with a file in it) is refused with a 503 and undone: the
// scenario and the faults are what server.json holds, as a restart would
// serve them. Once the way is clear, the same change is kept.
func TestUnkeptServerChangeIsUndone(t *testing.T) {
	c, k, dir := keptServer(t)
	st := k.State()
	path := filepath.Join(dir, serverFile)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(path, "in-the-way"), 0o700); err != nil {
		t.Fatal(err)
	}
	refused := func(what string) {
		t.Helper()
		var e *wire.APIError
		err := st.SyncWrite(context.Background())
		if !errors.As(err, &e) || e.Status != http.StatusServiceUnavailable || e.Code != wire.CodeStoreUnavailable {
			t.Errorf("%s, not kept: %v, want 503 store_unavailable", what, err)
		}
	}

	if err := st.SetScenario(session.All, "en-shop"); err != nil {
		t.Fatal(err)
	}
	refused("a scenario switch")
	if got := st.Registry().Default().Name; got != "default" {
		t.Errorf("after a refused switch the scenario is %q, want default", got)
	}
	if _, _, err := st.PutFault(session.All, fault.Fault{Error: &fault.ErrorAnswer{Status: 503}}, false); err != nil {
		t.Fatal(err)
	}
	refused("a fault for every session")
	if got := st.Faults(session.All); len(got) != 0 {
		t.Errorf("after a refused fault, the server holds %v", got)
	}

	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
	if err := st.SetScenario(session.All, "en-shop"); err != nil {
		t.Fatal(err)
	}
	if err := st.SyncWrite(context.Background()); err != nil {
		t.Errorf("with the way clear, the switch: %v", err)
	}
	again := server(t, c)
	openDir(t, dir).Restore(again)
	if got := again.State().Registry().Default().Name; got != "en-shop" {
		t.Errorf("restarted on %q, want the switch kept, en-shop", got)
	}
}
