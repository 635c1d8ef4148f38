package mock

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/admin"
	"github.com/replymock/replymock/mock/internal/api"
	"github.com/replymock/replymock/mock/internal/fleet"
	"github.com/replymock/replymock/mock/internal/journal"
	"github.com/replymock/replymock/mock/internal/media"
	"github.com/replymock/replymock/mock/internal/proxy"
	"github.com/replymock/replymock/mock/internal/scenario"
	"github.com/replymock/replymock/mock/internal/shared"
	"github.com/replymock/replymock/mock/internal/snapshot"
)

// Options configures a Server. The zero value serves the embedded default
// scenario with its own seed and logs nothing.
type Options struct {
	// Scenario is the name of the scenario to serve; "" means "default".
	Scenario string
	// Scenarios holds NAME.yaml scenario files; nil means the embedded
	// (shipped) ones. Given, it replaces them, unless ShippedScenarios.
	// For a folder, give the fs.FS of an os.Root (os.DirFS follows
	// symlinks out of the folder). Only regular files are opened; others
	// are skipped with a warning.
	Scenarios fs.FS
	// ScenariosDir names the Scenarios folder in problems and logs, as
	// its user knows it (the command line's --scenarios DIR); "" is
	// "scenarios". The shipped files are named "(shipped) scenarios/NAME.yaml".
	ScenariosDir string
	// ShippedScenarios serves the shipped scenarios as well as those in
	// Scenarios: a file there adds a scenario, or replaces the shipped
	// one of its name (and a scenario that extends that name, shipped or
	// not, extends the replacement).
	ShippedScenarios bool
	// Fixtures holds the files scenarios refer to (settings/, reviews/,
	// phrases/); nil means the embedded ones. Given, it replaces them,
	// unless ShippedFixtures. As with Scenarios, prefer an os.Root's
	// fs.FS for a folder.
	Fixtures fs.FS
	// FixturesDir names the Fixtures folder in problems, as ScenariosDir
	// does; "" is "fixtures".
	FixturesDir string
	// ShippedFixtures looks a fixture up in the shipped ones when
	// Fixtures does not hold it.
	ShippedFixtures bool
	// Seed, when not 0, replaces every scenario's seed for generated data.
	Seed int64
	// AdminToken, when set, is required by every /__mock/ route but health.
	AdminToken string
	// CORSOrigins lists the browser origins that may call the server
	// besides local dev origins (http or https on localhost, a .localhost
	// name or a loopback address, any port) and the server's own: exact
	// origins or path.Match patterns (https://*.example.test). "*" in it
	// allows any origin to call the API; the admin API (/__mock/) is never
	// opened to "*" nor to "null". A request from a page whose origin may
	// not call it is refused with 403, whatever its method; so is one
	// without Origin that its browser says comes from another site
	// (Sec-Fetch-Site), but a link followed to the API or the panel.
	CORSOrigins []string
	// AllowedHosts guards against DNS rebinding: a request must name in
	// its Host header localhost, a .localhost name, an IP address, a
	// single-label name (a compose or Kubernetes service, such as
	// replymock), or one of these (exact hosts or path.Match patterns
	// such as *.example.test; "*" allows any); others answer 403, whatever
	// address the request arrived on. A request that came over no
	// connection (a test's httptest.NewRecorder) is not checked.
	AllowedHosts []string
	// JournalSize is how many requests each session's journal keeps; 0
	// means DefaultJournalSize, a negative value keeps none.
	JournalSize int
	// JournalBytes bounds what all journals keep together: each entry's
	// method, path, query, headers, bodies and a fixed overhead; beyond
	// it, the oldest entries of any session go. 0 means
	// DefaultJournalBytes.
	JournalBytes int64
	// JournalEntries bounds the entries all journals keep together; beyond
	// it, the oldest entry of any session goes. 0 means
	// DefaultJournalEntries.
	JournalEntries int
	// Redact names headers and query parameters the journal shows
	// redacted (and patterns match so), besides those whose names say
	// they carry credentials (Authorization, X-Api-Key, access_token,
	// ...: see journal.Redactor); in any case, '-', '_' and '.' aside.
	Redact []string
	// MaxSessions bounds the sessions kept; a new session over it evicts
	// the least recently used one (never the default session). 0 means
	// DefaultMaxSessions.
	MaxSessions int
	// SessionTTL is how long an unused session lives; 0 means
	// DefaultSessionTTL. The default session never expires.
	SessionTTL time.Duration
	// MaxShopBytes bounds the memory all living shops' sessions keep
	// together; past it, the least recently used shop session goes back to
	// its scenario's start. 0 means DefaultMaxShopBytes.
	MaxShopBytes int64
	// MaxSeedBytes bounds the memory all sessions' seeded reviews (PUT
	// /__mock/data) keep together; past it, seeding more is refused with
	// 409 too_many_reviews. 0 means DefaultMaxSeedBytes.
	MaxSeedBytes int64
	// ReadOnly makes a demo nobody can change: the settings PATCH and
	// every admin write answer 403. Reads are served, and a living shop
	// goes on: its clock runs, reviews arrive and get their replies as
	// its settings say.
	ReadOnly bool
	// NewSessionsPerMinute bounds the sessions one client (a remote
	// address; an IPv6 one by its /64) may start a minute on a public
	// listener (APIHandler), as a burst or spread out: past it, a request
	// with a new X-Mock-Session answers 429 rate_limited with
	// Retry-After. 0 means DefaultNewSessionsPerMinute; a negative value
	// bounds none.
	NewSessionsPerMinute int
	// PublicScenarios are the scenarios X-Mock-Scenario may name on a
	// public listener (APIHandler); others answer 403 forbidden. Empty
	// means those whose data is built already (the active one, and
	// those picked or used through the admin API or the full handler):
	// a visitor cannot make the server build one (big-shop's is 325 MB).
	// "*" in it opens every scenario.
	PublicScenarios []string
	// Strict answers an API request with warnings (unknown parameters,
	// the upstream's names, ...: see X-Mock-Warning) with a 400
	// invalid_parameter naming the first, instead of letting it through.
	// A scenario's strict key and the overrides win over it.
	Strict bool
	// Proxy, when set, is the base URL of the real service: API requests
	// replymock has no operation for go there (with the caller's headers
	// but the X-Mock- ones), unless the scenario names its own (scenario
	// key proxy). Off by default.
	Proxy string
	// ProxyTimeout bounds the wait for the upstream's answer; 0 means
	// DefaultProxyTimeout.
	ProxyTimeout time.Duration
	// PublicURL is the base of the media URLs in review records (photos,
	// video previews and playlists, served under MediaPrefix): where
	// clients reach this server, such as http://localhost:18080 behind a
	// port mapping. Empty means DefaultPublicURL; see ParsePublicURL.
	PublicURL string
	// Version is reported by /__mock/health.
	Version string
	// Logger receives the server's logs; nil discards them.
	Logger *slog.Logger
	// Now tells the time; nil means time.Now.
	Now func() time.Time
	// DataAnchor, when set, is the present that generated data ending
	// now (generate.end: now) is anchored to at the start, instead of
	// Now's: a server restarted from a state folder (StateDir.Anchor)
	// serves the data it served before, and its sessions' living shops
	// come back as they were.
	DataAnchor time.Time
	// Store is where the sessions and the server's own state are kept:
	// "" or "memory" (this process only), or a Redis URL,
	// redis://[user:password@]host:port/db or rediss://... (TLS): every
	// server started with the same store and scenarios is one fleet
	// that shares one state, whichever replica answers (see Store in
	// store.go). New waits until the store answers, saying so in the
	// log; its password is never shown.
	Store string
	// MaxStoreBytes bounds what the sessions' state keeps together in a
	// shared store (Store a Redis URL): past it, the least recently used
	// sessions go from the fleet (never the default session); a write
	// that would make one session, with the default session, keep more
	// alone is refused with 413 payload_too_large, changing nothing.
	// 0 means DefaultMaxStoreBytes.
	MaxStoreBytes int64
}

// Defaults of the limits in Options.
const (
	DefaultJournalBytes   = 128 << 20
	DefaultJournalEntries = 50_000
	DefaultMaxSessions    = 1000
	DefaultSessionTTL     = time.Hour
	DefaultMaxShopBytes   = 1 << 30
	DefaultMaxSeedBytes   = 512 << 20
	DefaultMaxStoreBytes  = fleet.DefaultMaxBytes
	// DefaultNewSessionsPerMinute lets a visitor reload a page that
	// starts a session many times a minute, and a classroom behind one
	// address start a session each, while a client alone takes a quarter
	// of an hour or more to cycle DefaultMaxSessions.
	DefaultNewSessionsPerMinute = 60
)

// Server is the fake service. It is an http.Handler and owns no listener:
// wrap it in an http.Server or httptest.NewServer. Two Servers share no state.
//
// What the API and the admin API share (the scenarios, the sessions, the
// run-time faults, the overrides, the journals and the budgets) is
// package shared's, with the order its locks are taken in.
type Server struct {
	// Set by New and never changed.
	log    *slog.Logger
	now    func() time.Time
	router *mux.Router  // admin routes, and the API's 404s and 405s
	api    *api.API     // the API (mock/internal/api)
	admin  *admin.Admin // the admin API (mock/internal/admin)
	allow  allowTable
	guard  *access.Guard // the origins and Host names the server answers
	anchor time.Time     // the present data that ends now was anchored to at the start
	reqSeq atomic.Int64  // numbers the request ids the server makes

	st    *shared.State    // the scenarios, sessions, faults, overrides, journals and budgets
	snaps *snapshot.Keeper // the sessions' snapshots, taken and restored, and their turns
	fleet *fleet.Store     // the state shared through Redis (Options.Store); nil in memory
}

// New loads and validates every scenario, builds the active one's data,
// and returns the server. A bad scenario or fixture fails here, with file,
// line and field.
func New(opts Options) (*Server, error) {
	opts, err := opts.checked()
	if err != nil {
		return nil, err
	}
	redactor, err := journal.NewRedactor(opts.Redact)
	if err != nil {
		return nil, fmt.Errorf("redact: %w", err)
	}
	s := &Server{
		log:   opts.Logger,
		now:   opts.Now,
		guard: access.NewGuard(opts.CORSOrigins, opts.AllowedHosts),
	}
	started := opts.Now()
	if s.fleet, err = openStore(opts); err != nil {
		return nil, err
	}
	if s.fleet != nil && opts.DataAnchor.IsZero() {
		// Every replica serves the same data: the fleet's anchor.
		if opts.DataAnchor, err = s.fleet.Anchor(context.Background(), opts.Now()); err != nil {
			s.fleet.Close()
			return nil, fmt.Errorf("store: %w", err)
		}
	}
	s.anchor = opts.DataAnchor
	if s.anchor.IsZero() {
		s.anchor = opts.Now().UTC().Truncate(time.Second)
	}
	registry, err := scenario.Load(scenario.NewLoader(loaderConfig(opts)), s.anchor, opts.Scenario)
	if err != nil {
		s.Close()
		return nil, err
	}
	for _, name := range opts.PublicScenarios {
		if _, _, ok := registry.Get(name); !ok && name != "*" {
			s.Close()
			return nil, fmt.Errorf("public scenarios: no scenario %q", name)
		}
	}
	s.st = shared.New(shared.Config{Log: opts.Logger, Now: opts.Now, Registry: registry,
		MaxSessions: opts.MaxSessions, SessionTTL: opts.SessionTTL, MaxShopBytes: opts.MaxShopBytes, MaxSeedBytes: opts.MaxSeedBytes,
		JournalSize: opts.JournalSize, JournalBytes: opts.JournalBytes, JournalEntries: opts.JournalEntries,
		Visitors: shared.Visitors{NewSessions: max(opts.NewSessionsPerMinute, 0), Scenarios: opts.PublicScenarios}})
	s.st.Journals().SetRedactor(redactor)
	s.snaps = snapshot.NewKeeper(s.st, opts.Now, opts.Version)
	s.api = api.New(api.Config{Log: opts.Logger, Now: opts.Now, State: s.st, Strict: opts.Strict, ReadOnly: opts.ReadOnly,
		Proxies:  proxy.NewPool(opts.Proxy, opts.ProxyTimeout, opts.AdminToken, opts.Logger),
		Fallback: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.router.ServeHTTP(w, r) })})
	s.st.Budgets().Register(s.api.Registry())
	journals, shops := s.st.Journals(), s.st.Shops()
	s.api.Registry().MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "replymock_journal_waiters",
			Help: "Admin requests waiting on the journal (wait=), at most 256."},
			func() float64 { return float64(journals.Waiters()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "replymock_shop_evictions_total",
			Help: "Living shops evicted to keep within --max-shop-memory."},
			func() float64 { return float64(shops.Evictions()) }))
	s.admin = admin.New(admin.Config{Log: opts.Logger, Now: opts.Now, State: s.st, Token: opts.AdminToken, ReadOnly: opts.ReadOnly,
		Version: opts.Version, Started: started, Metrics: s.api.Registry(), Snapshots: s.snaps, Store: s.storeHealth})
	s.router = s.routes()
	if s.fleet != nil {
		s.fleet.Attach(context.Background(), s.snaps, s.anchor)
		s.st.Journals().SetShared(s.fleet.Journal())
	}
	return s, nil
}

// checked is opts with its defaults, and its public URL checked and
// normalized.
func (opts Options) checked() (Options, error) {
	opts = opts.withDefaults()
	pub, err := ParsePublicURL(opts.PublicURL)
	if err != nil {
		return opts, fmt.Errorf("public URL: %w", err)
	}
	opts.PublicURL = pub
	if opts.Proxy != "" {
		if _, err := ParseProxyURL(opts.Proxy); err != nil {
			return opts, fmt.Errorf("proxy: %w", err)
		}
	}
	return opts, nil
}

// withDefaults fills the zero fields of opts; it is the one place defaults live.
func (opts Options) withDefaults() Options {
	if opts.Scenario == "" {
		opts.Scenario = "default"
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
	if opts.MaxShopBytes <= 0 {
		opts.MaxShopBytes = DefaultMaxShopBytes
	}
	if opts.MaxSeedBytes <= 0 {
		opts.MaxSeedBytes = DefaultMaxSeedBytes
	}
	if opts.NewSessionsPerMinute == 0 {
		opts.NewSessionsPerMinute = DefaultNewSessionsPerMinute
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.PublicURL == "" {
		opts.PublicURL = DefaultPublicURL
	}
	if opts.ProxyTimeout <= 0 {
		opts.ProxyTimeout = DefaultProxyTimeout
	}
	return opts
}

// APIHandler serves the API, /__mock/health and the media files but not
// the rest of the admin API, for a public listener when the admin API has
// a listener of its own (replymock --admin-addr). Its clients are
// visitors: each may start Options.NewSessionsPerMinute sessions a
// minute, and name in X-Mock-Scenario only Options.PublicScenarios.
func (s *Server) APIHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, AdminPrefix+"/") && r.URL.Path != AdminPrefix+"/health" && !media.IsPath(r.URL.Path) {
			s.handleNotFound(w, r)
			return
		}
		s.serve(w, r, true)
	})
}

// AdminHandler serves the admin API, its page and documents, health and
// the media files: everything under /__mock and nothing else, for the
// admin API's own listener (replymock --admin-addr). The API is the
// public listener's (APIHandler): here it answers 404 saying so, and the
// root leads to the page.
func (s *Server) AdminHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == AdminPrefix || strings.HasPrefix(r.URL.Path, AdminPrefix+"/"):
			s.serve(w, r, false)
		case r.URL.Path == "/" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
			http.Redirect(w, r, AdminPrefix+"/", http.StatusFound)
		default:
			s.writeError(w, r, &APIError{Status: http.StatusNotFound, Code: CodeNotFound,
				Message: "no such path on the admin listener: " + r.URL.Path + "; it serves " + AdminPrefix + "/ only, the API is on the main listener (--addr)"})
		}
	})
}

// ServeHTTP implements http.Handler. A panic in a handler is logged and
// answered with a 500 in the envelope, if nothing was sent yet.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.serve(w, r, false) }

// serve is ServeHTTP; public for a request on a public listener
// (APIHandler).
func (s *Server) serve(w http.ResponseWriter, r *http.Request, public bool) {
	defer api.Recover(s.log, w, r)
	x := new(api.Exchange)
	x.ID[0] = s.requestID(r)
	x.Public = public
	w.Header()[HeaderRequestID] = x.ID[:]
	if s.guarded(w, r) {
		return
	}
	isAPI := strings.HasPrefix(r.URL.Path, APIPrefix+"/") || r.URL.Path == APIPrefix
	if s.fleet != nil {
		if sid, write, ok := s.sharedScope(r, isAPI); ok {
			err := s.fleet.Serve(w, r, sid, write, func() { s.serveHere(w, r, x, isAPI) })
			if err != nil {
				s.writeError(w, r, err)
			}
			return
		}
	}
	s.serveHere(w, r, x, isAPI)
}

// serveHere serves a request from this process's state: an API request
// through api.Serve, any other through the router.
func (s *Server) serveHere(w http.ResponseWriter, r *http.Request, x *api.Exchange, isAPI bool) {
	if isAPI {
		s.api.Serve(w, r, x)
		return
	}
	start := time.Now()
	s.router.ServeHTTP(x.Watch(w), r)
	level := slog.LevelInfo
	if r.URL.Path == AdminPrefix+"/health" || r.Method == http.MethodGet && r.URL.Path == AdminPrefix+"/requests" || media.IsPath(r.URL.Path) {
		level = slog.LevelDebug // health checks, journal polling and a page's images would drown the rest
	}
	s.log.LogAttrs(r.Context(), level, "admin request", slog.String("method", r.Method), slog.String("path", r.URL.Path),
		slog.Int("status", x.Status()), slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
		slog.String("request_id", x.ID[0]))
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

// MemoryBudget is what the server's bounded stores may keep together at
// most: the journals, the living shops, the seeded reviews and the
// run-time faults. The scenarios' data comes on top.
func (s *Server) MemoryBudget() int64 {
	return s.st.Budgets().Max()
}
