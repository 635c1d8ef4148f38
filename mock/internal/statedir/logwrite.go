package statedir

import (
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/replymock/replymock/mock/internal/atomicfile"
)

// logWrite is how a keeping writes a session's log: records appended
// to the log it has, a log written anew (the next generation), or none
// for a session with no lists.
type logWrite struct {
	dir       string    // sessions/
	name      string    // the session's file
	prev      *partsLog // the log it had, nil for none
	next      *partsLog // the log it has once written, nil for none
	records   []byte
	appending bool // records go at prev's end; else they are the whole of next
}

// sizeOnDisk is what l takes in the folder; 0 for none.
func (l *partsLog) sizeOnDisk() int64 {
	if l == nil {
		return 0
	}
	return l.end
}

// liveOf is the bytes of parts' items.
func liveOf(parts map[string][]json.RawMessage) int64 {
	var n int64
	for _, items := range parts {
		for _, it := range items {
			n += int64(len(it))
		}
	}
	return n
}

// plan is how session file name's log goes from prev to hold parts
// (whose hashes are hashes), splices being what changed: appended, or
// written anew when there was none or it would grow past twice what it
// holds and a megabyte.
func (d *Dir) plan(name string, prev *partsLog, parts map[string][]json.RawMessage, splices []splice, hashes map[string][]uint64) logWrite {
	if prev != nil && len(parts) > 0 {
		w := logWrite{dir: filepath.Join(d.dir, sessionsDir), name: name, prev: prev, appending: true}
		for _, s := range splices {
			w.records = appendRecord(w.records, s)
		}
		live := liveOf(parts)
		if end := prev.end + int64(len(w.records)); end <= 2*live+1<<20 {
			w.next = &partsLog{gen: prev.gen, end: end, live: live, parts: hashes}
			return w
		}
	}
	return d.planAnew(name, prev, parts, hashes)
}

// planAnew is the log of parts written whole, the generation after prev's.
func (d *Dir) planAnew(name string, prev *partsLog, parts map[string][]json.RawMessage, hashes map[string][]uint64) logWrite {
	w := logWrite{dir: filepath.Join(d.dir, sessionsDir), name: name, prev: prev}
	if len(parts) == 0 {
		return w
	}
	for _, part := range slices.Sorted(maps.Keys(parts)) {
		w.records = appendRecord(w.records, splice{Part: part, Items: parts[part]})
	}
	gen := uint64(1)
	if prev != nil {
		gen = prev.gen + 1
	}
	w.next = &partsLog{gen: gen, end: int64(len(w.records)), live: liveOf(parts), parts: hashes}
	return w
}

// write writes the log, before the head that names it.
func (w *logWrite) write() error {
	switch {
	case w.next == nil:
		return nil
	case w.appending:
		if len(w.records) == 0 {
			return nil
		}
		return appendLog(filepath.Join(w.dir, logName(w.name, w.next.gen)), w.prev.end, w.records)
	}
	return atomicfile.WriteFile(filepath.Join(w.dir, logName(w.name, w.next.gen)), w.records, 0o600)
}

// done removes the log the head no longer names, once it does not.
func (w *logWrite) done(d *Dir) {
	if w.prev == nil || w.next != nil && w.next.gen == w.prev.gen {
		return
	}
	old := logName(w.name, w.prev.gen)
	// Not before the head that names the new log is in the folder for
	// good: a power cut would bring back the head that names this one.
	if err := atomicfile.SyncDir(w.dir); err != nil {
		d.log.Warn("state: a session's old log is kept: its folder could not be synced", "file", filepath.Join(sessionsDir, old), "err", err)
		return
	}
	if err := os.Remove(filepath.Join(w.dir, old)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		d.log.Warn("state: a session's old log could not be removed", "file", filepath.Join(sessionsDir, old), "err", err)
	}
}

// maxHeld bounds the bytes of the lists a folder holds on to for their
// identity (partsLog.items), all sessions together: past it, a list is
// hashed whole at each write. Holding them makes a PATCH of a shop at
// its bound 2-10 ms against 10-39 ms with every item hashed
// (BenchmarkKeepPatch/shop-bound/log).
const maxHeld = 64 << 20

// hold keeps next's lists, parts, for their identity, within maxHeld
// with prev's let go. A seed's are encoded anew at each write: not kept.
func (d *Dir) hold(prev, next *partsLog, parts map[string][]json.RawMessage) {
	if prev != nil {
		d.held -= prev.held
	}
	if next == nil {
		return
	}
	items := maps.Clone(parts)
	maps.DeleteFunc(items, func(name string, _ []json.RawMessage) bool { return strings.HasPrefix(name, partSeeded) })
	if n := liveOf(items); d.held+n <= maxHeld {
		next.items, next.held = items, n
		d.held += n
	}
}
