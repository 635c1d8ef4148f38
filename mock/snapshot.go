package mock

import (
	"github.com/replymock/replymock/mock/internal/snapshot"
)

// SnapshotFormat names the document GET /__mock/snapshot writes and POST
// /__mock/snapshot reads: a session as it is (see Snapshot).
const SnapshotFormat = snapshot.Format

// MaxSnapshotBytes bounds a snapshot document: a session's seeded reviews
// (MaxSeedReviews) and a living shop's arrivals and answers
// (MaxShopReviews each) fit with room.
const MaxSnapshotBytes = snapshot.MaxBytes

// MaxSnapshotYAMLBytes bounds a snapshot sent as YAML, which takes many
// times its size while it is read: a bigger one goes as JSON.
const MaxSnapshotYAMLBytes = snapshot.MaxYAMLBytes

// Snapshot is everything that makes a session what it is: the scenario it
// picked, its overrides and run-time faults with their counters, and per
// scenario it used its settings, the reviews it seeded, the counters of
// the scenario's faults and its living shop (clock, arrivals, answers and
// drafts, and where the reply engine's random sequence stands). Restored
// (Server.Restore), the session answers the list, counts and settings
// byte for byte as it did. The journal and rate-limit windows are not
// part of it: a restored session starts them afresh. (snapshot's)
type Snapshot = snapshot.Snapshot

// SnapshotFault is a run-time fault and what the session's requests did
// with it (snapshot's).
type SnapshotFault = snapshot.Fault

// SharedFaultCount is a session's counter of a fault for every session
// (snapshot's).
type SharedFaultCount = snapshot.SharedFaultCount

// ScenarioFaultCount is a session's counter of a scenario's own fault,
// the Index-th of its faults list (snapshot's).
type ScenarioFaultCount = snapshot.ScenarioFaultCount

// ScenarioSnapshot is a session's state in one scenario (snapshot's).
type ScenarioSnapshot = snapshot.ScenarioState

// SeededSnapshot is what a session seeded in a scenario (PUT
// /__mock/data) (snapshot's).
type SeededSnapshot = snapshot.Seeded

// RestoreResult is the answer of POST /__mock/snapshot (snapshot's).
type RestoreResult = snapshot.Result

// Snapshot takes session sid as it is now. A session that does not
// exist is taken as a fresh one would be. Its living shops are brought up
// to their clocks first, as a list request would.
func (s *Server) Snapshot(sid string) (*Snapshot, error) { return s.snaps.Take(sid) }

// Restore makes session sid ("" for the snapshot's own) what snap says,
// in place of what it was: the list, counts and settings then answer as
// they did when it was taken. A problem with the document is a 400
// *APIError naming its field, and changes nothing; so does a bound passed
// (seeded reviews, run-time faults: 409). What belongs to a scenario
// that is gone, or has changed since (its fingerprint, or the present
// its data is anchored to), is left out and said in Dropped: settings
// and seeded reviews come back on a changed scenario, fault counters
// and the living shop start again.
func (s *Server) Restore(sid string, snap *Snapshot) (RestoreResult, error) {
	return s.snaps.Restore(sid, snap)
}

// DecodeSnapshot reads a snapshot document, JSON or YAML, strictly: an
// unknown field is an error naming it.
func DecodeSnapshot(data []byte) (*Snapshot, error) { return snapshot.Decode(data) }

// MarshalSnapshot writes snap as JSON, or as YAML (block style, the
// reviews among it as readable as the rest).
func MarshalSnapshot(snap *Snapshot, asYAML bool) ([]byte, error) {
	return snapshot.Marshal(snap, asYAML)
}

// IsSnapshot reports whether data is a snapshot document (its format
// key names one), rather than a scenario or fixture.
func IsSnapshot(data []byte) bool { return snapshot.IsSnapshot(data) }

// ValidateSnapshot checks a snapshot file as POST /__mock/snapshot would
// restore it into a server of opts (its scenarios): a problem is an
// error naming the file and the field; notes say what would not come
// back as it was (a scenario gone or changed since).
func ValidateSnapshot(opts Options, path string, data []byte) (notes []string, err error) {
	return snapshot.Validate(path, data, func(snap *Snapshot) (RestoreResult, error) {
		s, err := New(opts)
		if err != nil {
			return RestoreResult{}, err
		}
		return s.Restore("", snap)
	})
}
