package mock

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"strings"
	"time"

	"github.com/replymock/replymock/mock/internal/admin"
	"github.com/replymock/replymock/mock/internal/api"
	"github.com/replymock/replymock/mock/internal/fleet"
	"github.com/replymock/replymock/mock/internal/media"
	"github.com/replymock/replymock/mock/internal/wire"
)

// StoreMemory is Options.Store's default: the state lives in this
// process only.
const StoreMemory = "memory"

// CodeStoreUnavailable answers a write while the shared store is out of
// reach (503): nothing changed.
const CodeStoreUnavailable = wire.CodeStoreUnavailable

// MaxStoreSessionBytes bounds what one session keeps in a shared store
// (fleet's).
const MaxStoreSessionBytes = fleet.MaxSessionBytes

// StoreHealth is the store's part of GET /__mock/health (admin's).
type StoreHealth = admin.StoreHealth

// CheckStoreURL checks Options.Store: memory, or a Redis URL. Its error
// never quotes the URL, which may hold a password.
func CheckStoreURL(raw string) error {
	if raw == "" || raw == StoreMemory {
		return nil
	}
	_, err := fleet.ParseURL(raw)
	return err
}

// ShownStoreURL is a store URL as logs show it: its password replaced
// by xxxxx.
func ShownStoreURL(raw string) string {
	if raw == "" || raw == StoreMemory {
		return StoreMemory
	}
	return fleet.Shown(raw)
}

// openStore connects to opts.Store, waiting (and saying so) until it
// answers; nil for the memory store.
func openStore(opts Options) (*fleet.Store, error) {
	if opts.Store == "" || opts.Store == StoreMemory {
		return nil, nil
	}
	return fleet.Open(context.Background(), fleet.Config{URL: opts.Store, Log: opts.Logger,
		TTL: opts.SessionTTL, MaxSessions: opts.MaxSessions, MaxBytes: opts.MaxStoreBytes})
}

// Close lets go of what the server holds outside its memory: the
// connection to a shared store. A server in memory holds none.
func (s *Server) Close() {
	if s.fleet != nil {
		s.fleet.Close()
	}
}

// storeHealth is the store's state, for GET /__mock/health.
func (s *Server) storeHealth() admin.StoreHealth {
	if s.fleet == nil {
		return admin.StoreHealth{Kind: StoreMemory, State: "ok"}
	}
	h := s.fleet.Health()
	return admin.StoreHealth{Kind: h.Kind, URL: h.URL, State: h.State, Error: h.Error}
}

// fresh brings the state a request reads up to the fleet's (the server's
// and the request's session's: X-Mock-Session, or an admin request's
// session=, every session for an admin request that names none) before
// it is served; a write first takes that session's lock in the fleet,
// which unlock gives back once it is answered. While the store is out of
// reach, a read goes on with a warning that it may be stale, and a write
// is answered 503 store_unavailable, changing nothing; fresh then
// reports false.
//
// An API read that carries no body (GET, HEAD) is served at once from
// the replica's copy instead (x.Expect, fleet.Store.Expect): its journal
// entry, which goes to the store before the answer anyway, is kept only
// if the store still holds the state the answer was made from, so a read
// pays one exchange with the store, not two. If the state moved, or the
// request needs the fleet's counts, api.Serve answers nothing and
// serveAPI serves it again through fresh.
func (s *Server) fresh(w http.ResponseWriter, r *http.Request, isAPI bool, x *api.Exchange, t turn) (unlock func(), ok bool) {
	unlock = func() {}
	if r.Method == http.MethodOptions || media.IsPath(r.URL.Path) || !isAPI && !strings.HasPrefix(r.URL.Path, AdminPrefix+"/") ||
		r.URL.Path == AdminPrefix+"/health" || r.URL.Path == AdminPrefix+"/metrics" {
		return unlock, true // nothing of the shared state in the answer
	}
	var sid string
	if isAPI {
		var err error
		if sid, err = api.SessionOf(r.Header); err != nil {
			// No lock and no read of the fleet for an id no session may
			// have ("*" among them): the request's 400 follows.
			return unlock, true
		}
	} else {
		sid = r.Header.Get(HeaderSession)
		if q := r.URL.Query().Get("session"); q != "" {
			sid = q
		} else if sid == "" {
			sid = AllSessions
		}
		if sid != AllSessions && !validID(sid) {
			// An endpoint that reads it answers 400; one that does not
			// still writes under a lock, and no key is made of the id.
			sid = AllSessions
		}
	}
	write := r.Method != http.MethodGet && r.Method != http.MethodHead
	if t == turnCopy && !write && r.ContentLength == 0 && (r.Body == nil || r.Body == http.NoBody) {
		if x.Expect, x.Copy = s.fleet.Expect(sid); x.Expect != "" {
			return unlock, true
		}
	}
	if write {
		var err error
		if unlock, err = s.fleet.Lock(r.Context(), sid); err != nil {
			s.writeError(w, r, err)
			return nil, false
		}
	}
	err := s.fresher(r.Context(), sid, x)
	if err == nil {
		return unlock, true
	}
	if !errors.Is(err, fleet.ErrOutOfReach) { // the session does not restore here: neither served nor changed
		unlock()
		s.writeError(w, r, err)
		return nil, false
	}
	if write {
		unlock()
		s.writeError(w, r, fleet.ErrUnavailable())
		return nil, false
	}
	w.Header().Add(HeaderWarning, api.StaleWarning)
	return unlock, true
}

// serveAPI serves an /api/v1 request; on a fleet, served at once from
// the replica's copy when fresh allowed it (x.Expect), and again through
// fresh when that copy was not the fleet's latest (x.Retry).
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request, x *api.Exchange) {
	if s.fleet == nil {
		s.api.Serve(w, r, x)
		return
	}
	before := maps.Clone(w.Header())
	for t := turnCopy; t < turns; t++ {
		if !s.serveOnce(w, r, x, t) || !x.Retry() {
			return
		}
		if sid, err := api.SessionOf(r.Header); err == nil && x.Remade() {
			s.fleet.Reread(sid, x.Copy)
		}
		h := w.Header()
		clear(h)
		maps.Copy(h, before) // what the turn set goes with it
		x = &api.Exchange{ID: x.ID, Public: x.Public}
	}
	s.writeError(w, r, errSessionsChurn)
}

// turn is a fleet's turn at serving an API request: first from the
// replica's copy (a read, checked with its journal entry); then after
// Fresh, from the copy Fresh brought up to date, served again if the
// session was evicted here and made anew meanwhile (that one is read
// again), up to turns turns.
type turn int

const (
	turnCopy turn = iota
	turnFresh
	turns = turnFresh + 3
)

// errSessionsChurn answers a request whose session was evicted from the
// replica's memory every time it was read from the store, to make room
// for others: nothing was answered from a copy that is not the fleet's.
var errSessionsChurn = &wire.APIError{Status: http.StatusServiceUnavailable, Code: wire.CodeServiceUnavailable, RetryAfter: time.Second,
	Message: "this replica evicts sessions faster than it serves them (--max-sessions): nothing was answered from a session made anew; send it again"}

// serveOnce serves an API request once, through fresh, and reports
// whether fresh let it through. The write's lock is given back however
// Serve ends: a fault that drops the connection ends it with a panic
// (http.ErrAbortHandler).
func (s *Server) serveOnce(w http.ResponseWriter, r *http.Request, x *api.Exchange, t turn) bool {
	unlock, ok := s.fresh(w, r, true, x, t)
	if !ok {
		return false
	}
	defer unlock()
	s.api.Serve(w, r, x)
	return true
}

// fresher is Fresh for session sid; for an API request (x), it also
// pins the request to the replica's copy of the session that holds the
// fleet's state (x.Copy): one evicted here and made anew meanwhile is
// read again, and the request served again.
func (s *Server) fresher(ctx context.Context, sid string, x *api.Exchange) error {
	if x == nil {
		return s.fleet.Fresh(ctx, sid)
	}
	var err error
	x.Copy, err = s.fleet.FreshCopy(ctx, sid)
	return err
}
