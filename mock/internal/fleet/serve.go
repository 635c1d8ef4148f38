package fleet

import (
	"errors"
	"net/http"
	"sync"
)

// staleWarning is the X-Mock-Warning of an answer read while Redis is
// out of reach.
const staleWarning = `299 replymock "the shared store (--store) is out of reach: this answer is from the state this replica last knew, which may be stale"`

// Serve runs serve for a request of session sid (session.All for every
// session): a write first takes the session's lock, then refresh brings
// the copy up to date, and serve runs with the session pinned here. It
// returns the error to answer instead of serving.
func (s *Store) Serve(w http.ResponseWriter, r *http.Request, sid string, write bool, serve func()) error {
	var token string
	if write {
		var unlock func()
		var err error
		if token, unlock, err = s.lock(r.Context(), sid); err != nil {
			return err
		}
		defer unlock() // also when serve panics: a fault that drops the connection
	}
	p := s.pins.add(sid)
	defer s.pins.done(sid)
	err := s.refresh(r.Context(), sid, write)
	switch {
	case err == nil:
	case !errors.Is(err, errOutOfReach):
		return err // the session does not restore here
	case write:
		return errUnavailable()
	default:
		w.Header().Add("X-Mock-Warning", staleWarning)
	}
	if _, lost := s.lostLately(); lost {
		w.Header().Add("X-Mock-Warning", lostWarning)
	}
	if write {
		// Only now may a keeping write the session: the copy is what
		// Redis holds, and no other replica can change it.
		s.held.set(sid, token)
		defer func() {
			// A keeping that took the token holds s.mu until it ends: the
			// lock goes back only after it.
			s.mu.Lock()
			s.held.set(sid, "")
			s.mu.Unlock()
		}()
	}
	p.use.RLock()
	defer p.use.RUnlock()
	serve()
	return nil
}

// pins are the sessions this replica is serving requests from. A pinned
// session is not evicted, and its reload waits for those requests.
type pins struct {
	mu sync.Mutex // guards m and each pin's n
	m  map[string]*pin
}

// pin is what holds one session here.
type pin struct {
	n int // the requests and reloads that hold it
	// use is held shared while a request is served from the session's
	// copy, and alone while a reload replaces that copy.
	use sync.RWMutex
}

// add pins session id once more.
func (ps *pins) add(id string) *pin {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.m == nil {
		ps.m = make(map[string]*pin)
	}
	p := ps.m[id]
	if p == nil {
		p = &pin{}
		ps.m[id] = p
	}
	p.n++
	return p
}

// done takes back one pin of session id, which add gave.
func (ps *pins) done(id string) {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	p := ps.m[id]
	if p.n--; p.n == 0 {
		delete(ps.m, id)
	}
}

// has reports whether session id is pinned.
func (ps *pins) has(id string) bool {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.m[id] != nil
}

// lockForReload pins session id and waits until no request is served
// from it; the caller, not serving one, calls done after.
func (ps *pins) lockForReload(id string) (done func()) {
	p := ps.add(id)
	p.use.Lock()
	return func() {
		p.use.Unlock()
		ps.done(id)
	}
}
