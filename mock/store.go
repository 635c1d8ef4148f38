package mock

import (
	"context"
	"net/http"
	"strings"

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
	return fleet.RedactedURL(raw)
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
	return admin.StoreHealth{Kind: h.Kind, URL: h.URL, State: h.State, Error: h.Error, LostAt: h.LostAt}
}

// sharedScope is the session a request reads or writes of the fleet's
// state: X-Mock-Session, an admin request's session=, or every session
// for an admin request that names none. It reports false for a request
// that reads none of it (health, metrics, media, a preflight) or that
// names no valid session (its 400 follows).
func (s *Server) sharedScope(r *http.Request, isAPI bool) (sid string, write, ok bool) {
	if r.Method == http.MethodOptions || media.IsPath(r.URL.Path) || !isAPI && !strings.HasPrefix(r.URL.Path, AdminPrefix+"/") ||
		r.URL.Path == AdminPrefix+"/health" || r.URL.Path == AdminPrefix+"/metrics" {
		return "", false, false
	}
	write = r.Method != http.MethodGet && r.Method != http.MethodHead
	if isAPI {
		sid, err := api.SessionOf(r.Header)
		return sid, write, err == nil // "*" among the ids no session may have
	}
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
	return sid, write, true
}
