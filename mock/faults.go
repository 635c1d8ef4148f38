package mock

import (
	"github.com/replymock/replymock/mock/internal/fault"
)

// Faults injected into API requests (package fault).
type (
	// Fault is a failure injected into the requests that match it.
	Fault = fault.Fault
	// Latency is a fault's delay.
	Latency = fault.Latency
	// FaultError is a fault's error answer.
	FaultError = fault.ErrorAnswer
	// PageDrift is how much a page_drift fault moves a list at each hit.
	PageDrift = fault.PageDrift
	// StaleRead is how long a stale_read fault's reads lag a write.
	StaleRead = fault.StaleRead
	// CountsLag is how far a counts_lag fault's counts lag the list.
	CountsLag = fault.CountsLag
)

// Bounds of faults.
const (
	// MaxLatency bounds every injected delay.
	MaxLatency = fault.MaxLatency
	// MaxDrift bounds the reviews a page_drift fault brings to a
	// session's list, and those it answers.
	MaxDrift = fault.MaxDrift
	// MaxRuntimeFaults bounds how many run-time faults are kept at once.
	MaxRuntimeFaults = fault.MaxRuntime
	// MaxRuntimeFaultBytes bounds the memory the run-time faults keep.
	MaxRuntimeFaultBytes = fault.MaxRuntimeBytes
)

// AddFault adds a run-time fault for session sid, or for every session
// with AllSessions, and returns it with its id. Past MaxRuntimeFaults or
// MaxRuntimeFaultBytes, it returns a 409 *APIError (CodeTooManyFaults).
func (s *Server) AddFault(sid string, f Fault) (Fault, error) {
	f, _, err := s.st.PutFault(sid, f, false)
	return f, err
}

// ReplaceFault puts f in place of the run-time faults of the same name,
// in one step: no request sees both, or neither. It returns f with its
// id and how many faults it replaced.
func (s *Server) ReplaceFault(sid string, f Fault) (Fault, int, error) {
	return s.st.PutFault(sid, f, true)
}

// Faults lists the run-time faults that apply to session sid, or with
// AllSessions every run-time fault.
func (s *Server) Faults(sid string) []Fault { return s.st.Faults(sid) }

// RemoveFaults removes the run-time fault with id, or with id "" every
// run-time fault of session sid. It returns how many it removed.
func (s *Server) RemoveFaults(sid, id string) int { return s.st.RemoveFaults(sid, id) }
