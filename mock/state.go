package mock

import (
	"context"
	"log/slog"
	"time"

	"github.com/replymock/replymock/mock/internal/statedir"
)

// ServerStateFormat names the server's own state file in a state folder.
const ServerStateFormat = statedir.ServerStateFormat

// ServerState is what belongs to the server rather than to a session.
type ServerState = statedir.ServerState

// StateDir keeps a server's state in a folder (--state-dir), so that a
// restarted demo comes back as it was. Every file is written whole and
// renamed into place. A file that does not read is set aside in
// rejected/ with a log line.
type StateDir struct{ dir *statedir.Dir }

// OpenStateDir makes dir a state folder, creating it as needed; log says
// what it restores and sets aside.
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
// sessions hold together at most. Past it, the files set aside go first,
// then a write is refused (503 store_unavailable). Call it before Restore.
func (d *StateDir) SetMaxBytes(max int64) { d.dir.SetMax(max) }

// Anchor is the present the saved server anchored its data to, if it is
// recent; otherwise zero. A server restarted soon then serves the same
// data, and its living shops come back as they were.
func (d *StateDir) Anchor(now time.Time) time.Time { return d.dir.Anchor(now) }

// Restore brings the saved state into s and returns how many sessions
// came back. From then on, every write s answers is in the folder
// before its answer is sent, so it outlives the process.
func (d *StateDir) Restore(s *Server) int {
	n := d.dir.Restore(s.snaps)
	d.dir.Keep(s.snaps, s.anchor)
	return n
}

// Save writes what reads changed (fault counters, living shops) and
// removes the files of expired sessions. It is the periodic save, and
// the last one at shutdown.
func (d *StateDir) Save(s *Server) error { return d.dir.Save(context.Background(), s.snaps, s.anchor) }
