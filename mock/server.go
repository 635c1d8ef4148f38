package mock

import (
	"io/fs"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/mux"
	"github.com/replymock/replymock/fixtures"
	"github.com/replymock/replymock/scenarios"
)

// Options configures a Server. The zero value serves the embedded default
// scenario with its own seed and logs nothing.
type Options struct {
	// Scenario is the name of the scenario to serve; "" means "default".
	Scenario string
	// Scenarios holds NAME.yaml scenario files; nil means the embedded ones.
	Scenarios fs.FS
	// Fixtures holds the files scenarios refer to (settings/, reviews/,
	// phrases/); nil means the embedded ones.
	Fixtures fs.FS
	// Seed, when not 0, replaces every scenario's seed for generated data.
	Seed int64
	// AdminToken, when set, is required by every /__mock/ route but health.
	AdminToken string
	// CORSOrigins lists the browser origins that may call the server:
	// exact origins or path.Match patterns (http://localhost:*). Empty, or
	// "*" in it, allows any origin.
	CORSOrigins []string
	// JournalSize is how many requests each session's journal keeps; 0
	// means DefaultJournalSize, a negative value keeps none.
	JournalSize int
	// JournalBytes bounds the request and response bodies all journals
	// keep together; beyond it, new entries are kept without bodies. 0
	// means DefaultJournalBytes.
	JournalBytes int64
	// JournalEntries bounds the entries all journals keep together; beyond
	// it, the oldest entry of any session goes. 0 means
	// DefaultJournalEntries.
	JournalEntries int
	// MaxSessions bounds the sessions kept; a new session over it evicts
	// the least recently used one (never the default session). 0 means
	// DefaultMaxSessions.
	MaxSessions int
	// SessionTTL is how long an unused session lives; 0 means
	// DefaultSessionTTL. The default session never expires.
	SessionTTL time.Duration
	// ReadOnly makes a demo: PATCH and every admin write answer 403.
	ReadOnly bool
	// Version is reported by /__mock/health.
	Version string
	// Logger receives the server's logs; nil discards them.
	Logger *slog.Logger
	// Now tells the time; nil means time.Now.
	Now func() time.Time
}

// Defaults of the limits in Options.
const (
	DefaultJournalBytes   = 128 << 20
	DefaultJournalEntries = 50_000
	DefaultMaxSessions    = 1000
	DefaultSessionTTL     = time.Hour
)

// Server is the fake service. It is an http.Handler and owns no listener:
// wrap it in an http.Server or httptest.NewServer. Two Servers share no state.
//
// Locks: sessionsMu and journalMu may be held while a session's own mu is
// taken, never the other way round; scenariosMu and faultsMu are never
// held while taking another of these (Reload holds scenariosMu while the
// loader's cache takes its own lock, which guards nothing else).
type Server struct {
	// Set by New and never changed.
	log         *slog.Logger
	now         func() time.Time
	loader      *loader
	router      *mux.Router // admin routes, and the API's 404s and 405s
	api         apiTable    // the API's operations, by exact path and method
	allow       allowTable
	adminToken  string
	corsOrigins []string
	readOnly    bool
	version     string
	started     time.Time
	metrics     *metrics
	reqSeq      atomic.Int64 // numbers the request ids the server makes

	// The scenarios served (registry.go).
	scenariosMu sync.Mutex // guards the fields below
	scenarios   map[string]*Scenario
	sources     map[string][]byte // the bytes each serving scenario was built from
	seen        map[string][]byte // the bytes at the last reload, to notice changes
	active      string            // the scenario of sessions that picked none

	// Sessions (sessions.go).
	sessionsMu  sync.Mutex // guards sessions and each session's lastUsed
	sessions    map[string]*session
	maxSessions int
	sessionTTL  time.Duration

	// Run-time faults and overrides, for every session (faults.go, access.go).
	faultsMu  sync.Mutex // guards the fields below
	faults    []*Fault   // replaced, never changed in place
	faultSeq  int
	overrides Overrides

	// The journals of all sessions together (journal.go).
	journalMu   sync.Mutex   // guards seq and order
	seq         int64        // the last journal sequence number
	order       journalOrder // which session holds each entry, oldest first
	journalSize int          // entries per session's journal
	journalMax  int64        // bytes all journals keep together
	journalUsed atomic.Int64 // bytes all journals keep now
}

// New loads and validates every scenario, builds the active one's data,
// and returns the server. A bad scenario or fixture fails here, with file,
// line and field.
func New(opts Options) (*Server, error) {
	opts = opts.withDefaults()
	s := &Server{
		log:         opts.Logger,
		now:         opts.Now,
		loader:      newLoader(opts),
		adminToken:  opts.AdminToken,
		corsOrigins: opts.CORSOrigins,
		readOnly:    opts.ReadOnly,
		version:     opts.Version,
		started:     opts.Now(),
		metrics:     newMetrics(),
		sessions:    make(map[string]*session),
		maxSessions: opts.MaxSessions,
		sessionTTL:  opts.SessionTTL,
		order:       journalOrder{ring: make([]orderItem, opts.JournalEntries)},
		journalSize: opts.JournalSize,
		journalMax:  opts.JournalBytes,
	}
	scs, sources, err := s.loader.loadAll()
	if err != nil {
		return nil, err
	}
	sc, ok := scs[opts.Scenario]
	if !ok {
		return nil, s.loader.notFound(opts.Scenario)
	}
	s.scenarios, s.sources, s.active = scs, sources, opts.Scenario
	if _, err := sc.store(); err != nil { // build the served data now, not on the first request
		return nil, err
	}
	s.router = s.routes()
	return s, nil
}

// withDefaults fills the zero fields of opts; it is the one place defaults live.
func (opts Options) withDefaults() Options {
	if opts.Scenario == "" {
		opts.Scenario = "default"
	}
	if opts.Scenarios == nil {
		opts.Scenarios = scenarios.FS
	}
	if opts.Fixtures == nil {
		opts.Fixtures = fixtures.FS
	}
	if opts.JournalSize == 0 {
		opts.JournalSize = DefaultJournalSize
	}
	if opts.JournalBytes == 0 {
		opts.JournalBytes = DefaultJournalBytes
	}
	if opts.JournalEntries <= 0 {
		opts.JournalEntries = DefaultJournalEntries
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	if opts.SessionTTL <= 0 {
		opts.SessionTTL = DefaultSessionTTL
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return opts
}

// APIHandler serves the API and /__mock/health but not the rest of the
// admin API, for a public listener when the admin API has a listener of
// its own (replymock --admin-addr).
func (s *Server) APIHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, AdminPrefix+"/") && r.URL.Path != AdminPrefix+"/health" {
			s.handleNotFound(w, r)
			return
		}
		s.ServeHTTP(w, r)
	})
}

// ServeHTTP implements http.Handler. A panic in a handler is logged and
// answered with a 500 in the envelope, if nothing was sent yet.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer s.recoverPanic(w, r)
	x := new(exchange)
	x.id[0] = s.requestID(r)
	w.Header()[HeaderRequestID] = x.id[:]
	if s.cors(w, r) {
		return
	}
	if strings.HasPrefix(r.URL.Path, APIPrefix+"/") || r.URL.Path == APIPrefix {
		s.serveAPI(w, r, x)
		return
	}
	start := time.Now()
	rec := &x.rec
	rec.ResponseWriter = w
	s.router.ServeHTTP(rec, r)
	level := slog.LevelInfo
	if r.URL.Path == AdminPrefix+"/health" || r.Method == http.MethodGet && r.URL.Path == AdminPrefix+"/requests" {
		level = slog.LevelDebug // health checks and journal polling would drown the rest
	}
	s.log.LogAttrs(r.Context(), level, "admin request", slog.String("method", r.Method), slog.String("path", r.URL.Path),
		slog.Int("status", rec.status), slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
		slog.String("request_id", x.id[0]))
}

// HeaderRequestID names a request; a client's own value is kept, else the
// server makes one. It is in every answer and journal entry.
const HeaderRequestID = "X-Request-Id"

// requestID returns the request's X-Request-Id, or a new one.
func (s *Server) requestID(r *http.Request) string {
	if id := r.Header.Get(HeaderRequestID); validID(id) {
		return id
	}
	var b [24]byte
	return string(strconv.AppendInt(append(b[:0], "rm-"...), s.reqSeq.Add(1), 10))
}
