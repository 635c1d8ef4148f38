package statedir

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/replymock/replymock/mock/internal/atomicfile"
	"github.com/replymock/replymock/mock/internal/session"
	"github.com/replymock/replymock/mock/internal/shared"
	"github.com/replymock/replymock/mock/internal/snapshot"
	"github.com/replymock/replymock/mock/internal/wire"
)

// Keep makes the folder what k's state keeps every change in
// (shared.SetKeeper): a write's answer waits until its change is in the
// folder, so that it outlives the process, SIGKILL included. The server's
// state and the sessions whose files do not hold them as they are are
// written at the next keeping. Only the first call counts: call it after
// Restore and before serving.
func (d *Dir) Keep(k *snapshot.Keeper, anchor time.Time) {
	d.once.Do(func() {
		st := k.State()
		st.SetKeeper(func(_ context.Context, ids []string, server bool) error {
			return d.keep(k, anchor, ids, server)
		})
		d.mu.Lock()
		ids := d.partial
		d.partial = nil
		for _, ss := range st.Sessions().List(session.All) {
			if _, ok := d.written[sessionFile(ss.ID())]; !ok {
				ids = append(ids, ss.ID()) // made before the folder kept it
			}
		}
		d.mu.Unlock()
		st.MarkChanged(true, ids...)
	})
}

// keep writes what changed: the server's state, if server, and each
// session of ids as it is now (its file removed if it is gone).
func (d *Dir) keep(k *snapshot.Keeper, anchor time.Time, ids []string, server bool) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	unkept := &shared.Unkept{Sessions: make(map[string]error)}
	if server {
		if err := d.saveServer(k, anchor); err != nil {
			unkept.Server = refusal(err)
			d.rollbackServer(k)
		}
	}
	for _, id := range ids {
		name := sessionFile(id)
		var err error
		if _, ok := k.State().Sessions().Find(id); !ok {
			err = d.removeSession(name)
		} else {
			err = d.saveSession(k, id, name)
		}
		if err != nil {
			unkept.Sessions[id] = refusal(err)
			d.rollback(k, id, name)
		}
	}
	// The renames are in the folders for good only once the folders
	// are synced: one sync a keeping, for every file it wrote.
	if err := errors.Join(atomicfile.SyncDir(d.dir), atomicfile.SyncDir(filepath.Join(d.dir, sessionsDir))); err != nil {
		if unkept.Server == nil && server {
			unkept.Server = err
		}
		for _, id := range ids {
			if unkept.Sessions[id] == nil {
				unkept.Sessions[id] = err
			}
		}
	}
	if unkept.Server == nil && len(unkept.Sessions) == 0 {
		return nil
	}
	return unkept // one session's file not written fails its writes only
}

// errFull is why a write is refused when the folder may hold no more.
var errFull = errors.New("the state folder is full")

// refusal is the answer to a write whose session the folder did not
// keep: a 503 store_unavailable, as a fleet's full store answers, for
// the session is as it was.
func refusal(err error) error {
	why := "the state folder could not keep the change (" + wire.Clip(err.Error()) + ")"
	if errors.Is(err, errFull) || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		why = "the state folder is full (" + wire.Clip(err.Error()) + ")"
	}
	return &wire.APIError{Status: http.StatusServiceUnavailable, Code: wire.CodeStoreUnavailable, RetryAfter: time.Second,
		Message: why + ": nothing changed; send it again once there is room"}
}

// rollback makes session id what its file keeps again, or drops it when
// it has none, after a write the folder did not keep: what is served is
// what a restart would serve, a fault's count included. The caller
// holds d.mu.
func (d *Dir) rollback(k *snapshot.Keeper, id, name string) {
	if _, ok := d.written[name]; !ok {
		k.State().Sessions().Drop(id)
		return
	}
	snap, _, err := d.readSession(name)
	if err == nil {
		_, err = k.Restore(id, snap)
	}
	if err != nil {
		d.log.Error("state: a session the folder did not keep could not be brought back as it kept it", "session", id, "err", err)
	}
}

// Save keeps every change not yet kept (calling Keep first), writes the
// server's state if it differs from the file's, and removes the files of
// sessions gone without a change kept (expired): a periodic save, and
// the last one at shutdown.
func (d *Dir) Save(ctx context.Context, k *snapshot.Keeper, anchor time.Time) error {
	d.Keep(k, anchor)
	errs := []error{k.State().Sync(ctx)}
	d.mu.Lock()
	defer d.mu.Unlock()
	errs = append(errs, d.saveServer(k, anchor))
	ids, _ := k.State().Sessions().Used(time.Time{})
	keep := make(map[string]bool, len(ids))
	for _, id := range ids {
		keep[sessionFile(id)] = true
	}
	for name := range d.written {
		if !keep[name] {
			errs = append(errs, d.removeSession(name))
		}
	}
	return errors.Join(errs...)
}

// saveServer writes server.json, unless it holds the server's state
// already.
func (d *Dir) saveServer(k *snapshot.Keeper, anchor time.Time) error {
	st := TakeServer(k.State(), anchor)
	server, err := json.MarshalIndent(st, "", "  ")
	if err == nil {
		err = writeIfChanged(filepath.Join(d.dir, serverFile), server)
	}
	if err == nil {
		d.server = st
	}
	return err
}

// rollbackServer makes the server's own state what server.json holds
// again, after a change the folder did not keep: a restart would serve
// that. With nothing kept yet, the state stays. The caller holds d.mu.
func (d *Dir) rollbackServer(k *snapshot.Keeper) {
	if d.server.Format == "" {
		return
	}
	if err := RestoreServer(k.State(), d.server); err != nil {
		d.log.Error("state: the server's state the folder did not keep could not be brought back as it kept it", "err", err)
	}
}

// removeSession removes the file name from sessions/, and its log.
func (d *Dir) removeSession(name string) error {
	prev := d.written[name]
	if err := os.Remove(filepath.Join(d.dir, sessionsDir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if prev.log != nil {
		if err := os.Remove(filepath.Join(d.dir, sessionsDir, logName(name, prev.log.gen))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			d.log.Warn("state: a session's log could not be removed", "file", logName(name, prev.log.gen), "err", err)
		}
	}
	d.used -= prev.size
	d.hold(prev.log, nil, nil)
	delete(d.written, name)
	return nil
}

// saveSession keeps session id in its head, the file name in sessions/,
// and its log (parts.go), unless they hold it already. Files set aside go
// to make room for it (fitLocked); one that would not fit is not written.
func (d *Dir) saveSession(k *snapshot.Keeper, id, name string) error {
	snap, err := k.TakeOwn(id)
	if err != nil {
		return err
	}
	parts := takeParts(snap)
	sum, err := snap.Sum() // of the head: the parts are diffed below
	if err != nil {
		return err
	}
	prev, ok := d.written[name]
	splices, hashes := diffParts(prev.log, parts)
	if ok && prev.sum == sum && len(splices) == 0 {
		return nil
	}
	// An append goes once at most: the log is written anew instead
	// when the append would pass the budget (the dead bytes of its log
	// go before other sessions' files do) or fails (the log gone, say).
	w := d.plan(name, prev.log, parts, splices, hashes)
	for {
		hd, err := headOf(snap, w.next)
		if err != nil {
			return err
		}
		size := int64(len(hd)) + w.next.sizeOnDisk()
		if w.appending && d.used+size-prev.size > d.max {
			w = d.planAnew(name, prev.log, parts, hashes)
			continue
		}
		if !d.fitLocked(size - prev.size) {
			return fmt.Errorf("%w: the session would take %d bytes, the folder holds %d of %d (--max-state-disk)",
				errFull, size, d.used-prev.size, d.max)
		}
		if err := w.write(); err != nil {
			if !w.appending {
				return err
			}
			w = d.planAnew(name, prev.log, parts, hashes)
			continue
		}
		if err := atomicfile.WriteFile(filepath.Join(d.dir, sessionsDir, name), hd, 0o600); err != nil {
			return err
		}
		w.done(d)
		d.hold(prev.log, w.next, parts)
		d.used += size - prev.size
		d.written[name] = kept{sum: sum, size: size, log: w.next}
		return nil
	}
}

// headOf is the head of snap (its lists taken out) with the log l.
func headOf(snap *snapshot.Snapshot, l *partsLog) ([]byte, error) {
	body, err := json.Marshal(snap)
	if err != nil {
		return nil, err
	}
	h := head{Format: headFormat, Snapshot: body}
	if l != nil {
		h.LogGen, h.LogEnd = l.gen, l.end
	}
	return json.Marshal(h)
}

// writeIfChanged writes data to path unless the file holds it already.
func writeIfChanged(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && string(old) == string(data) {
		return nil
	}
	return atomicfile.WriteFile(path, data, 0o600)
}
