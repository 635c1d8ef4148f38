package shared

import (
	"time"

	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/fault"
)

// Counts counts what the replicas of a fleet must count as one: the
// limited faults and the rate limit's windows.
type Counts interface {
	// FaultCounter counts session sid's limited faults.
	FaultCounter(sid string) fault.SharedCounter
	// CountRequest counts a request of session sid in scenario's rate
	// limit rl and reports whether it lets it through; when not, retryIn
	// is how long until the window ends. An error leaves it to the session.
	CountRequest(sid, scenario string, rl *access.RateLimit) (retryIn time.Duration, ok bool, err error)
	// Forget starts session sid's counts again (every session's for
	// session.All).
	Forget(sid string)
}

// SetCounts makes c what the limited faults and the rate limits count
// in; without it, each session counts in itself. Set it once, before
// serving.
func (st *State) SetCounts(c Counts) { st.counts = c }

// SetPinned makes pinned what tells the sessions that requests are
// served from: they are not evicted. Call it before serving.
func (st *State) SetPinned(pinned func(id string) bool) { st.pinned.Store(&pinned) }

func (st *State) isPinned(id string) bool {
	if f := st.pinned.Load(); f != nil {
		return (*f)(id)
	}
	return false
}

// FaultCounter is what session sid's limited faults count in; nil for
// the session's own counters.
func (st *State) FaultCounter(sid string) fault.SharedCounter {
	if st.counts == nil {
		return nil
	}
	return st.counts.FaultCounter(sid)
}

// CountRequest counts a request of session sid in scenario at now
// against the rate limit rl, in the fleet's counts if any, else in w,
// the session's window; see access.Window.CountRequest.
func (st *State) CountRequest(sid, scenario string, w *access.Window, rl *access.RateLimit, now time.Time) (time.Duration, bool) {
	if st.counts != nil {
		if retryIn, ok, err := st.counts.CountRequest(sid, scenario, rl); err == nil {
			return retryIn, ok
		}
	}
	return w.CountRequest(rl, now)
}
