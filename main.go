// Command replymock serves an in-memory fake of the auto-reply service's
// API (settings and the review list) with realistic Russian data.
//
//	replymock [flags]                 serve (the default)
//	replymock validate [FILES...]     check scenario and fixture files
//	replymock version                 print the version
//
// Every flag can also be set with REPLYMOCK_<NAME> (e.g. REPLYMOCK_ADDR).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/replymock/replymock/mock"
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
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, err)
		}
		os.Exit(exitCode(err))
	}
}

// exitCode is 2 for usage errors and 1 for everything else.
func exitCode(err error) int {
	var ue usageError
	if errors.As(err, &ue) || errors.Is(err, flag.ErrHelp) {
		return 2
	}
	return 1
}

type usageError struct{ error }

// config is everything the flags and environment set.
type config struct {
	addr        string
	scenario    string
	scenarios   string
	fixtures    string
	seed        int64
	logFormat   string
	logLevel    string
	adminToken  string
	journal     int
	corsOrigins string
	tuneGC      bool // GOGC is not set: collect less often while building data
	adminAddr   string
	readOnly    bool
	maxSessions int
	sessionTTL  time.Duration
	timeouts    timeouts
}

// run is the whole program; main only maps its error to an exit code.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
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
	fsys := flag.NewFlagSet("replymock "+cmd, flag.ContinueOnError)
	fsys.SetOutput(stderr)
	var cfg config
	fsys.StringVar(&cfg.addr, "addr", ":8080", "listen address (env REPLYMOCK_ADDR)")
	fsys.StringVar(&cfg.scenario, "scenario", "default", "scenario to serve (env REPLYMOCK_SCENARIO)")
	fsys.StringVar(&cfg.scenarios, "scenarios", "", "folder of NAME.yaml scenarios replacing the embedded ones (env REPLYMOCK_SCENARIOS)")
	fsys.StringVar(&cfg.fixtures, "fixtures", "", "folder of fixtures replacing the embedded ones (env REPLYMOCK_FIXTURES)")
	fsys.Int64Var(&cfg.seed, "seed", 0, "seed for generated data, overriding the scenario's; 0 keeps it (env REPLYMOCK_SEED)")
	fsys.StringVar(&cfg.logFormat, "log-format", "text", "log format: text or json (env REPLYMOCK_LOG_FORMAT)")
	fsys.StringVar(&cfg.logLevel, "log-level", "info", "debug, info (a line per request), warn or error (env REPLYMOCK_LOG_LEVEL)")
	showVersion := fsys.Bool("version", false, "print the version and exit")
	fsys.StringVar(&cfg.adminToken, "admin-token", "", "token required by the /__mock/ admin routes but health (env REPLYMOCK_ADMIN_TOKEN)")
	fsys.StringVar(&cfg.corsOrigins, "cors-origins", "*", "comma-separated browser origins allowed to call the server, e.g. http://localhost:*; * allows any (env REPLYMOCK_CORS_ORIGINS)")
	fsys.StringVar(&cfg.adminAddr, "admin-addr", "", "serve the admin API and page on this address only, not on --addr (env REPLYMOCK_ADMIN_ADDR)")
	fsys.BoolVar(&cfg.readOnly, "read-only", false, "demo mode: PATCH and admin changes answer 403 (env REPLYMOCK_READ_ONLY)")
	fsys.IntVar(&cfg.maxSessions, "max-sessions", mock.DefaultMaxSessions, "sessions kept; more evict the least recently used (env REPLYMOCK_MAX_SESSIONS)")
	fsys.DurationVar(&cfg.sessionTTL, "session-ttl", mock.DefaultSessionTTL, "an unused session is dropped after this long (env REPLYMOCK_SESSION_TTL)")
	fsys.IntVar(&cfg.journal, "journal-size", mock.DefaultJournalSize, "requests kept in each session's journal (env REPLYMOCK_JOURNAL_SIZE)")
	fsys.Usage = func() {
		fmt.Fprintf(stderr, "usage: replymock [serve] [flags]\n       replymock validate [flags] [FILES...]\n       replymock healthcheck [--addr ADDR]\n       replymock version\n\nflags (each also REPLYMOCK_<NAME>):\n")
		fsys.PrintDefaults()
	}
	if err := applyEnv(fsys, getenv); err != nil {
		return usageError{err}
	}
	if err := fsys.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	// An admin token is compared byte for byte: one copied with a trailing
	// newline would lock the admin API for good, and one given empty would
	// leave it open without a word.
	tokenGiven := false
	fsys.Visit(func(f *flag.Flag) { tokenGiven = tokenGiven || f.Name == "admin-token" })
	cfg.adminToken = strings.TrimSpace(cfg.adminToken)
	if tokenGiven && cfg.adminToken == "" {
		return usageError{errors.New("--admin-token (or REPLYMOCK_ADMIN_TOKEN) is empty: give a token, or leave it out to keep the admin API open")}
	}
	cfg.tuneGC = getenv("GOGC") == ""
	cfg.timeouts = defaultTimeouts
	if *showVersion {
		cmd = "version"
	}
	if cfg.logFormat != "text" && cfg.logFormat != "json" {
		return usageError{fmt.Errorf("--log-format must be text or json, got %q", cfg.logFormat)}
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.logLevel)); err != nil {
		return usageError{fmt.Errorf("--log-level must be debug, info, warn or error, got %q", cfg.logLevel)}
	}
	if cfg.journal < 0 {
		return usageError{fmt.Errorf("--journal-size must be >= 0, got %d", cfg.journal)}
	}
	journal := cfg.journal
	if journal == 0 {
		journal = -1 // keep none
	}
	if cfg.maxSessions < 1 || cfg.sessionTTL <= 0 {
		return usageError{fmt.Errorf("--max-sessions must be >= 1 and --session-ttl above 0")}
	}
	opts := mock.Options{Scenario: cfg.scenario, Seed: cfg.seed, AdminToken: cfg.adminToken, JournalSize: journal,
		CORSOrigins: splitList(cfg.corsOrigins), ReadOnly: cfg.readOnly, MaxSessions: cfg.maxSessions, SessionTTL: cfg.sessionTTL,
		Version: versionString(), Logger: newLogger(cfg.logFormat, level, logs)}
	if cfg.scenarios != "" {
		opts.Scenarios = os.DirFS(cfg.scenarios)
	}
	if cfg.fixtures != "" {
		opts.Fixtures = os.DirFS(cfg.fixtures)
	}
	switch cmd {
	case "serve":
		if fsys.NArg() > 0 {
			return usageError{fmt.Errorf("serve takes no arguments, got %q", fsys.Args())}
		}
		return serve(ctx, cfg, opts)
	case "validate":
		return validate(opts, fsys.Args(), stdout)
	case "healthcheck":
		if fsys.NArg() > 0 {
			return usageError{fmt.Errorf("healthcheck takes no arguments, got %q", fsys.Args())}
		}
		return healthcheck(ctx, cfg.addr, stdout)
	case "version":
		if fsys.NArg() > 0 {
			return usageError{fmt.Errorf("version takes no arguments, got %q", fsys.Args())}
		}
		fmt.Fprintln(stdout, "replymock", versionString())
		return nil
	default:
		return usageError{fmt.Errorf("unknown command %q; commands: serve, validate, healthcheck, version", cmd)}
	}
}

// applyEnv sets every flag that has a REPLYMOCK_<NAME> variable; flags on
// the command line are parsed afterwards and win.
func applyEnv(fsys *flag.FlagSet, getenv func(string) string) error {
	var err error
	fsys.VisitAll(func(f *flag.Flag) {
		name := "REPLYMOCK_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if v := getenv(name); v != "" && err == nil {
			if e := fsys.Set(f.Name, v); e != nil {
				err = fmt.Errorf("%s=%q: %v", name, v, e)
			}
		}
	})
	return err
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
	if cfg.tuneGC {
		// Building a big scenario allocates a lot that stays: collecting
		// less often during start-up saves a third of its time.
		debug.SetGCPercent(400)
	}
	srv, err := mock.New(opts)
	if cfg.tuneGC {
		debug.SetGCPercent(100)
	}
	if err != nil {
		return err
	}
	sc := srv.Scenario()
	reviews, err := sc.Len()
	if err != nil {
		return err
	}
	// With --admin-addr, the admin API (and its page) has a listener of its
	// own, and the main one serves only the API and health.
	listeners := []struct {
		addr    string
		handler http.Handler
	}{{cfg.addr, srv}}
	if cfg.adminAddr != "" {
		listeners = []struct {
			addr    string
			handler http.Handler
		}{{cfg.addr, srv.APIHandler()}, {cfg.adminAddr, srv}}
	}
	var servers []*http.Server
	errc := make(chan error, len(listeners))
	for i, l := range listeners {
		ln, err := net.Listen("tcp", l.addr)
		if err != nil {
			for _, hs := range servers {
				hs.Close()
			}
			return err
		}
		hs := newHTTPServer(l.handler, cfg.timeouts, opts.Logger)
		servers = append(servers, hs)
		go func() { errc <- hs.Serve(ln) }()
		what := "api and admin"
		if len(listeners) == 2 {
			what = [2]string{"api", "admin"}[i]
		}
		admin := "open"
		if cfg.adminToken != "" {
			admin = "locked by token"
		}
		opts.Logger.Info("replymock serving", "addr", ln.Addr().String(), "serves", what, "admin", admin, "scenario", sc.Name, "seed", sc.Seed,
			"reviews", reviews, "startup", time.Since(start).Round(time.Millisecond).String(), "read_only", cfg.readOnly, "version", opts.Version)
	}
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
	// Drain: requests in flight finish, even one waiting out an injected
	// delay (at most mock.MaxLatency), before the process ends.
	opts.Logger.Info("replymock shutting down; draining requests in flight")
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
	idle:       120 * time.Second,
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
// fixtures they use) in the scenarios folder.
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
			if r.Err != nil {
				errs = append(errs, r.Err)
			}
		}
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		checked++
		if err := mock.ValidateFile(opts, f, data); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
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
