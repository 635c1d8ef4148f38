// Package api serves the API under /api/v1.
//
// operations.go is the one operation table; each operation has a file.
// pipeline.go is the way every request goes: session and scenario,
// faults, auth and rate limit, the operation or the real service, then
// journal, metrics and log. warnings.go notes the client mistakes the
// API lets through; recorder.go holds an answer until its journal entry
// is in. The state is package shared's.
package api

import (
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/replymock/replymock/mock/internal/proxy"
	"github.com/replymock/replymock/mock/internal/shared"
	"github.com/replymock/replymock/mock/internal/wire"
)

// Prefix is the path prefix of the API.
const Prefix = "/api/v1"

// Config is what an API serves with.
type Config struct {
	Log      *slog.Logger
	Now      func() time.Time
	State    *shared.State
	Strict   bool         // a request with warnings is answered 400 (Options.Strict)
	ReadOnly bool         // PATCH answers 403 (Options.ReadOnly)
	Proxies  *proxy.Pool  // the pass-through to the real service
	Fallback http.Handler // answers what no operation takes: 404, or 405 with Allow
}

// API serves the API's operations.
type API struct {
	Config
	metrics *metrics
}

// New is the API of cfg.
func New(cfg Config) *API { return &API{Config: cfg, metrics: newMetrics()} }

// Registry is the registry of the server's metrics.
func (a *API) Registry() *prometheus.Registry { return a.metrics.registry }

// writeError writes err in the error envelope; see wire.WriteError.
func (a *API) writeError(w http.ResponseWriter, r *http.Request, err error) {
	wire.WriteError(w, r, a.Log, err)
}

// Recover, deferred, turns a handler's panic into a logged 500 in the
// envelope. http.ErrAbortHandler, a deliberately dropped connection,
// goes on up to net/http.
func Recover(log *slog.Logger, w http.ResponseWriter, r *http.Request) {
	v := recover()
	if v == nil {
		return
	}
	if v == http.ErrAbortHandler {
		panic(v)
	}
	log.Error("handler panic", "method", r.Method, "path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
	if rec, ok := w.(*recorder); ok {
		rec.discard() // an API answer is held: the 500 replaces what the handler began
	}
	wire.WriteJSON(w, http.StatusInternalServerError, wire.ErrorEnvelope{Error: wire.StatusError(http.StatusInternalServerError)})
}
