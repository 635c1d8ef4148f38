package mock

import (
	"fmt"
	"testing"
)

// Dropped sessions keep nothing, though the journal order still points
// at them for a while.
func TestDroppedSessionKeepsNothing(t *testing.T) {
	s, err := New(Options{MaxSessions: 2})
	if err != nil {
		t.Fatal(err)
	}
	var first *session
	for i := range 10 {
		s.sessionsMu.Lock()
		ss := s.sessionLocked(fmt.Sprintf("s%d", i))
		s.sessionsMu.Unlock()
		if i == 0 {
			first = ss
		}
		ss.mu.Lock()
		ss.state(s.scenarios["default"])
		ss.mu.Unlock()
	}
	first.mu.Lock()
	defer first.mu.Unlock()
	if !first.dropped || first.states != nil {
		t.Errorf("an evicted session keeps its state: dropped %v, %d states", first.dropped, len(first.states))
	}
}
