package statedir

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/google/renameio/v2"
	"github.com/replymock/replymock/mock/internal/snapshot"
)

// Save writes what changed since the last save: the server's state (its
// data anchored to the present anchor) and the snapshot of every session
// used since (a session not yet written too), and removes the files of
// sessions that are gone (reset, expired, evicted). Every file is
// written whole, then renamed into place.
func (d *Dir) Save(k *snapshot.Keeper, anchor time.Time) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	started := k.Now()
	var errs []error
	server, err := json.MarshalIndent(serverState(k.State(), anchor), "", "  ")
	if err == nil {
		err = writeIfChanged(filepath.Join(d.dir, serverFile), server)
	}
	errs = append(errs, err)
	ids, used := k.State().Sessions().Used(d.saved)
	keep := make(map[string]bool, len(ids))
	for _, id := range ids {
		name := sessionFile(id)
		keep[name] = true
		if _, ok := d.written[name]; ok && !used[id] {
			continue
		}
		if err := d.saveSession(k, id, name); err != nil {
			errs = append(errs, err)
		}
	}
	for name := range d.written {
		if !keep[name] {
			if err := os.Remove(filepath.Join(d.dir, sessionsDir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
				continue
			}
			delete(d.written, name)
		}
	}
	d.saved = started
	return errors.Join(errs...)
}

// saveSession writes session id's snapshot to the file name in
// sessions/, unless the file holds it already (but for when it was
// taken).
func (d *Dir) saveSession(k *snapshot.Keeper, id, name string) error {
	snap, err := k.Take(id)
	if err != nil {
		return err
	}
	taken := snap.TakenAt
	snap.TakenAt = time.Time{}
	body, err := json.Marshal(snap)
	if err != nil {
		return err
	}
	sum := sha256.Sum256(body)
	if prev, ok := d.written[name]; ok && prev == sum {
		return nil
	}
	snap.TakenAt = taken
	if body, err = json.Marshal(snap); err == nil {
		err = renameio.WriteFile(filepath.Join(d.dir, sessionsDir, name), body, 0o600)
	}
	if err != nil {
		return err
	}
	d.written[name] = sum
	return nil
}

// writeIfChanged writes data to path, whole and renamed into place,
// unless the file holds it already.
func writeIfChanged(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && string(old) == string(data) {
		return nil
	}
	return renameio.WriteFile(path, data, 0o600)
}
