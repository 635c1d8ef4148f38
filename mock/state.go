package mock

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

	"github.com/google/renameio/v2"
	"github.com/replymock/replymock/mock/internal/shop"
	"github.com/replymock/replymock/mock/internal/snapshot"
	"github.com/replymock/replymock/mock/internal/wire"
)

// ServerStateFormat names the server's own state file in a state folder.
const ServerStateFormat = "replymock-server-state/1"

// ServerState is what belongs to the server rather than to a session:
// the active scenario, the run-time faults and overrides for every
// session, and the present that data anchored to now was anchored to.
type ServerState struct {
	Format     string     `json:"format"`
	Scenario   string     `json:"scenario"`
	DataAnchor time.Time  `json:"data_anchor"`
	Faults     []Fault    `json:"faults,omitempty"`
	Overrides  *Overrides `json:"overrides,omitempty"`
}

// serverState is the server's state now.
func (s *Server) serverState() ServerState {
	global, o := s.st.FaultRegistry().Shared(), s.st.SharedOverrides()
	st := ServerState{Format: ServerStateFormat, Scenario: s.Scenario().Name, DataAnchor: s.anchor.UTC()}
	for _, f := range global {
		st.Faults = append(st.Faults, *f)
	}
	if o != (Overrides{}) {
		st.Overrides = &o
	}
	return st
}

// restoreServerState makes the server's own state what st says, keeping
// the faults' ids. A problem changes nothing.
func (s *Server) restoreServerState(st ServerState) error {
	if st.Format != ServerStateFormat {
		return wire.InvalidBody("format", "must be %q, got %q", ServerStateFormat, clip(st.Format))
	}
	faults, err := s.st.FaultRegistry().ReadBack("faults", st.Faults)
	if err != nil {
		return err
	}
	o := Overrides{}
	if st.Overrides != nil {
		if err := st.Overrides.Validate(); err != nil {
			return snapshot.PrefixField(err, "overrides")
		}
		o = *st.Overrides
	}
	if st.Scenario != "" && st.Scenario != s.Scenario().Name {
		if err := s.SetScenario(AllSessions, st.Scenario); err != nil {
			return snapshot.PrefixField(err, "scenario")
		}
	}
	s.st.SetShared(faults, o)
	return nil
}

// StateDir keeps a server's state in a folder (--state-dir), so that a
// restarted or redeployed demo comes back as it was: server.json holds
// the server's own state, sessions/ a snapshot of each session. Every
// file is written whole and renamed into place, so a crash at any moment
// leaves each file as it was or as it became; a file that does not read
// (corrupt, foreign, of another version) is set aside in rejected/ with
// a log line, never loaded in part, never fatal.
type StateDir struct {
	dir string
	log *slog.Logger

	mu      sync.Mutex          // one save at a time
	written map[string][32]byte // file name in sessions/ -> what it holds (its hash, without taken_at)
	saved   time.Time           // when the last save began
}

// Names in a state folder.
const (
	stateServerFile  = "server.json"
	stateSessionsDir = "sessions"
	stateRejectedDir = "rejected"
)

// OpenStateDir makes dir a state folder (creating it and its subfolders)
// and returns it; log says what it restores and sets aside.
func OpenStateDir(dir string, log *slog.Logger) (*StateDir, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	for _, d := range []string{dir, filepath.Join(dir, stateSessionsDir), filepath.Join(dir, stateRejectedDir)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("--state-dir: %w", err)
		}
	}
	return &StateDir{dir: dir, log: log, written: make(map[string][32]byte)}, nil
}

// Anchor is the present the saved server anchored its data to, when it is
// within shop.MaxGap of now: a server restarted soon serves the same data,
// so that its sessions' living shops come back as they were. Otherwise
// zero: the data anchors to now again, and living shops start afresh.
func (d *StateDir) Anchor(now time.Time) time.Time {
	st, err := d.readServer()
	if err != nil || st.DataAnchor.IsZero() || now.Sub(st.DataAnchor) > shop.MaxGap || st.DataAnchor.After(now) {
		return time.Time{}
	}
	return st.DataAnchor
}

// readServer reads server.json; a missing one is the zero state.
func (d *StateDir) readServer() (ServerState, error) {
	var st ServerState
	data, err := readStateFile(filepath.Join(d.dir, stateServerFile))
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err == nil {
		err = wire.DecodeStrict(data, &st)
	}
	return st, err
}

// maxStateFile bounds a file read from a state folder.
const maxStateFile = MaxSnapshotBytes

// readStateFile reads a regular file of at most maxStateFile bytes.
func readStateFile(path string) ([]byte, error) {
	// A link is not followed: the folder's files are the server's own.
	if fi, err := os.Lstat(path); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s)", fi.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s)", fi.Mode().Type())
	}
	data, err := io.ReadAll(io.LimitReader(f, maxStateFile+1))
	if err == nil && len(data) > maxStateFile {
		err = fmt.Errorf("larger than %d MiB", maxStateFile>>20)
	}
	return data, err
}

// Restore brings the saved state into s: the server's own, then every
// session's. A file that does not read is set aside and logged; so is
// one whose session would not restore. It returns how many sessions
// came back.
func (d *StateDir) Restore(s *Server) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	if st, err := d.readServer(); err != nil {
		d.setAside(stateServerFile, err)
	} else if st.Format != "" {
		if err := s.restoreServerState(st); err != nil {
			d.setAside(stateServerFile, err)
		}
	}
	dir := filepath.Join(d.dir, stateSessionsDir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		d.log.Warn("state: sessions not read", "dir", dir, "err", err)
		return 0
	}
	n := 0
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			// A write cut short (the process killed mid-write) leaves its
			// temporary file; the file it was to replace is intact.
			os.Remove(filepath.Join(dir, name))
			d.log.Info("state: removed an unfinished write", "file", filepath.Join(stateSessionsDir, name))
			continue
		}
		data, err := readStateFile(filepath.Join(dir, name))
		var snap *Snapshot
		if err == nil {
			snap, err = DecodeSnapshot(data)
		}
		if err == nil && sessionFile(snap.Session) != name {
			err = fmt.Errorf("the file of session %q is %s, not %s", snap.Session, sessionFile(snap.Session), name)
		}
		var res RestoreResult
		if err == nil {
			res, err = s.Restore("", snap)
		}
		if err != nil {
			d.setAside(filepath.Join(stateSessionsDir, name), err)
			continue
		}
		if len(res.Dropped) > 0 {
			d.log.Warn("state: session restored in part", "session", res.Session, "dropped", strings.Join(res.Dropped, "; "))
		}
		d.written[name] = [32]byte{} // a save writes it again, as it is now
		n++
	}
	d.log.Info("state restored", "dir", d.dir, "sessions", n)
	return n
}

// setAside moves a file that did not load into rejected/, with the time
// in its name, and logs why.
func (d *StateDir) setAside(name string, why error) {
	to := filepath.Join(stateRejectedDir, fmt.Sprintf("%s.%s", filepath.Base(name), time.Now().UTC().Format("20060102T150405.000000000Z")))
	if err := os.Rename(filepath.Join(d.dir, name), filepath.Join(d.dir, to)); err != nil {
		d.log.Warn("state: a file did not load, nor could it be set aside", "file", name, "why", why.Error(), "err", err)
		return
	}
	d.log.Warn("state: a file did not load; set aside", "file", name, "moved_to", to, "why", why.Error())
}

// sessionFile is the file name of a session's snapshot: its id, with
// every character but lower-case letters, digits, - and _ written %XX
// (so that ids differing in case differ on a file system that ignores
// it); an id that would make a name over 200 bytes is named by its
// SHA-256 instead.
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

// Save writes what changed since the last save: the server's state and
// the snapshot of every session used since (a session not yet written
// too), and removes the files of sessions that are gone (reset, expired,
// evicted). Every file is written whole, then renamed into place.
func (d *StateDir) Save(s *Server) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	started := s.now()
	var errs []error
	server, err := json.MarshalIndent(s.serverState(), "", "  ")
	if err == nil {
		err = writeIfChanged(filepath.Join(d.dir, stateServerFile), server)
	}
	errs = append(errs, err)
	ids, used := s.sessionIDs(d.saved)
	keep := make(map[string]bool, len(ids))
	for _, id := range ids {
		name := sessionFile(id)
		keep[name] = true
		if _, ok := d.written[name]; ok && !used[id] {
			continue
		}
		snap, err := s.Snapshot(id)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		taken := snap.TakenAt
		snap.TakenAt = time.Time{}
		body, err := json.Marshal(snap)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		sum := sha256.Sum256(body)
		if prev, ok := d.written[name]; ok && prev == sum {
			continue
		}
		snap.TakenAt = taken
		if body, err = json.Marshal(snap); err == nil {
			err = renameio.WriteFile(filepath.Join(d.dir, stateSessionsDir, name), body, 0o600)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		d.written[name] = sum
	}
	for name := range d.written {
		if !keep[name] {
			if err := os.Remove(filepath.Join(d.dir, stateSessionsDir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
				continue
			}
			delete(d.written, name)
		}
	}
	d.saved = started
	return errors.Join(errs...)
}

// writeIfChanged writes data to path, whole and renamed into place,
// unless the file holds it already.
func writeIfChanged(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && string(old) == string(data) {
		return nil
	}
	return renameio.WriteFile(path, data, 0o600)
}

// sessionIDs lists the sessions there are, and which of them were used
// at or after since.
func (s *Server) sessionIDs(since time.Time) ([]string, map[string]bool) {
	return s.st.Sessions().Used(since)
}
