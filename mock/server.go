package mock

import (
	"io/fs"
	"log/slog"
	"net/http"
	"sync"
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
	// Seed, when not 0, replaces the scenario's seed for generated data.
	Seed int64
	// Logger receives the server's logs; nil discards them.
	Logger *slog.Logger
	// Now tells the time; nil means time.Now.
	Now func() time.Time
}

// Server is the fake service. It is an http.Handler and owns no listener:
// wrap it in an http.Server or httptest.NewServer. Two Servers share no state.
type Server struct {
	log      *slog.Logger
	now      func() time.Time
	router   *mux.Router
	scenario *Scenario
	def      *session
}

// New loads and validates the scenario and builds its data. A bad
// scenario or fixture fails here, with file, line and field.
func New(opts Options) (*Server, error) {
	opts = opts.withDefaults()
	sc, err := opts.loader().load(opts.Scenario)
	if err != nil {
		return nil, err
	}
	s := &Server{log: opts.Logger, now: opts.Now, scenario: sc, def: newSession(sc)}
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
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return opts
}

func (opts Options) loader() *loader {
	return &loader{scenarios: opts.Scenarios, fixtures: opts.Fixtures, seed: opts.Seed}
}

// Scenario returns the scenario the server serves.
func (s *Server) Scenario() *Scenario { return s.scenario }

// Len is the number of reviews in the scenario's data.
func (sc *Scenario) Len() int { return len(sc.store.records) }

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.router.ServeHTTP(w, r)
}

// session is one caller's mutable state on top of the scenario's data.
type session struct {
	mu       sync.Mutex // guards settings
	settings Settings
}

func newSession(sc *Scenario) *session {
	return &session{settings: sc.settings}
}

// session returns the state a request works on.
func (s *Server) session(*http.Request) *session { return s.def }

func (ss *session) getSettings() Settings {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.settings
}

// patchSettings applies p atomically: on error nothing changes.
func (ss *session) patchSettings(p *settingsPatch) (Settings, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	next, err := p.apply(ss.settings)
	if err != nil {
		return ss.settings, err
	}
	ss.settings = next
	return next, nil
}
