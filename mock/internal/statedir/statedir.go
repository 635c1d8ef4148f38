// Package statedir keeps a server's state in a folder (--state-dir).
//
// A restarted or redeployed demo comes back as it was: server.json
// holds the server's own state (ServerState), sessions/ each session's
// snapshot, taken and restored through a snapshot.Keeper. A file that
// does not read is set aside in rejected/, never loaded in part, never
// fatal. What sessions/ and rejected/ hold together stays within a
// budget (budget.go); server.json always fits.
//
// A session's file is a small head, written whole and renamed into
// place, beside a log of its lists of reviews (parts.go) to which a
// write appends what changed. It buys a PATCH of a session whose living
// shop is at its bound (a 22 MB snapshot) 6-22 ms against 250-315 ms
// with the snapshot written whole, and of one whose shop is a day old
// (0.8 MB) 5-13 ms against 26-45 ms; a session of a few kilobytes costs
// the same either way (BenchmarkKeepPatch and mock's
// BenchmarkPatchSettingsLivingShop, on the disk and synced, on a busy
// 2-core machine).
package statedir

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/replymock/replymock/mock/internal/atomicfile"
	"github.com/replymock/replymock/mock/internal/shop"
	"github.com/replymock/replymock/mock/internal/snapshot"
	"github.com/replymock/replymock/mock/internal/wire"
)

// Dir is a state folder. Every head is written whole and renamed into
// place, and names the part of its log synced before it, so a crash at
// any moment leaves each session as it was or as it became.
type Dir struct {
	dir string
	log *slog.Logger

	mu       sync.Mutex      // one save at a time; guards the fields below
	max      int64           // what sessions/ and rejected/ may hold together (SetMax)
	used     int64           // what they hold
	written  map[string]kept // file name in sessions/ -> what it holds
	rejected []aside         // the files in rejected/, the oldest first
	once     sync.Once       // Keep, done by Save if not before
	partial  []string        // the sessions Restore brought back in part, for Keep to write again
	held     int64           // the bytes of lists held for their identity (hold)
	server   ServerState     // what server.json holds, as last read or written
}

// kept is what a session's file in sessions/ holds.
type kept struct {
	sum  [32]byte // its hash, without taken_at; zero for a file restored: its next write goes through
	size int64    // its head's and its log's
	log  *partsLog
}

// aside is a file set aside in rejected/.
type aside struct {
	name string
	size int64
}

// Names in a state folder.
const (
	serverFile  = "server.json"
	sessionsDir = "sessions"
	rejectedDir = "rejected"
	probeFile   = ".write-test" // written and removed by Open
)

// Open makes dir a state folder (creating it and its subfolders) and
// returns it; log says what it restores and sets aside.
func Open(dir string, log *slog.Logger) (*Dir, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	for _, d := range []string{dir, filepath.Join(dir, sessionsDir), filepath.Join(dir, rejectedDir)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("--state-dir: %w", err)
		}
	}
	// A folder it cannot write in would fail every write: refused at
	// start, as a bad flag is, rather than at the first write.
	for _, d := range []string{dir, filepath.Join(dir, sessionsDir)} {
		probe := filepath.Join(d, probeFile)
		if err := atomicfile.WriteFile(probe, nil, 0o600); err != nil {
			return nil, fmt.Errorf("--state-dir %s: the server cannot write in it: %w", dir, err)
		}
		os.Remove(probe)
	}
	d := &Dir{dir: dir, log: log, max: DefaultMaxBytes, written: make(map[string]kept)}
	rejected, _ := filesByAge(filepath.Join(dir, rejectedDir))
	for _, e := range rejected {
		d.rejected = append(d.rejected, aside{e.name, e.size})
		d.used += e.size
	}
	return d, nil
}

// Anchor is the present the saved server anchored its data to, when
// within shop.MaxGap of now, so that a server restarted soon serves the
// same data and living shops; otherwise zero.
func (d *Dir) Anchor(now time.Time) time.Time {
	st, err := d.readServer()
	if err != nil || st.DataAnchor.IsZero() || now.Sub(st.DataAnchor) > shop.MaxGap || st.DataAnchor.After(now) {
		return time.Time{}
	}
	return st.DataAnchor
}

// readServer reads server.json; a missing one is the zero state.
func (d *Dir) readServer() (ServerState, error) {
	var st ServerState
	data, err := readFile(filepath.Join(d.dir, serverFile))
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err == nil {
		err = wire.DecodeStrict(data, &st)
	}
	return st, err
}

// maxFile bounds a file read from a state folder.
const maxFile = snapshot.MaxBytes

// readFile reads a regular file of at most maxFile bytes.
func readFile(path string) ([]byte, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err == nil && len(data) > maxFile {
		err = fmt.Errorf("larger than %d MiB", maxFile>>20)
	}
	return data, err
}

// openRegular opens a regular file to read, not following a link: the
// folder's files are the server's own.
func openRegular(path string) (*os.File, error) {
	if fi, err := os.Lstat(path); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s)", fi.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = fmt.Errorf("not a regular file (%s)", fi.Mode().Type())
		}
		return nil, err
	}
	return f, nil
}

// Restore brings the saved state into k's: the server's own, then every
// session's. A file that does not read or restore is set aside and
// logged. It returns how many sessions came back.
func (d *Dir) Restore(k *snapshot.Keeper) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	if st, err := d.readServer(); err != nil {
		d.setAside(serverFile, err)
	} else if st.Format != "" {
		if err := RestoreServer(k.State(), st); err != nil {
			d.setAside(serverFile, err)
		} else {
			d.server = st
		}
	}
	dir := filepath.Join(d.dir, sessionsDir)
	files, err := filesByAge(dir)
	if err != nil {
		d.log.Warn("state: sessions not read", "dir", dir, "err", err)
		return 0
	}
	n := 0
	// The least recently written first: past the sessions' limit, the
	// most recent are those kept.
	logs := make(map[string]bool) // the logs in sessions/, those the heads name taken out
	var heads []entry
	for _, e := range files {
		switch name := e.name; {
		case strings.HasPrefix(name, "."):
			// A write cut short (the process killed mid-write) leaves its
			// temporary file; the file it was to replace is intact.
			os.Remove(filepath.Join(dir, name))
			d.log.Info("state: removed an unfinished write", "file", filepath.Join(sessionsDir, name))
		case strings.HasSuffix(name, ".log"):
			logs[name] = true
		default:
			heads = append(heads, e)
		}
	}
	for _, e := range heads {
		if lg, ok := d.restoreSession(k, e.name, e.size); ok {
			n++
			if lg != nil {
				delete(logs, logName(e.name, lg.gen))
			}
		}
	}
	for name := range logs { // a log no head names: an old one, or one a compaction cut short
		os.Remove(filepath.Join(dir, name))
	}
	if !d.fitLocked(0) { // answered writes all: none goes, new ones are refused
		d.log.Warn("state: the folder holds more than --max-state-disk; writes that would grow it are refused", "bytes", d.used, "max_bytes", d.max)
	}
	d.log.Info("state restored", "dir", d.dir, "sessions", n, "bytes", d.used, "max_bytes", d.max)
	return n
}

// restoreSession restores the session of the file name in sessions/ (a
// head with its log, or a whole snapshot), or sets the file aside. It
// reports whether the session came back, with its log.
func (d *Dir) restoreSession(k *snapshot.Keeper, name string, size int64) (*partsLog, bool) {
	snap, lg, err := d.readSession(name)
	if err == nil && sessionFile(snap.Session) != name {
		err = fmt.Errorf("the file of session %q is %s, not %s", snap.Session, sessionFile(snap.Session), name)
	}
	var res snapshot.Result
	if err == nil {
		res, err = k.Restore("", snap)
	}
	if err != nil {
		d.setAside(filepath.Join(sessionsDir, name), err)
		if lg != nil {
			d.setAside(filepath.Join(sessionsDir, logName(name, lg.gen)), err)
		}
		return nil, false
	}
	if len(res.Dropped) > 0 {
		d.log.Warn("state: session restored in part", "session", res.Session, "dropped", strings.Join(res.Dropped, "; "))
		d.partial = append(d.partial, res.Session) // written again as it is now, without what was dropped
	}
	size += lg.sizeOnDisk()
	d.written[name] = kept{size: size, log: lg} // a save writes its head again, as it is now
	d.used += size
	return lg, true
}

// readSession reads session file name: a head and the lists its log
// holds, or a whole snapshot.
func (d *Dir) readSession(name string) (*snapshot.Snapshot, *partsLog, error) {
	data, err := readFile(filepath.Join(d.dir, sessionsDir, name))
	if err != nil {
		return nil, nil, err
	}
	var probe struct{ Format string }
	if json.Unmarshal(data, &probe) != nil || probe.Format != headFormat {
		snap, err := snapshot.Decode(data)
		return snap, nil, err
	}
	var h head
	if err := wire.DecodeStrict(data, &h); err != nil {
		return nil, nil, err
	}
	snap, err := snapshot.Decode(h.Snapshot)
	if err != nil || h.LogGen == 0 {
		return snap, nil, err
	}
	lg := &partsLog{gen: h.LogGen}
	parts, err := readLog(filepath.Join(d.dir, sessionsDir, logName(name, h.LogGen)), h.LogEnd)
	if err != nil {
		return nil, lg, fmt.Errorf("its log %s: %w", logName(name, h.LogGen), err)
	}
	lg = logOf(h.LogGen, h.LogEnd, parts)
	if lg.live+int64(len(data)) > maxFile {
		return nil, lg, fmt.Errorf("its head and log hold more than a snapshot may (%d MiB)", maxFile>>20)
	}
	return snap, lg, putParts(snap, parts)
}

// setAside moves a file that did not load into rejected/, with the time
// in its name, and logs why.
func (d *Dir) setAside(name string, why error) {
	to := filepath.Join(rejectedDir, fmt.Sprintf("%s.%s", filepath.Base(name), time.Now().UTC().Format("20060102T150405.000000000Z")))
	fi, _ := os.Lstat(filepath.Join(d.dir, name))
	if err := os.Rename(filepath.Join(d.dir, name), filepath.Join(d.dir, to)); err != nil {
		d.log.Warn("state: a file did not load, nor could it be set aside", "file", name, "why", why.Error(), "err", err)
		return
	}
	if fi != nil && fi.Mode().IsRegular() {
		d.rejected = append(d.rejected, aside{filepath.Base(to), fi.Size()})
		d.used += fi.Size()
	}
	d.log.Warn("state: a file did not load; set aside", "file", name, "moved_to", to, "why", why.Error())
}

// sessionFile is the file name of a session: its id, with every byte
// but lower-case letters, digits, - and _ written %XX (ids differing in
// case differ on a file system that ignores it), or its SHA-256 for a
// name over 200 bytes.
func sessionFile(id string) string {
	var b strings.Builder
	for i := range len(id) {
		c := id[i]
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	if b.Len() > 200 {
		sum := sha256.Sum256([]byte(id))
		return fmt.Sprintf("sha256-%x.json", sum[:16])
	}
	return b.String() + ".json"
}
