// Command replymock serves an in-memory fake of the auto-reply service's
// API (settings and the review list) with realistic Russian data.
//
//	replymock [flags]                 serve (the default)
//	replymock validate [FILES...]     check scenario and fixture files
//	replymock probe --target URL      check a server against the contract's rules
//	replymock version                 print the version
//
// Every flag can also be set with REPLYMOCK_<NAME> (e.g. REPLYMOCK_ADDR).
package main

import (
	"cmp"
	"container/list"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/mock/probe"
	"github.com/replymock/replymock/mock/record"
	"golang.org/x/net/netutil"
)

// version is stamped at build time with -ldflags "-X main.version=...";
// without it, versionString reads the build info.
var version = ""

// versionString is the stamped version, else the module version or VCS
// revision the Go toolchain recorded, else "devel".
func versionString() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	v := bi.Main.Version
	if v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision" && len(s.Value) >= 12:
			rev = s.Value[:12]
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = "-dirty"
		}
	}
	if rev != "" {
		return "devel+" + rev + dirty
	}
	return "devel"
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The first signal starts a graceful shutdown; a second one, while
	// requests drain (an injected delay can last minutes), ends the
	// process at once, by the signal's default action.
	context.AfterFunc(ctx, stop)
	if err := run(ctx, os.Args[1:], os.LookupEnv, os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, err)
		}
		os.Exit(exitCode(err))
	}
}

// exitCode is 2 for usage errors and 1 for everything else.
func exitCode(err error) int {
	var ue usageError
	var pu *probe.UsageError
	if errors.As(err, &ue) || errors.As(err, &pu) || errors.Is(err, flag.ErrHelp) {
		return 2
	}
	return 1
}

type usageError struct{ error }

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
	stateEvery   time.Duration
	timeouts     timeouts
	showVersion  *bool            // --version
	clock        func() time.Time // --now's clock; nil for the real one
}

// run is the whole program; main only maps its error to an exit code.
func run(ctx context.Context, args []string, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) error {
	// The logs go to stderr through a buffer, so that a request's log line
	// costs no write of its own. Deferred calls run while a panic unwinds
	// too: on a panic in run's goroutine, the lines before it are written
	// before the panic's message; what other crashes can lose is said at
	// logWriter.
	logs := newLogWriter(stderr, logFlushInterval, logBufferSize)
	defer logs.Close()
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd { // clients of another server: flags of their own
	case "probe":
		return probe.Main(ctx, args, stdout, stderr)
	case "record":
		return record.Main(ctx, args, stdout, stderr)
	}
	var cfg config
	fsys := cfg.flagSet(cmd, stderr)
	if err := applyEnv(fsys, lookupEnv); err != nil {
		return usageError{err}
	}
	if err := fsys.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if *cfg.showVersion {
		cmd = "version"
	}
	level, err := cfg.check(fsys, lookupEnv)
	if err != nil {
		return err
	}
	opts := cfg.options(level, logs)
	closeFolders, err := openFolders(&cfg, &opts)
	defer closeFolders()
	if err != nil {
		return err
	}
	return dispatch(ctx, cmd, fsys.Args(), cfg, opts, stdout)
}

// flagSet defines the server's flags on cfg, for the command cmd.
func (cfg *config) flagSet(cmd string, stderr io.Writer) *flag.FlagSet {
	fsys := flag.NewFlagSet("replymock "+cmd, flag.ContinueOnError)
	fsys.SetOutput(stderr)
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
	fsys.StringVar(&cfg.corsOrigins, "cors-origins", "", "comma-separated browser origins allowed to call the API (default any) and the admin API (default the server's own page and loopback origins), e.g. https://app.test,http://*.local:*; * allows any to call the API only (env REPLYMOCK_CORS_ORIGINS)")
	fsys.StringVar(&cfg.allowedHosts, "allowed-hosts", "", "comma-separated Host names served besides loopback ones, e.g. demo.example.test,*.preview.test; requests over loopback naming others are refused against DNS rebinding; * allows any (env REPLYMOCK_ALLOWED_HOSTS)")
	fsys.IntVar(&cfg.maxConns, "max-conns", defaultMaxConns, "open connections per listener; at the cap, the longest idle one is closed for a new one (env REPLYMOCK_MAX_CONNS)")
	cfg.maxShop = mock.DefaultMaxShopBytes
	fsys.Var(&cfg.maxShop, "max-shop-memory", "memory all living-shop sessions keep together, e.g. 512MiB or 2GiB; past it the least recently used shop goes back to its start (env REPLYMOCK_MAX_SHOP_MEMORY) (default 1GiB)")
	fsys.StringVar(&cfg.adminAddr, "admin-addr", "", "serve the admin API and page on this address only, not on --addr (env REPLYMOCK_ADMIN_ADDR)")
	fsys.BoolVar(&cfg.readOnly, "read-only", false, "demo mode: PATCH and admin changes answer 403 (env REPLYMOCK_READ_ONLY)")
	fsys.BoolVar(&cfg.strict, "strict", false, "answer API requests with warnings (X-Mock-Warning: unknown parameters, the upstream's names, ...) 400 instead; a scenario's strict and PUT /__mock/overrides win (env REPLYMOCK_STRICT)")
	fsys.IntVar(&cfg.maxSessions, "max-sessions", mock.DefaultMaxSessions, "sessions kept; more evict the least recently used (env REPLYMOCK_MAX_SESSIONS)")
	fsys.DurationVar(&cfg.sessionTTL, "session-ttl", mock.DefaultSessionTTL, "an unused session is dropped after this long (env REPLYMOCK_SESSION_TTL)")
	fsys.IntVar(&cfg.journal, "journal-size", mock.DefaultJournalSize, "requests kept in each session's journal (env REPLYMOCK_JOURNAL_SIZE)")
	fsys.StringVar(&cfg.proxy, "proxy", "", "base URL of the real service: API requests replymock does not fake go there, with the caller's headers (not the X-Mock- ones); a scenario's proxy key wins (env REPLYMOCK_PROXY) (default none)")
	fsys.StringVar(&cfg.now, "now", "", "the time the server starts at, e.g. 2026-12-01T10:00:00Z: data anchored to now (the demo's) ends there, and clocks run on from it; for reproducible demo screenshots (env REPLYMOCK_NOW) (default the real time)")
	fsys.StringVar(&cfg.stateDir, "state-dir", "", "folder that keeps every session's state (a snapshot each) and the server's, restored at start: a restarted demo comes back as it was (env REPLYMOCK_STATE_DIR) (default none: state lives in memory)")
	fsys.DurationVar(&cfg.stateEvery, "state-interval", 5*time.Second, "how often --state-dir is brought up to date, besides at shutdown (env REPLYMOCK_STATE_INTERVAL)")
	fsys.StringVar(&cfg.publicURL, "public-url", "", "base of the media URLs in review records, where clients reach this server, e.g. http://localhost:18080 behind a port mapping (default http://HOST:PORT of --addr, localhost when it listens on every interface) (env REPLYMOCK_PUBLIC_URL)")
	fsys.Usage = func() {
		fmt.Fprintf(stderr, "usage: replymock [serve] [flags]\n       replymock validate [flags] [FILES...]\n       replymock probe --target URL [flags] (see replymock probe -h)\n       replymock record --from URL --out DIR [flags] (see replymock record -h)\n       replymock healthcheck [--addr ADDR]\n       replymock version\n\nflags (each also REPLYMOCK_<NAME>):\n")
		fsys.PrintDefaults()
	}
	return fsys
}

// check refuses flags that make no sense together or alone, and
// normalizes the rest; it returns the log level.
func (cfg *config) check(fsys *flag.FlagSet, lookupEnv func(string) (string, bool)) (level slog.Level, err error) {
	// An admin token is compared byte for byte: one copied with a trailing
	// newline would lock the admin API for good, and one given empty would
	// leave it open without a word.
	cfg.adminToken = strings.TrimSpace(cfg.adminToken)
	if flagGiven(fsys, "admin-token") && cfg.adminToken == "" {
		return level, usageError{errors.New("--admin-token (or REPLYMOCK_ADMIN_TOKEN) is empty: give a token, or leave it out to keep the admin API open")}
	}
	for _, name := range []string{"cors-origins", "allowed-hosts"} {
		if v := fsys.Lookup(name).Value.String(); flagGiven(fsys, name) && len(splitList(v)) == 0 {
			return level, usageError{fmt.Errorf("--%s is empty: name at least one, or leave it out for the default", name)}
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
	if cfg.maxSessions < 1 || cfg.sessionTTL <= 0 {
		return level, usageError{fmt.Errorf("--max-sessions must be >= 1 and --session-ttl above 0")}
	}
	if cfg.stateEvery < 10*time.Millisecond {
		return level, usageError{fmt.Errorf("--state-interval must be at least 10ms, got %v", cfg.stateEvery)}
	}
	if flagGiven(fsys, "state-dir") && strings.TrimSpace(cfg.stateDir) == "" {
		return level, usageError{errors.New("--state-dir (or REPLYMOCK_STATE_DIR) is empty: name a folder, or leave it out to keep state in memory only")}
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

// options are the server's Options that cfg gives, logging to logs.
func (cfg *config) options(level slog.Level, logs io.Writer) mock.Options {
	journal := cfg.journal
	if journal == 0 {
		journal = -1 // keep none
	}
	return mock.Options{Now: cfg.clock, Proxy: cfg.proxy, Scenario: cfg.scenario, ScenariosDir: cfg.scenarios, ShippedScenarios: !cfg.scenOnly, FixturesDir: cfg.fixtures, ShippedFixtures: true, Seed: cfg.seed, AdminToken: cfg.adminToken, JournalSize: journal,
		CORSOrigins: splitList(cfg.corsOrigins), AllowedHosts: splitList(cfg.allowedHosts), MaxShopBytes: int64(cfg.maxShop), ReadOnly: cfg.readOnly, Strict: cfg.strict, MaxSessions: cfg.maxSessions, SessionTTL: cfg.sessionTTL,
		PublicURL: cfg.publicURL, Version: versionString(), Logger: newLogger(cfg.logFormat, level, logs)}
}

// openFolders gives opts the --scenarios and --fixtures folders;
// closeAll closes them.
func openFolders(cfg *config, opts *mock.Options) (closeAll func(), err error) {
	var roots []*os.Root
	closeAll = func() {
		for _, r := range roots {
			r.Close()
		}
	}
	// The folders are read through os.Root: neither ".." nor a symlink
	// leads out of them.
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

// dispatch runs the command cmd, with its arguments args.
func dispatch(ctx context.Context, cmd string, args []string, cfg config, opts mock.Options, stdout io.Writer) error {
	switch cmd {
	case "serve":
		if len(args) > 0 {
			return usageError{fmt.Errorf("serve takes no arguments, got %q", args)}
		}
		return serve(ctx, cfg, opts)
	case "validate":
		return validate(opts, args, stdout)
	case "healthcheck":
		if len(args) > 0 {
			return usageError{fmt.Errorf("healthcheck takes no arguments, got %q", args)}
		}
		return healthcheck(ctx, cfg.addr, stdout)
	case "version":
		if len(args) > 0 {
			return usageError{fmt.Errorf("version takes no arguments, got %q", args)}
		}
		fmt.Fprintln(stdout, "replymock", versionString())
		return nil
	default:
		return usageError{fmt.Errorf("unknown command %q; commands: serve, validate, probe, record, healthcheck, version", cmd)}
	}
}

// applyEnv sets every flag that has a REPLYMOCK_<NAME> variable; flags on
// the command line are parsed afterwards and win. A variable set empty
// (as compose files leave one whose value is missing) counts as unset,
// except REPLYMOCK_ADMIN_TOKEN: an empty token would leave the admin API
// open while its operator believes it locked, so it is refused.
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

// envName is the environment variable of a flag: REPLYMOCK_ADMIN_TOKEN
// for admin-token.
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

// The log buffer: lines reach stderr at most logFlushInterval after they
// are logged, or sooner when logBufferSize bytes are waiting.
const (
	logFlushInterval = 100 * time.Millisecond
	logBufferSize    = 64 << 10
)

// logWriter buffers what is written to it, the log, and writes it to out
// in blocks, in order: at most interval after the first byte of a block,
// when a block would exceed limit bytes, and on Close. Lines keep being
// buffered while a block is written. After Close, writes go straight out.
//
// A crash that runs no deferred call of run (a panic in another
// goroutine, a fatal runtime error such as running out of memory or a
// concurrent map write, SIGKILL) loses what is buffered: the lines logged
// in at most the last interval, and never more than limit bytes.
type logWriter struct {
	out      io.Writer
	interval time.Duration
	limit    int
	timer    *time.Timer // flushes interval after the first byte of a block

	writeMu sync.Mutex // held while a block is written to out, so that blocks go out in order; guards spare
	spare   []byte     // the block written last, emptied for reuse

	mu     sync.Mutex // guards the fields below; never held while writing to out
	buf    []byte
	armed  bool // the timer will flush buf
	closed bool
}

func newLogWriter(out io.Writer, interval time.Duration, limit int) *logWriter {
	w := &logWriter{out: out, interval: interval, limit: limit}
	w.timer = time.AfterFunc(time.Hour, func() { w.Flush() })
	w.timer.Stop()
	return w
}

func (w *logWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	if !w.closed && len(w.buf)+len(p) <= w.limit {
		if w.buf == nil {
			w.buf = make([]byte, 0, w.limit)
		}
		w.buf = append(w.buf, p...)
		if !w.armed {
			w.armed = true
			w.timer.Reset(w.interval)
		}
		w.mu.Unlock()
		return len(p), nil
	}
	w.mu.Unlock()
	// Full or closed: what is buffered goes first, then p.
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	err := w.flushLocked()
	if _, werr := w.out.Write(p); werr != nil {
		return 0, werr
	}
	return len(p), err
}

// Flush writes what is buffered.
func (w *logWriter) Flush() error {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	return w.flushLocked()
}

// flushLocked writes the buffer, with w.writeMu held; lines written
// meanwhile go to the spare buffer.
func (w *logWriter) flushLocked() error {
	w.mu.Lock()
	block := w.buf
	w.buf, w.spare = w.spare, nil
	w.armed = false
	w.mu.Unlock()
	var err error
	if len(block) > 0 {
		_, err = w.out.Write(block)
	}
	w.spare = block[:0]
	return err
}

// Close writes what is buffered; later writes go straight to out.
func (w *logWriter) Close() error {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	w.timer.Stop()
	return w.flushLocked()
}

func newLogger(format string, level slog.Level, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// serve runs the HTTP server until ctx ends, then drains it.
func serve(ctx context.Context, cfg config, opts mock.Options) error {
	start := time.Now()
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.maxConns < 1 {
		cfg.maxConns = defaultMaxConns
	}
	opts.Logger.Info("replymock starting", "scenario", opts.Scenario, "version", opts.Version)
	// With --admin-addr, the admin API (and its page) has a listener of its
	// own, and the main one serves only the API, health and media.
	lns, closeAll, err := listen(cfg)
	if err != nil {
		return err
	}
	if opts.PublicURL == "" {
		pub, err := derivePublicURL(cfg.addr, lns[0].Addr())
		if err != nil {
			closeAll()
			return usageError{err}
		}
		opts.PublicURL = pub
	}
	var state *mock.StateDir
	if cfg.stateDir != "" {
		if state, err = mock.OpenStateDir(cfg.stateDir, opts.Logger); err != nil {
			closeAll()
			return usageError{err}
		}
		// Restarted soon, the server serves the data it served: its
		// sessions' living shops come back as they were.
		now := time.Now
		if opts.Now != nil {
			now = opts.Now
		}
		opts.DataAnchor = state.Anchor(now())
	}
	srv, err := build(ctx, cfg, opts)
	if err != nil || srv == nil {
		closeAll()
		return err
	}
	if state != nil {
		state.Restore(srv)
		defer keepState(ctx, cfg, state, srv, opts.Logger)()
	}
	memLimit := setMemoryLimit(cfg, srv)
	sc := srv.Scenario()
	reviews, err := sc.Len()
	if err != nil {
		closeAll()
		return err
	}
	handlers := []http.Handler{srv}
	if cfg.adminAddr != "" {
		handlers = []http.Handler{srv.APIHandler(), srv}
	}
	servers, errc := startServing(cfg, opts, lns, handlers, "scenario", sc.Name, "seed", sc.Seed, "reviews", reviews,
		"public_url", opts.PublicURL, "memory_limit", memLimit, "startup", time.Since(start).Round(time.Millisecond).String())
	if cfg.scenarios != "" {
		// Hot reload: a changed scenario file is validated and swapped in.
		go srv.Watch(ctx, time.Second)
	}
	select {
	case err := <-errc:
		for _, hs := range servers {
			hs.Close()
		}
		return err
	case <-ctx.Done():
	}
	return drain(servers, cfg, opts.Logger)
}

// listen opens the listeners of --addr and --admin-addr; closeAll
// closes them. Both listen before the data is built: the media URLs in it
// name the port the main one got (--addr 127.0.0.1:0 picks one).
func listen(cfg config) (lns []net.Listener, closeAll func(), err error) {
	addrs := []string{cfg.addr}
	if cfg.adminAddr != "" {
		addrs = append(addrs, cfg.adminAddr)
	}
	closeAll = func() {
		for _, ln := range lns {
			ln.Close()
		}
	}
	for _, a := range addrs {
		ln, err := net.Listen("tcp", a)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		lns = append(lns, ln)
	}
	return lns, closeAll, nil
}

// keepState saves the server's state into its folder every
// --state-interval; the function it returns, deferred, stops the loop and
// saves a last time.
func keepState(ctx context.Context, cfg config, state *mock.StateDir, srv *mock.Server, log *slog.Logger) (stop func()) {
	saved := make(chan struct{})
	last := func() {
		<-saved // the loop's last save is done before the final one
		if err := state.Save(srv); err != nil {
			log.Error("state: the last save failed", "dir", cfg.stateDir, "err", err)
		} else {
			log.Info("state saved", "dir", cfg.stateDir)
		}
	}
	loopCtx, stopLoop := context.WithCancel(ctx)
	go func() {
		defer close(saved)
		t := time.NewTicker(cfg.stateEvery)
		defer t.Stop()
		for {
			select {
			case <-loopCtx.Done():
				return
			case <-t.C:
				if err := state.Save(srv); err != nil {
					log.Warn("state: a save failed", "dir", cfg.stateDir, "err", err)
				}
			}
		}
	}()
	return func() {
		stopLoop()
		last()
	}
}

// setMemoryLimit sets a soft memory limit from the server's budgets,
// unless GOMEMLIMIT is set; it says which.
func setMemoryLimit(cfg config, srv *mock.Server) string {
	memLimit := "GOMEMLIMIT"
	if cfg.memLimit {
		// Go lets the heap grow to twice what is live before collecting:
		// with full budgets, the process would take twice their sum. A
		// soft limit of the data built, the budgets and some room makes
		// the collector work harder near it instead.
		limit := memoryLimit(srv.MemoryBudget())
		debug.SetMemoryLimit(limit)
		memLimit = strconv.FormatInt(limit>>20, 10) + "MiB"
	}
	return memLimit
}

// startServing serves each listener with its handler, after logging where
// and what; errc receives the first listener's failure.
// served are the log attributes that say what is served.
func startServing(cfg config, opts mock.Options, lns []net.Listener, handlers []http.Handler, served ...any) ([]*http.Server, chan error) {
	var servers []*http.Server
	errc := make(chan error, len(lns))
	for i, ln := range lns {
		hs := newHTTPServer(handlers[i], cfg.timeouts, opts.Logger)
		ln = limitConns(ln, hs, cfg.maxConns)
		servers = append(servers, hs)
		what := "api and admin"
		if len(lns) == 2 {
			what = [2]string{"api", "admin"}[i]
		}
		admin := "open"
		if cfg.adminToken != "" {
			admin = "locked by token"
		}
		attrs := []any{"addr", ln.Addr().String(), "reach", reach(ln.Addr()), "serves", what, "admin", admin,
			"api_origins", joinOr(opts.CORSOrigins, "any"), "admin_origins", joinOr(adminOrigins(opts), ""),
			"hosts", joinOr(append([]string{"loopback"}, opts.AllowedHosts...), ""), "max_conns", cfg.maxConns}
		attrs = append(append(attrs, served...), "read_only", cfg.readOnly, "strict", cfg.strict,
			"proxy", cmp.Or(cfg.proxy, "none"), "state_dir", cmp.Or(cfg.stateDir, "none"), "version", opts.Version)
		opts.Logger.Info("replymock serving", attrs...)
		if cfg.adminToken == "" && what != "api" && reach(ln.Addr()) != "this machine only" {
			opts.Logger.Warn("the admin API is open to every machine that reaches "+ln.Addr().String()+
				": set --admin-token (or --admin-addr 127.0.0.1:PORT) on a shared network", "addr", ln.Addr().String())
		}
		// Accept only after the line is logged: a request's line then
		// never comes before the line that says where it is served.
		go func() { errc <- hs.Serve(ln) }()
	}
	return servers, errc
}

// drain lets requests in flight finish, even one waiting out an injected
// delay (at most mock.MaxLatency), before the process ends.
func drain(servers []*http.Server, cfg config, log *slog.Logger) error {
	log.Info("replymock shutting down; draining requests in flight (interrupt again to stop at once)")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.timeouts.drain)
	defer cancel()
	var errs []error
	for _, hs := range servers {
		if err := hs.Shutdown(shutdownCtx); err != nil {
			errs = append(errs, fmt.Errorf("shutdown: %w", err))
		}
	}
	return errors.Join(errs...)
}

// derivePublicURL is the public URL when --public-url is not given: the
// host of addr (localhost when it is empty or a wildcard, which clients
// on this machine reach as localhost) and the port bound (the one the
// system picked for port 0).
func derivePublicURL(addr string, bound net.Addr) (string, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("--addr %q: %v", addr, err)
	}
	_, port, err := net.SplitHostPort(bound.String())
	if err != nil {
		return "", fmt.Errorf("--addr %q: %v", addr, err)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	pub, err := mock.ParsePublicURL("http://" + net.JoinHostPort(host, port))
	if err != nil {
		return "", fmt.Errorf("no public URL can be made from --addr %q: give --public-url (%v)", addr, err)
	}
	return pub, nil
}

// build makes the server, or gives up when ctx ends first: a big scenario
// takes seconds to build, and a SIGTERM meanwhile must not wait for it.
// Giving up returns no server and no error; the build goes on in the
// background until the process exits.
func build(ctx context.Context, cfg config, opts mock.Options) (*mock.Server, error) {
	type built struct {
		srv *mock.Server
		err error
	}
	done := make(chan built, 1)
	go func() {
		if cfg.tuneGC {
			// Building a big scenario allocates a lot that stays: collecting
			// less often during start-up saves a third of its time.
			debug.SetGCPercent(400)
			defer debug.SetGCPercent(100)
		}
		srv, err := mock.New(opts)
		done <- built{srv, err}
	}()
	select {
	case b := <-done:
		return b.srv, b.err
	case <-ctx.Done():
		opts.Logger.Info("replymock stopped while starting")
		return nil, nil
	}
}

// adminOrigins says which browser pages may call the admin API.
func adminOrigins(opts mock.Options) []string {
	list := []string{"loopback"}
	if len(opts.AllowedHosts) > 0 {
		list = append(list, "own page")
	}
	for _, o := range opts.CORSOrigins {
		if o != "*" && o != "null" {
			list = append(list, o)
		}
	}
	return list
}

// reach says who can connect to a listener's address.
func reach(addr net.Addr) string {
	if ap, err := netip.ParseAddrPort(addr.String()); err == nil && ap.Addr().Unmap().IsLoopback() {
		return "this machine only"
	}
	return "every machine that can route to it"
}

// joinOr is the list joined by commas, or alt when it is empty.
func joinOr(list []string, alt string) string {
	if len(list) == 0 {
		return alt
	}
	return strings.Join(list, ",")
}

// timeouts are the HTTP server's limits on slow clients.
type timeouts struct {
	readHeader, read, write, idle, drain time.Duration
}

// defaultTimeouts let the longest injected delay (mock.MaxLatency) finish
// before the write timeout, and a shutdown wait for it.
var defaultTimeouts = timeouts{
	readHeader: 10 * time.Second,
	read:       30 * time.Second,
	write:      mock.MaxLatency + 30*time.Second,
	idle:       30 * time.Second,
	drain:      mock.MaxLatency + 10*time.Second,
}

// MaxHeaderBytes bounds a request's header; over it, net/http answers 431.
const maxHeaderBytes = 64 << 10

func newHTTPServer(h http.Handler, t timeouts, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: t.readHeader,
		ReadTimeout:       t.read,
		WriteTimeout:      t.write,
		IdleTimeout:       t.idle,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// defaultMaxConns is --max-conns: each connection costs a file handle and
// some 10 KiB, and the machine's handles are often limited to a few
// thousands more.
const defaultMaxConns = 4096

// limitConns caps the connections ln has open at max, with
// netutil.LimitListener, and sets hs.ConnState to keep room for newcomers:
// when a new connection fills the last place, the idle keep-alive that
// has waited longest is closed or, with none, the new connection that
// has waited longest for its first request. So thousands of idle
// connections cost a bounded number of handles, a client with a request
// still gets in, and a new connection is not closed while idle ones can
// go instead. A connection closed this way may have just started to send
// a request; clients retry such a request on a fresh connection.
func limitConns(ln net.Listener, hs *http.Server, max int) net.Listener {
	c := &connLimiter{max: max, idle: list.New(), fresh: list.New(),
		elems: make(map[net.Conn]*list.Element), where: make(map[net.Conn]*list.List)}
	hs.ConnState = c.track
	return netutil.LimitListener(ln, max)
}

// connLimiter tracks a listener's open connections for limitConns.
type connLimiter struct {
	max   int
	mu    sync.Mutex
	open  int
	idle  *list.List                 // keep-alives between requests, longest waiting first
	fresh *list.List                 // connections yet to send a request, oldest first
	elems map[net.Conn]*list.Element // their places in idle or fresh
	where map[net.Conn]*list.List    // which of the two holds each
}

// wait puts conn at the back of l.
func (c *connLimiter) wait(conn net.Conn, l *list.List) {
	c.forget(conn)
	c.elems[conn] = l.PushBack(conn)
	c.where[conn] = l
}

// forget takes conn out of the lists.
func (c *connLimiter) forget(conn net.Conn) {
	if e, ok := c.elems[conn]; ok {
		c.where[conn].Remove(e)
		delete(c.elems, conn)
		delete(c.where, conn)
	}
}

func (c *connLimiter) track(conn net.Conn, state http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch state {
	case http.StateNew:
		c.open++
		if c.open >= c.max {
			front := c.idle.Front()
			if front == nil {
				front = c.fresh.Front()
			}
			if front != nil {
				old := front.Value.(net.Conn)
				c.forget(old)
				old.Close() // its StateClosed comes from its own goroutine
			}
		}
		c.wait(conn, c.fresh)
	case http.StateIdle:
		c.wait(conn, c.idle)
	case http.StateActive:
		c.forget(conn)
	case http.StateHijacked, http.StateClosed: // the server is done with it
		c.open--
		c.forget(conn)
	}
}

// healthcheck asks a running server at addr for /__mock/health: the
// image's HEALTHCHECK, which has no curl. A wildcard host means loopback.
func healthcheck(ctx context.Context, addr string, stdout io.Writer) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return usageError{fmt.Errorf("--addr %q: %v", addr, err)}
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	url := "http://" + net.JoinHostPort(host, port) + "/__mock/health"
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("unhealthy: %w", err)
	}
	defer resp.Body.Close()
	var body struct {
		Success bool `json:"success"`
		Data    struct {
			Status string `json:"status"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&body); err != nil || resp.StatusCode != http.StatusOK || body.Data.Status != "ok" {
		return fmt.Errorf("unhealthy: %s answered %d", url, resp.StatusCode)
	}
	fmt.Fprintln(stdout, "ok:", url)
	return nil
}

// validate checks the named files, or with none every scenario (and the
// fixtures they use) the server would serve. A snapshot (GET
// /__mock/snapshot) is checked as restoring it into this server would
// be; what would not come back as it was is noted. Every problem of every file
// is reported, one a line, each once.
func validate(opts mock.Options, files []string, stdout io.Writer) error {
	var errs []error
	checked := 0
	if len(files) == 0 {
		results, err := mock.ValidateScenarios(opts)
		if err != nil {
			return err
		}
		for _, r := range results {
			checked++
			errs = append(errs, r.Err)
		}
	}
	var sources []mock.SourceFile
	for _, f := range files {
		// A named pipe or device would block the read: only regular files.
		if fi, err := os.Stat(f); err == nil && !fi.Mode().IsRegular() {
			errs = append(errs, fmt.Errorf("%s: not a regular file (%s)", f, fi.Mode().Type()))
			continue
		}
		data, err := mock.ReadFile(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		checked++
		if mock.IsSnapshot(data) {
			notes, err := mock.ValidateSnapshot(opts, f, data)
			for _, n := range notes {
				fmt.Fprintf(stdout, "%s: note: %s\n", f, n)
			}
			errs = append(errs, err)
			continue
		}
		sources = append(sources, mock.SourceFile{Path: f, Data: data})
	}
	if len(sources) > 0 {
		errs = append(errs, mock.ValidateFiles(opts, sources))
	}
	if problems := mock.Problems(errors.Join(errs...)); len(problems) > 0 {
		return errors.Join(problems...)
	}
	fmt.Fprintf(stdout, "ok: %d %s valid\n", checked, plural(checked, "file", "files"))
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// memoryHeadroom is room, beyond the data and the budgets, for what
// requests in flight and connections hold.
const memoryHeadroom = 256 << 20

// memoryLimit is the soft memory limit for a server whose stores may
// keep budget bytes: what is live now (the scenarios' data, built), the
// budget and headroom.
func memoryLimit(budget int64) int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc) + budget + memoryHeadroom
}
