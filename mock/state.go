package mock

import (
	"context"
	"log/slog"
	"time"

	"github.com/replymock/replymock/mock/internal/statedir"
)

// ServerStateFormat names the server's own state file in a state folder.
const ServerStateFormat = statedir.ServerStateFormat

// ServerState is what belongs to the server rather than to a session:
// the active scenario, the run-time faults and overrides for every
// session, and the present that data anchored to now was anchored to
// (statedir's).
type ServerState = statedir.ServerState

// StateDir keeps a server's state in a folder (--state-dir), so that a
// restarted or redeployed demo comes back as it was: server.json holds
// the server's own state, sessions/ a snapshot of each session. Every
// file is written whole and renamed into place, so a crash at any moment
// leaves each file as it was or as it became; a file that does not read
// (corrupt, foreign, of another version) is set aside in rejected/ with
// a log line, never loaded in part, never fatal.
type StateDir struct{ dir *statedir.Dir }

// OpenStateDir makes dir a state folder (creating it and its subfolders)
// and returns it; log says what it restores and sets aside.
func OpenStateDir(dir string, log *slog.Logger) (*StateDir, error) {
	d, err := statedir.Open(dir, log)
	if err != nil {
		return nil, err
	}
	return &StateDir{dir: d}, nil
}

// DefaultMaxStateBytes is what a state folder's session files, and those
// set aside, hold together at most unless SetMaxBytes says otherwise.
const DefaultMaxStateBytes = statedir.DefaultMaxBytes

// SetMaxBytes makes max (0: DefaultMaxStateBytes) what the folder's
// sessions/ and rejected/ hold together at most: past it, the files
// set aside go first, then the least recently written sessions' (the
// default session's last), each with a log line, and a session whose
// snapshot alone would pass it is not written. server.json, the
// server's own state, always fits. Call it before Restore.
func (d *StateDir) SetMaxBytes(max int64) { d.dir.SetMax(max) }

// Anchor is the present the saved server anchored its data to, when it is
// within shop.MaxGap of now: a server restarted soon serves the same data,
// so that its sessions' living shops come back as they were. Otherwise
// zero: the data anchors to now again, and living shops start afresh.
func (d *StateDir) Anchor(now time.Time) time.Time { return d.dir.Anchor(now) }

// Restore brings the saved state into s: the server's own, then every
// session's. A file that does not read is set aside and logged; so is
// one whose session would not restore. It returns how many sessions
// came back. From then on, the folder keeps every change s makes: a
// write (API or admin, deletions and server-wide ones included) is in
// the folder before its answer is sent, so that an answered write
// outlives the process, SIGKILL included.
func (d *StateDir) Restore(s *Server) int {
	n := d.dir.Restore(s.snaps)
	d.dir.Keep(s.snaps, s.anchor)
	return n
}

// Save keeps what changed and is not kept yet (the sessions' fault
// counters and living shops that reads move), writes the server's state
// if it changed, and removes the files of sessions that are gone
// without a write (expired). Every file is written whole, then renamed
// into place. It is the periodic save, and the last one at shutdown.
func (d *StateDir) Save(s *Server) error { return d.dir.Save(context.Background(), s.snaps, s.anchor) }
