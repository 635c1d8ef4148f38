package mock

import (
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

// Anchor is the present the saved server anchored its data to, when it is
// within shop.MaxGap of now: a server restarted soon serves the same data,
// so that its sessions' living shops come back as they were. Otherwise
// zero: the data anchors to now again, and living shops start afresh.
func (d *StateDir) Anchor(now time.Time) time.Time { return d.dir.Anchor(now) }

// Restore brings the saved state into s: the server's own, then every
// session's. A file that does not read is set aside and logged; so is
// one whose session would not restore. It returns how many sessions
// came back.
func (d *StateDir) Restore(s *Server) int { return d.dir.Restore(s.snaps) }

// Save writes what changed since the last save: the server's state and
// the snapshot of every session used since (a session not yet written
// too), and removes the files of sessions that are gone (reset, expired,
// evicted). Every file is written whole, then renamed into place.
func (d *StateDir) Save(s *Server) error { return d.dir.Save(s.snaps, s.anchor) }
