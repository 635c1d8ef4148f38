package mock

import (
	"github.com/replymock/replymock/mock/internal/shop"
	"github.com/replymock/replymock/mock/internal/snapshot"
)

// Snapshot documents (GET and POST /__mock/snapshot).
const (
	// SnapshotFormat names the snapshot document's format.
	SnapshotFormat = snapshot.Format
	// MaxSnapshotBytes bounds a snapshot document.
	MaxSnapshotBytes = snapshot.MaxBytes
	// MaxSnapshotYAMLBytes bounds a snapshot sent as YAML; a bigger one
	// goes as JSON.
	MaxSnapshotYAMLBytes = snapshot.MaxYAMLBytes
)

// A session as it is, and its parts.
type (
	// Snapshot is everything that makes a session what it is. Restored,
	// the session answers as it did; its journal and rate-limit windows
	// start afresh.
	Snapshot = snapshot.Snapshot
	// SnapshotFault is a run-time fault and the session's counter of it.
	SnapshotFault = snapshot.Fault
	// SharedFaultCount is a session's counter of a fault for every session.
	SharedFaultCount = snapshot.SharedFaultCount
	// ScenarioFaultCount is a session's counter of a scenario's own fault.
	ScenarioFaultCount = snapshot.ScenarioFaultCount
	// ScenarioSnapshot is a session's state in one scenario.
	ScenarioSnapshot = snapshot.ScenarioState
	// SeededSnapshot is what a session seeded in a scenario.
	SeededSnapshot = snapshot.Seeded
	// ShopSnapshot is a session's living shop in a snapshot.
	ShopSnapshot = shop.Snapshot
	// RestoreResult is the answer of POST /__mock/snapshot.
	RestoreResult = snapshot.Result
)

// Snapshot takes session sid as it is now. A session that does not
// exist is taken as a fresh one would be.
func (s *Server) Snapshot(sid string) (*Snapshot, error) { return s.snaps.Take(sid) }

// Restore makes session sid ("" for the snapshot's own) what snap says.
// A problem is a 400 *APIError naming its field, or a 409 past a bound,
// and changes nothing. What belongs to a scenario that is gone or has
// changed is left out and listed in Dropped.
func (s *Server) Restore(sid string, snap *Snapshot) (RestoreResult, error) {
	return s.snaps.Restore(sid, snap)
}

// DecodeSnapshot reads a snapshot document, JSON or YAML. An unknown
// field is an error naming it.
func DecodeSnapshot(data []byte) (*Snapshot, error) { return snapshot.Decode(data) }

// MarshalSnapshot writes snap as JSON, or as YAML.
func MarshalSnapshot(snap *Snapshot, asYAML bool) ([]byte, error) {
	return snapshot.Marshal(snap, asYAML)
}

// IsSnapshot reports whether data is a snapshot document rather than a
// scenario or fixture.
func IsSnapshot(data []byte) bool { return snapshot.IsSnapshot(data) }

// ValidateSnapshot checks a snapshot file as POST /__mock/snapshot would
// restore it into a server of opts. notes say what would not come back
// as it was.
func ValidateSnapshot(opts Options, path string, data []byte) (notes []string, err error) {
	return snapshot.Validate(path, data, func(snap *Snapshot) (RestoreResult, error) {
		s, err := New(opts)
		if err != nil {
			return RestoreResult{}, err
		}
		return s.Restore("", snap)
	})
}
