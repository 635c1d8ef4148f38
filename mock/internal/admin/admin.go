// Package admin serves the admin API under /__mock.
//
// Each resource has a file, and routes.go is their table. This file
// holds the token and read-only guard and writes the answers. The state
// is package shared's.
package admin

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/shared"
	"github.com/replymock/replymock/mock/internal/snapshot"
	"github.com/replymock/replymock/mock/internal/wire"
	"golang.org/x/sync/semaphore"
)

// Prefix is the path prefix of the admin API.
const Prefix = "/__mock"

// Config is what the admin API serves with.
type Config struct {
	Log       *slog.Logger
	Now       func() time.Time
	State     *shared.State
	Token     string               // required by every route but health (Options.AdminToken); "" for none
	ReadOnly  bool                 // every write answers 403 (Options.ReadOnly)
	Version   string               // reported by health
	Started   time.Time            // the server's start, health's uptime counts from it
	Metrics   *prometheus.Registry // served at /__mock/metrics
	Snapshots *snapshot.Keeper     // takes and restores sessions' snapshots
	Store     func() StoreHealth   // for health; nil reports the memory store
	Proxied   bool                 // paths not faked go to a real service (Options.Proxy)
}

// Admin serves the admin API's resources.
type Admin struct {
	Config
	bodies *semaphore.Weighted // what large bodies being read may cost together (bodyTurn)
}

// MaxBodiesCost bounds what the large bodies being read at once (PUT
// /__mock/data, POST /__mock/snapshot) may cost together in memory, as
// wire.Body.Cost counts it.
const MaxBodiesCost = 256 << 20

// bodyTurn waits until r's body fits within MaxBodiesCost beside the
// others being read; done gives its share back. It waits rather than
// refuses, so a client seeding many sessions at once gets each answer.
func (a *Admin) bodyTurn(r *http.Request, b *wire.Body) (done func(), err error) {
	n := min(b.Cost(r), MaxBodiesCost)
	if err := a.bodies.Acquire(r.Context(), n); err != nil {
		return nil, &wire.APIError{Status: http.StatusServiceUnavailable, Code: wire.CodeServiceUnavailable, RetryAfter: time.Second,
			Message: "the server was reading other large bodies; send it again"}
	}
	return func() { a.bodies.Release(n) }, nil
}

// New is the admin API of cfg.
func New(cfg Config) *Admin {
	return &Admin{Config: cfg, bodies: semaphore.NewWeighted(MaxBodiesCost)}
}

// Guard guards an admin route: TokenGuard, and in read-only mode only
// GET and HEAD pass.
func (a *Admin) Guard(next http.Handler) http.Handler {
	return a.TokenGuard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.ReadOnly && r.Method != http.MethodGet && r.Method != http.MethodHead {
			a.writeError(w, r, wire.ErrReadOnly)
			return
		}
		next.ServeHTTP(w, r)
	}))
}

// TokenGuard asks for the admin token, when set, on every route but
// health. The MCP endpoint has it alone: it posts even to read, and
// offers no tool that writes in read-only mode.
func (a *Admin) TokenGuard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.Token != "" && r.URL.Path != Prefix+"/health" && !access.AdminTokenOK(r, a.Token) {
			access.SetChallenge(w.Header(), access.RealmAdmin)
			a.writeError(w, r, &wire.APIError{Status: http.StatusUnauthorized, Code: wire.CodeUnauthorized,
				Message: "the admin API needs the admin token (Authorization: Bearer <token> or X-Mock-Admin-Token)"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Handler is a guarded route whose handler returns its answer, for the
// success envelope, or an error.
func (a *Admin) Handler(h func(r *http.Request) (int, any, error)) http.Handler {
	return a.Guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var sid string // the session scope finds the request is about
		r = r.WithContext(context.WithValue(r.Context(), scopeKey{}, &sid))
		status, data, err := h(r)
		if err == nil && r.Method != http.MethodGet && r.Method != http.MethodHead {
			err = a.State.SyncWrite(r.Context(), sid) // an answered write outlives the process
		}
		if err != nil {
			a.writeError(w, r, err)
			return
		}
		if st, ok := data.(streamed); ok {
			a.writeStreamed(w, r, status, st)
			return
		}
		wire.WriteJSON(w, status, wire.Envelope{Success: true, Data: data})
	}))
}

// writeError writes err in the error envelope; see wire.WriteError.
func (a *Admin) writeError(w http.ResponseWriter, r *http.Request, err error) {
	wire.WriteError(w, r, a.Log, err)
}

// streamed is the data of an answer too large to build whole: it writes
// itself a piece at a time, as wire.WriteJSON would write it.
type streamed interface {
	writeData(js *wire.Stream)
}

// writeStreamed answers with data in the success envelope, as it is
// encoded. Once begun, an encoding failure can only cut the connection,
// so the client sees a broken answer, not a wrong one.
func (a *Admin) writeStreamed(w http.ResponseWriter, r *http.Request, status int, data streamed) {
	if rel, ok := data.(interface{ Release() }); ok {
		defer rel.Release() // written, or the client gone: what it pinned is free
	}
	w.Header().Set("Content-Type", wire.ContentTypeJSON)
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return
	}
	js := wire.NewStream(w)
	js.Raw(`{"success":true,"data":`)
	data.writeData(js)
	js.Raw("}")
	if err := js.Flush(); err != nil && js.EncodingFailed() {
		a.Log.Error("admin answer encoding failed", "method", r.Method, "path", r.URL.Path, "err", err)
		panic(http.ErrAbortHandler)
	}
}

// smallBody is the shape of the admin API's small bodies.
var smallBody = &wire.Shape{What: "this body", Items: 100, Array: 100, Members: 100}

// decodeBody decodes a JSON body of shape into v, strictly.
func decodeBody(r *http.Request, shape *wire.Shape, v any) error {
	body, err := wire.ReadJSONBody(nil, r, shape)
	if err != nil {
		return err
	}
	return wire.DecodeStrict(body, v)
}
