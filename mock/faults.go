package mock

import (
	"github.com/replymock/replymock/mock/internal/fault"
)

// Fault is a failure injected into requests that match it: latency, an
// error answer, a dropped connection or a truncated body. Faults come from
// a scenario file or are added at run time through the admin API; both use
// this shape (YAML or JSON). What a fault can do, its kinds, and how it
// decides are package fault's (mock/internal/fault).
type Fault = fault.Fault

// Latency is a delay: Fixed; a uniform range Min..Max; or log-normal,
// given its Median and 99th percentile P99. Exactly one form is used.
type Latency = fault.Latency

// FaultError is an injected error answer. Without Body, the body is the
// contract's error envelope for Status.
type FaultError = fault.ErrorAnswer

// MaxLatency bounds every injected delay, so that the server's write
// timeout always outlasts it.
const MaxLatency = fault.MaxLatency

// MaxRuntimeFaults bounds the run-time faults kept at once: for every
// session and of each session, all together (a scenario's own are bounded
// by MaxFaults). Past it, AddFault and POST /__mock/faults answer 409
// too_many_faults and change nothing.
const MaxRuntimeFaults = fault.MaxRuntime

// MaxRuntimeFaultBytes bounds what the run-time faults keep together
// (their names, paths, error bodies and headers), as MaxRuntimeFaults
// bounds how many they are: a thousand error bodies of a megabyte each
// would otherwise fit.
const MaxRuntimeFaultBytes = fault.MaxRuntimeBytes

// AddFault adds a run-time fault for session, or for every session with
// AllSessions, and returns it with its id. Faults added later are checked
// after the scenario's own and the earlier ones. Past MaxRuntimeFaults
// or MaxRuntimeFaultBytes, it returns a 409 *APIError (CodeTooManyFaults)
// and adds nothing.
func (s *Server) AddFault(sid string, f Fault) (Fault, error) {
	f, _, err := s.st.PutFault(sid, f, false)
	return f, err
}

// ReplaceFault puts f, named, in place of the run-time faults of the same
// name for session (AllSessions: those for every session), in one step:
// no request sees both, or neither. With none of that name, it adds f.
// It returns f with its new id and how many faults it replaced; past the
// bounds, the 409 of AddFault, and nothing changes.
func (s *Server) ReplaceFault(sid string, f Fault) (Fault, int, error) {
	return s.st.PutFault(sid, f, true)
}

// Faults lists the run-time faults that apply to session: every session's
// first, then its own. With AllSessions, it lists every run-time fault.
func (s *Server) Faults(sid string) []Fault { return s.st.Faults(sid) }

// RemoveFaults removes the run-time fault with id, or with id "" every
// run-time fault of session (AllSessions: of every session and global).
// It reports how many were removed.
func (s *Server) RemoveFaults(sid, id string) int { return s.st.RemoveFaults(sid, id) }
