package mock

import (
	"cmp"
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
	"github.com/replymock/replymock/mock/internal/mcp"
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
	// Scenarios holds NAME.yaml scenario files; nil means the shipped
	// ones, which it replaces unless ShippedScenarios. For a folder, give
	// an os.Root's fs.FS: os.DirFS follows symlinks out of the folder.
	// Files that are not regular are skipped with a warning.
	Scenarios fs.FS
	// ScenariosDir names the Scenarios folder in problems and logs, as
	// its user knows it (--scenarios DIR); "" is "scenarios".
	ScenariosDir string
	// ShippedScenarios serves the shipped scenarios besides those in
	// Scenarios, where a file replaces the shipped scenario of its name.
	ShippedScenarios bool
	// Fixtures holds the files scenarios refer to (settings/, reviews/,
	// phrases/), as Scenarios holds scenarios.
	Fixtures fs.FS
	// FixturesDir names the Fixtures folder, as ScenariosDir does; "" is
	// "fixtures".
	FixturesDir string
	// ShippedFixtures looks up in the shipped fixtures what Fixtures
	// does not hold.
	ShippedFixtures bool
	// Seed, when not 0, replaces every scenario's seed for generated data.
	Seed int64
	// AdminToken, when set, is required by every /__mock/ route but health.
	AdminToken string
	// CORSOrigins lists the browser origins that may call the server
	// besides local dev origins and its own: exact origins or path.Match
	// patterns (https://*.example.test). "*" opens the API, never the
	// admin API, to any origin. A page whose origin may not call the
	// server is refused with 403, whatever its method.
	CORSOrigins []string
	// AllowedHosts guards against DNS rebinding: a Host header must name
	// localhost, an IP address, a single-label name (a compose or
	// Kubernetes service) or one of these (exact hosts or path.Match
	// patterns; "*" allows any), or the request answers 403.
	AllowedHosts []string
	// JournalSize is how many requests each session's journal keeps; 0
	// means DefaultJournalSize, a negative value keeps none.
	JournalSize int
	// JournalBytes and JournalEntries bound what all journals keep
	// together; past either, the oldest entries of any session go. 0
	// means DefaultJournalBytes and DefaultJournalEntries.
	JournalBytes   int64
	JournalEntries int
	// Redact names headers and query parameters the journal shows
	// redacted, besides those that carry credentials (Authorization,
	// X-Api-Key, access_token, ...: see journal.Redactor).
	Redact []string
	// MaxSessions bounds the sessions kept; past it, the least recently
	// used one goes (never the default session). 0 means
	// DefaultMaxSessions.
	MaxSessions int
	// SessionTTL is how long an unused session lives; 0 means
	// DefaultSessionTTL. The default session never expires.
	SessionTTL time.Duration
	// MaxShopBytes bounds what all living shops keep together; past it,
	// the least recently used one goes back to its start. 0 means
	// DefaultMaxShopBytes.
	MaxShopBytes int64
	// MaxSeedBytes bounds what all seeded reviews keep together; past
	// it, seeding answers 409 too_many_reviews. 0 means
	// DefaultMaxSeedBytes.
	MaxSeedBytes int64
	// ReadOnly makes a demo nobody can change: the settings PATCH and
	// every admin write answer 403. A living shop goes on.
	ReadOnly bool
	// NewSessionsPerMinute bounds the sessions one client (an address;
	// an IPv6 one by its /64) may start a minute on a public listener
	// (APIHandler); past it, 429. 0 means DefaultNewSessionsPerMinute, a
	// negative value bounds none.
	NewSessionsPerMinute int
	// PublicScenarios are the scenarios X-Mock-Scenario may name on a
	// public listener; others answer 403. Empty means those whose data
	// is built already, so that a visitor cannot make the server build
	// one (big-shop's is 325 MB). "*" opens every scenario.
	PublicScenarios []string
	// Strict answers an API request with warnings (X-Mock-Warning) with
	// a 400 invalid_parameter. A scenario's strict key and the overrides
	// win over it.
	Strict bool
	// Proxy, when set, is the base URL of the real service, where API
	// requests replymock has no operation for go (a scenario's proxy key
	// wins).
	Proxy string
	// ProxyTimeout bounds the wait for the upstream's answer; 0 means
	// DefaultProxyTimeout.
	ProxyTimeout time.Duration
	// PublicURL is the base of the media URLs in review records: where
	// clients reach this server. Empty means DefaultPublicURL.
	PublicURL string
	// Prober, when set, gives the MCP server its probe tool (replymock
	// mcp and serve set it to the probe's Run).
	Prober Prober
	// Version is reported by /__mock/health.
	Version string
	// Logger receives the server's logs; nil discards them.
	Logger *slog.Logger
	// Now tells the time; nil means time.Now.
	Now func() time.Time
	// DataAnchor, when set, is the present that generated data ending
	// now is anchored to, instead of Now's: a server restarted from a
	// state folder (StateDir.Anchor) serves the data it served before.
	DataAnchor time.Time
	// Store is where the state is kept: "" or "memory" (this process
	// only), or a Redis URL, redis://[user:password@]host:port/db or
	// rediss://: every server started with the same store and scenarios
	// shares one state. New waits until the store answers.
	Store string
	// MaxStoreBytes bounds what the sessions keep together in a shared
	// store; past it, the least recently used sessions go, and a write
	// that would make one session keep more alone answers 413. 0 means
	// DefaultMaxStoreBytes.
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
// wrap it in an http.Server or httptest.NewServer. Two Servers share no
// state. What the API and the admin API share is package shared's.
type Server struct {
	// Set by New and never changed.
	log    *slog.Logger
	router *mux.Router // admin routes, and the API's 404s and 405s
	api    *api.API
	admin  *admin.Admin
	allow  allowTable
	guard  *access.Guard
	anchor time.Time    // the present data that ends now was anchored to at the start
	reqSeq atomic.Int64 // numbers the request ids the server makes

	st    *shared.State
	snaps *snapshot.Keeper
	fleet *fleet.Store                       // nil in memory
	mcp   func() (*mcp.Server, http.Handler) // made on first use
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
		guard: access.NewGuard(opts.CORSOrigins, opts.AllowedHosts),
	}
	s.mcp = s.newMCP(opts.Prober)
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
		Version: opts.Version, Started: started, Metrics: s.api.Registry(), Snapshots: s.snaps, Store: s.storeHealth, Proxied: opts.Proxy != ""})
	s.router = s.routes()
	if s.fleet != nil {
		s.fleet.Attach(context.Background(), s.snaps, s.anchor)
		s.st.Journals().SetShared(s.fleet.Journal())
	}
	return s, nil
}

// checked is opts with its zero fields filled (the one place defaults
// live) and its URLs checked.
func (opts Options) checked() (Options, error) {
	opts.Scenario = cmp.Or(opts.Scenario, "default")
	opts.JournalSize = cmp.Or(opts.JournalSize, DefaultJournalSize)
	opts.JournalBytes = cmp.Or(opts.JournalBytes, DefaultJournalBytes)
	opts.NewSessionsPerMinute = cmp.Or(opts.NewSessionsPerMinute, DefaultNewSessionsPerMinute)
	opts.Logger = cmp.Or(opts.Logger, slog.New(slog.DiscardHandler))
	opts.PublicURL = cmp.Or(opts.PublicURL, DefaultPublicURL)
	positiveOr(&opts.JournalEntries, DefaultJournalEntries)
	positiveOr(&opts.MaxSessions, DefaultMaxSessions)
	positiveOr(&opts.SessionTTL, DefaultSessionTTL)
	positiveOr(&opts.MaxShopBytes, DefaultMaxShopBytes)
	positiveOr(&opts.MaxSeedBytes, DefaultMaxSeedBytes)
	positiveOr(&opts.ProxyTimeout, DefaultProxyTimeout)
	if opts.Now == nil {
		opts.Now = time.Now
	}
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

// positiveOr sets *v to def unless *v is above 0.
func positiveOr[T int | int64 | time.Duration](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

// APIHandler serves the API, /__mock/health and the media files, for a
// public listener when the admin API has its own (--admin-addr). Its
// clients are visitors, bound by Options.NewSessionsPerMinute and
// Options.PublicScenarios.
func (s *Server) APIHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, AdminPrefix+"/") && r.URL.Path != AdminPrefix+"/health" && !media.IsPath(r.URL.Path) {
			s.handleNotFound(w, r)
			return
		}
		s.serve(w, r, true)
	})
}

// AdminHandler serves everything under /__mock and nothing else, for the
// admin API's own listener (--admin-addr). The API answers 404 here,
// saying where it is, and the root leads to the page.
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

// serveHere serves a request from this process's state.
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
