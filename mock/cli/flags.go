package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/replymock/replymock/mock"
)

// config is everything the flags and environment set.
type config struct {
	addr         string
	scenario     string
	scenarios    string
	scenOnly     bool // --scenarios-only: the folder replaces the shipped scenarios
	fixtures     string
	seed         int64
	logFormat    string
	logLevel     string
	adminToken   string
	journal      int
	redact       names // --redact, and REPLYMOCK_REDACT's
	corsOrigins  string
	allowedHosts string
	maxConns     int
	maxShop      byteSize
	tuneGC       bool // GOGC is not set: collect less often while building data
	memLimit     bool // GOMEMLIMIT is not set: set a soft limit from the budgets
	adminAddr    string
	readOnly     bool
	strict       bool
	maxSessions  int
	sessionTTL   time.Duration
	publicURL    string
	now          string
	proxy        string
	stateDir     string
	store        string
	stateEvery   time.Duration
	stdinClose   bool // --exit-on-stdin-close
	maxState     byteSize
	maxStore     byteSize
	newSessions  int    // --max-new-sessions: a minute per client on the public listener; 0 bounds none
	publicScen   string // --public-scenarios
	timeouts     timeouts
	showVersion  *bool            // --version
	mcpURL       string           // replymock mcp --url
	clock        func() time.Time // --now's clock; nil for the real one
}

// flagSet defines the server's flags on cfg, each set to its default,
// and returns the set of those the command cmd takes, its usage printed
// on out.
func (cfg *config) flagSet(cmd string, out io.Writer) *flag.FlagSet {
	c, ok := commandNamed(cmd)
	if !ok {
		c = commands[0]
	}
	name := "replymock"
	if cmd != "serve" {
		name += " " + cmd
	}
	fsys := flag.NewFlagSet(name, flag.ContinueOnError)
	fsys.StringVar(&cfg.addr, "addr", "127.0.0.1:8080", "listen address; the default serves this machine only, :8080 every interface (env REPLYMOCK_ADDR)")
	fsys.StringVar(&cfg.scenario, "scenario", "default", "scenario to serve (env REPLYMOCK_SCENARIO)")
	fsys.StringVar(&cfg.scenarios, "scenarios", "", "folder of NAME.yaml scenarios added to the shipped ones, replacing those of the same names (env REPLYMOCK_SCENARIOS)")
	fsys.BoolVar(&cfg.scenOnly, "scenarios-only", false, "serve only the --scenarios folder's scenarios, none of the shipped ones (env REPLYMOCK_SCENARIOS_ONLY)")
	fsys.StringVar(&cfg.fixtures, "fixtures", "", "folder of fixtures added to the shipped ones, replacing those of the same paths (env REPLYMOCK_FIXTURES)")
	fsys.Int64Var(&cfg.seed, "seed", 0, "seed for generated data, overriding the scenario's; 0 keeps it (env REPLYMOCK_SEED)")
	fsys.StringVar(&cfg.logFormat, "log-format", "text", "log format: text or json (env REPLYMOCK_LOG_FORMAT)")
	fsys.StringVar(&cfg.logLevel, "log-level", "info", "debug, info (a line per request), warn or error (env REPLYMOCK_LOG_LEVEL)")
	cfg.showVersion = fsys.Bool("version", false, "print the version and exit")
	fsys.StringVar(&cfg.adminToken, "admin-token", "", "token required by the /__mock/ admin routes but health (env REPLYMOCK_ADMIN_TOKEN)")
	fsys.StringVar(&cfg.corsOrigins, "cors-origins", "", "comma-separated browser origins allowed to call the API and the admin API besides local dev origins (localhost, 127.0.0.1, [::1], any port) and the server's own page, e.g. https://app.test,http://*.local:*; * allows any to call the API only (env REPLYMOCK_CORS_ORIGINS)")
	fsys.StringVar(&cfg.allowedHosts, "allowed-hosts", "", "comma-separated Host names served besides localhost, IP addresses and single-label names (a compose or Kubernetes service), e.g. demo.example.test,*.preview.test; requests naming others are refused against DNS rebinding; * allows any (env REPLYMOCK_ALLOWED_HOSTS)")
	fsys.IntVar(&cfg.maxConns, "max-conns", defaultMaxConns, "open connections per listener, three quarters at most from one client; at the cap, the longest idle keep-alive is closed for a new one (env REPLYMOCK_MAX_CONNS)")
	cfg.maxShop = defaultMaxShopBytes
	fsys.Var(&cfg.maxShop, "max-shop-memory", "memory all living-shop sessions keep together, a `size` such as 512MiB or 2GiB; past it the least recently used shop goes back to its start (env REPLYMOCK_MAX_SHOP_MEMORY)")
	fsys.StringVar(&cfg.adminAddr, "admin-addr", "", "serve the admin API and page on this address only, not on --addr (env REPLYMOCK_ADMIN_ADDR)")
	fsys.IntVar(&cfg.newSessions, "max-new-sessions", mock.DefaultNewSessionsPerMinute, "with --admin-addr, sessions one client address may start a minute on --addr, the public listener; past it, 429; 0 bounds none (env REPLYMOCK_MAX_NEW_SESSIONS)")
	fsys.StringVar(&cfg.publicScen, "public-scenarios", "", "with --admin-addr, comma-separated scenarios X-Mock-Scenario may name on --addr, the public listener; * for any; others 403 (env REPLYMOCK_PUBLIC_SCENARIOS) (default those whose data is built: the active one and those the admin API picked)")
	fsys.BoolVar(&cfg.readOnly, "read-only", false, "for a public demo: nobody can change it, so the settings PATCH and every admin write (scenario, reset, faults, overrides, seeded data, snapshots, the shop's clock, the request log) answer 403; reads are served and a living shop goes on: its clock runs, reviews arrive and get their replies as its settings say (env REPLYMOCK_READ_ONLY)")
	fsys.BoolVar(&cfg.strict, "strict", false, "answer API requests with warnings (X-Mock-Warning: unknown parameters, the upstream's names, ...) 400 instead; a scenario's strict and PUT /__mock/overrides win (env REPLYMOCK_STRICT)")
	fsys.IntVar(&cfg.maxSessions, "max-sessions", mock.DefaultMaxSessions, "sessions kept; more evict the least recently used (env REPLYMOCK_MAX_SESSIONS)")
	fsys.DurationVar(&cfg.sessionTTL, "session-ttl", mock.DefaultSessionTTL, "an unused session is dropped after this long (env REPLYMOCK_SESSION_TTL)")
	fsys.IntVar(&cfg.journal, "journal-size", mock.DefaultJournalSize, "requests kept in each session's journal (env REPLYMOCK_JOURNAL_SIZE)")
	fsys.Var(&cfg.redact, "redact", "a header or query parameter `name` the journal shows redacted besides the credentials it always does (Authorization, X-Api-Key, access_token, ...); repeatable (env REPLYMOCK_REDACT, comma-separated; both add up)")
	fsys.StringVar(&cfg.proxy, "proxy", "", "base URL of the real service: API requests replymock does not fake go there, with the caller's headers (not the X-Mock- ones, nor the admin token); a scenario's proxy key wins (env REPLYMOCK_PROXY) (default none)")
	fsys.StringVar(&cfg.now, "now", "", "the time the server starts at, e.g. 2026-12-01T10:00:00Z: data anchored to now (the demo's) ends there, and clocks run on from it; for reproducible demo screenshots (env REPLYMOCK_NOW) (default the real time)")
	fsys.StringVar(&cfg.stateDir, "state-dir", "", "folder that keeps every session's state (a snapshot each) and the server's, restored at start: a restarted demo comes back as it was (env REPLYMOCK_STATE_DIR) (default none: state lives in memory)")
	fsys.StringVar(&cfg.store, "store", "memory", "where sessions and the server's state are kept: memory, or redis://[user:password@]host:port/db (rediss:// for TLS), shared by every replica started with it: one state whichever replica answers (env REPLYMOCK_STORE)")
	cfg.maxStore = mock.DefaultMaxStoreBytes
	fsys.Var(&cfg.maxStore, "max-store-memory", "what the sessions' state keeps together in --store's Redis, a `size` such as 256MiB or 2GiB; past it the least recently used sessions go from the fleet (never default), and a write that would make one session pass it alone is refused (env REPLYMOCK_MAX_STORE_MEMORY)")
	fsys.DurationVar(&cfg.stateEvery, "state-interval", 5*time.Second, "how often --state-dir keeps what reads changed (fault counters, living shops), besides at shutdown; writes are kept before they are answered (env REPLYMOCK_STATE_INTERVAL)")
	fsys.BoolVar(&cfg.stdinClose, "exit-on-stdin-close", false, "shut down, as on SIGTERM, when standard input closes: a process that starts replymock with a pipe on it stops it by exiting, even when killed (the npm package's test helper does) (env REPLYMOCK_EXIT_ON_STDIN_CLOSE)")
	cfg.maxState = mock.DefaultMaxStateBytes
	fsys.Var(&cfg.maxState, "max-state-disk", "what --state-dir's session files (and those set aside) hold together, a `size` such as 256MiB or 2GiB; past it the files set aside go, then a write is refused with 503 store_unavailable and changes nothing; the server's own state always fits (env REPLYMOCK_MAX_STATE_DISK)")
	fsys.StringVar(&cfg.publicURL, "public-url", "", "base of the media URLs in review records, where clients reach this server, e.g. http://localhost:18080 behind a port mapping (default http://HOST:PORT of --addr, localhost when it listens on every interface) (env REPLYMOCK_PUBLIC_URL)")
	if cmd == "mcp" {
		fsys.StringVar(&cfg.mcpURL, "url", "", "a running server's base URL (http://127.0.0.1:8080) or its /__mock/mcp: bridge to it rather than serve a mock in-process (env REPLYMOCK_URL)")
	}
	fsys = narrow(fsys, c)
	fsys.SetOutput(out)
	fsys.Usage = usageFunc(fsys, c)
	return fsys
}

// check refuses flags that make no sense, normalizes the rest, and
// returns the log level.
func (cfg *config) check(fsys *flag.FlagSet, lookupEnv func(string) (string, bool)) (level slog.Level, err error) {
	// An admin token is compared byte for byte: one copied with a trailing
	// newline would lock the admin API for good, and one given empty would
	// leave it open without a word.
	cfg.adminToken = strings.TrimSpace(cfg.adminToken)
	if flagGiven(fsys, "admin-token") && cfg.adminToken == "" {
		return level, usageError{errors.New("--admin-token (or REPLYMOCK_ADMIN_TOKEN) is empty: give a token, or leave it out to keep the admin API open")}
	}
	for _, name := range []string{"cors-origins", "allowed-hosts"} {
		if flagGiven(fsys, name) && len(splitList(fsys.Lookup(name).Value.String())) == 0 {
			return level, usageError{fmt.Errorf("--%s is empty: name at least one, or leave it out for the default", name)}
		}
	}
	if err := checkAddr("addr", cfg.addr); err != nil {
		return level, err
	}
	if cfg.adminAddr != "" {
		if err := checkAddr("admin-addr", cfg.adminAddr); err != nil {
			return level, err
		}
	}
	if cfg.maxConns < 1 {
		return level, usageError{fmt.Errorf("--max-conns must be >= 1, got %d", cfg.maxConns)}
	}
	if flagGiven(fsys, "public-url") {
		if strings.TrimSpace(cfg.publicURL) == "" {
			return level, usageError{errors.New("--public-url (or REPLYMOCK_PUBLIC_URL) is empty: give the URL clients reach this server at, or leave it out for http://HOST:PORT of --addr")}
		}
		pub, err := mock.ParsePublicURL(strings.TrimSpace(cfg.publicURL))
		if err != nil {
			return level, usageError{fmt.Errorf("--public-url (or REPLYMOCK_PUBLIC_URL) %v", err)}
		}
		cfg.publicURL = pub
	}
	gogc, _ := lookupEnv("GOGC")
	cfg.tuneGC = gogc == ""
	gomemlimit, _ := lookupEnv("GOMEMLIMIT")
	cfg.memLimit = gomemlimit == ""
	cfg.timeouts = defaultTimeouts
	if cfg.logFormat != "text" && cfg.logFormat != "json" {
		return level, usageError{fmt.Errorf("--log-format must be text or json, got %q", cfg.logFormat)}
	}
	if err := level.UnmarshalText([]byte(cfg.logLevel)); err != nil {
		return level, usageError{fmt.Errorf("--log-level must be debug, info, warn or error, got %q", cfg.logLevel)}
	}
	if cfg.journal < 0 {
		return level, usageError{fmt.Errorf("--journal-size must be >= 0, got %d", cfg.journal)}
	}
	if cfg.newSessions < 0 {
		return level, usageError{fmt.Errorf("--max-new-sessions must be >= 0 (0 bounds none), got %d", cfg.newSessions)}
	}
	if v := cfg.publicScen; flagGiven(fsys, "public-scenarios") && len(splitList(v)) == 0 {
		return level, usageError{errors.New("--public-scenarios is empty: name at least one scenario (or *), or leave it out for those already built")}
	}
	if cfg.maxSessions < 1 || cfg.sessionTTL <= 0 {
		return level, usageError{fmt.Errorf("--max-sessions must be >= 1 and --session-ttl above 0")}
	}
	if cfg.stateEvery < 10*time.Millisecond {
		return level, usageError{fmt.Errorf("--state-interval must be at least 10ms, got %v", cfg.stateEvery)}
	}
	if flagGiven(fsys, "state-dir") && strings.TrimSpace(cfg.stateDir) == "" {
		return level, usageError{errors.New("--state-dir (or REPLYMOCK_STATE_DIR) is empty: name a folder, or leave it out to keep state in memory only")}
	}
	if err := cfg.checkStore(); err != nil {
		return level, err
	}
	if cfg.scenOnly && cfg.scenarios == "" {
		return level, usageError{errors.New("--scenarios-only needs --scenarios DIR: the folder whose scenarios alone are served")}
	}
	if flagGiven(fsys, "now") {
		at, err := time.Parse(time.RFC3339, strings.TrimSpace(cfg.now))
		if err != nil {
			return level, usageError{fmt.Errorf("--now (or REPLYMOCK_NOW) must be an RFC 3339 time such as 2026-12-01T10:00:00Z, got %q", cfg.now)}
		}
		at, started := at.UTC(), time.Now()
		cfg.clock = func() time.Time { return at.Add(time.Since(started)) }
	}
	if flagGiven(fsys, "proxy") {
		if _, err := mock.ParseProxyURL(strings.TrimSpace(cfg.proxy)); err != nil {
			return level, usageError{fmt.Errorf("--proxy (or REPLYMOCK_PROXY) %v", err)}
		}
		cfg.proxy = strings.TrimSpace(cfg.proxy)
	}
	return level, nil
}

// checkStore checks --store: memory, or a Redis URL, not beside
// --state-dir.
func (cfg *config) checkStore() error {
	cfg.store = strings.TrimSpace(cfg.store)
	if cfg.store == "" { // as from --store "$UNSET": not memory without a word
		return usageError{errors.New("--store (or REPLYMOCK_STORE) is empty: give memory or a Redis URL, or leave it out for memory")}
	}
	if err := mock.CheckStoreURL(cfg.store); err != nil {
		return usageError{fmt.Errorf("--store (or REPLYMOCK_STORE) %v", err)}
	}
	if cfg.store != mock.StoreMemory && cfg.stateDir != "" {
		return usageError{errors.New("--store and --state-dir both keep the state: give one (a Redis store outlives every replica)")}
	}
	return nil
}

// options are the server's Options that cfg gives, logging to logs.
func (cfg *config) options(level slog.Level, logs io.Writer) mock.Options {
	journal := cfg.journal
	if journal == 0 {
		journal = -1 // keep none
	}
	newSessions := cfg.newSessions
	if newSessions == 0 {
		newSessions = -1 // bound none
	}
	return mock.Options{Now: cfg.clock, Proxy: cfg.proxy, Scenario: cfg.scenario, ScenariosDir: cfg.scenarios, ShippedScenarios: !cfg.scenOnly, FixturesDir: cfg.fixtures, ShippedFixtures: true, Seed: cfg.seed, AdminToken: cfg.adminToken, JournalSize: journal,
		CORSOrigins: splitList(cfg.corsOrigins), AllowedHosts: splitList(cfg.allowedHosts), MaxShopBytes: int64(cfg.maxShop), JournalBytes: defaultJournalBytes, MaxSeedBytes: defaultMaxSeedBytes, ReadOnly: cfg.readOnly, Strict: cfg.strict, MaxSessions: cfg.maxSessions, SessionTTL: cfg.sessionTTL,
		NewSessionsPerMinute: newSessions, PublicScenarios: splitList(cfg.publicScen),
		PublicURL: cfg.publicURL, Version: versionString(), Logger: newLogger(cfg.logFormat, level, logs), Redact: cfg.redact, Store: cfg.store, MaxStoreBytes: int64(cfg.maxStore), Prober: runProbe}
}

// openFolders gives opts the --scenarios and --fixtures folders, read
// through os.Root: neither ".." nor a symlink leads out of them.
func openFolders(cfg *config, opts *mock.Options) (closeAll func(), err error) {
	var roots []*os.Root
	closeAll = func() {
		for _, r := range roots {
			r.Close()
		}
	}
	for _, d := range []struct {
		flag, dir string
		fs        *fs.FS
	}{{"scenarios", cfg.scenarios, &opts.Scenarios}, {"fixtures", cfg.fixtures, &opts.Fixtures}} {
		if d.dir == "" {
			continue
		}
		root, err := os.OpenRoot(d.dir)
		if err != nil {
			return closeAll, usageError{fmt.Errorf("--%s: %v", d.flag, err)}
		}
		roots = append(roots, root)
		*d.fs = root.FS()
	}
	return closeAll, nil
}

// applyEnv sets every flag that has a REPLYMOCK_<NAME> variable, before
// the command line is parsed. A variable set empty (as compose files
// leave one whose value is missing) counts as unset, but an empty
// REPLYMOCK_ADMIN_TOKEN is refused: it would leave the admin API open
// while its operator believes it locked.
func applyEnv(fsys *flag.FlagSet, lookupEnv func(string) (string, bool)) error {
	var err error
	fsys.VisitAll(func(f *flag.Flag) {
		name := envName(f.Name)
		v, set := lookupEnv(name)
		switch {
		case err != nil || !set:
		case v == "" && f.Name == "admin-token":
			err = fmt.Errorf("%s is set but empty: give a token, or unset it to keep the admin API open", name)
		case v != "":
			if e := fsys.Set(f.Name, v); e != nil {
				err = fmt.Errorf("%s=%q: %v", name, v, e)
			}
		}
	})
	return err
}

// envName is a flag's environment variable: REPLYMOCK_ADMIN_TOKEN for
// admin-token.
func envName(flagName string) string {
	return "REPLYMOCK_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// flagGiven reports whether the flag was set, on the command line or by
// its environment variable.
func flagGiven(fsys *flag.FlagSet, name string) bool {
	given := false
	fsys.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// byteSize is a flag of a number of bytes: 1073741824, 1GiB, 512MiB, 64KiB.
type byteSize int64

func (b *byteSize) String() string {
	for _, u := range byteUnits {
		if *b >= byteSize(u.size) && int64(*b)%u.size == 0 {
			return strconv.FormatInt(int64(*b)/u.size, 10) + u.name
		}
	}
	return strconv.FormatInt(int64(*b), 10)
}

func (b *byteSize) Set(s string) error {
	num, mult := strings.TrimSpace(s), int64(1)
	for _, u := range byteUnits {
		if n, ok := strings.CutSuffix(num, u.name); ok {
			num, mult = strings.TrimSpace(n), u.size
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 1 || n > math.MaxInt64/mult {
		return fmt.Errorf("want a size such as 1GiB, 512MiB or a number of bytes, got %q", s)
	}
	*b = byteSize(n * mult)
	return nil
}

var byteUnits = []struct {
	name string
	size int64
}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}

// names is a repeatable flag of header or query parameter names, each
// use one name or several comma-separated.
type names []string

func (n *names) String() string { return strings.Join(*n, ",") }

func (n *names) Set(s string) error {
	items := splitList(s)
	if len(items) == 0 {
		return fmt.Errorf("want a header or query parameter name, got %q", s)
	}
	if err := mock.CheckRedact(items); err != nil {
		return err
	}
	*n = append(*n, items...)
	return nil
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// checkAddr refuses a listen address that is not HOST:PORT with a port
// from 0 to 65535, and says what was likely meant.
func checkAddr(flagName, addr string) error {
	_, port, err := net.SplitHostPort(addr)
	switch {
	case err != nil && isDigits(addr):
		return usageError{fmt.Errorf("--%s %s has no host: did you mean --%s 127.0.0.1:%s (this machine) or --%s :%s (every interface)?", flagName, addr, flagName, addr, flagName, addr)}
	case err != nil:
		return usageError{fmt.Errorf("--%s %q is not HOST:PORT (%v): e.g. 127.0.0.1:8080, or :8080 for every interface", flagName, addr, err)}
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return usageError{fmt.Errorf("--%s %q: the port must be a number from 0 to 65535 (0: any free port)", flagName, addr)}
	}
	return nil
}

// isDigits reports whether s is one or more ASCII digits.
func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}
