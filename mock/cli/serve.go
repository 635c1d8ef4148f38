package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/replymock/replymock/mock"
)

// serve runs the HTTP server until ctx ends, then drains it.
func serve(ctx context.Context, cfg config, opts mock.Options) error {
	start := time.Now()
	opts.Logger.Info("replymock starting", "scenario", opts.Scenario, "version", opts.Version)
	if cfg.stdinClose {
		var stop context.CancelFunc
		ctx, stop = context.WithCancel(ctx)
		defer stop()
		go exitOnClose(os.Stdin, stop, opts.Logger)
	}
	lns, closeAll, err := listen(cfg)
	if err != nil {
		return err
	}
	defer closeAll() // the servers close them first, but for a failed start
	if opts.PublicURL == "" {
		pub, err := derivePublicURL(cfg.addr, lns[0].Addr())
		if err != nil {
			return usageError{err}
		}
		opts.PublicURL = pub
	}
	var state *mock.StateDir
	if cfg.stateDir != "" {
		if state, err = mock.OpenStateDir(cfg.stateDir, opts.Logger); err != nil {
			return usageError{err}
		}
		state.SetMaxBytes(int64(cfg.maxState))
		now := time.Now
		if opts.Now != nil {
			now = opts.Now
		}
		opts.DataAnchor = state.Anchor(now())
	}
	srv, err := build(ctx, cfg, opts)
	if err != nil || srv == nil {
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
		return err
	}
	handlers := []http.Handler{srv}
	if cfg.adminAddr != "" {
		handlers = []http.Handler{srv.APIHandler(), srv.AdminHandler()}
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

// exitOnClose reads in (standard input) to its end, then calls stop. The
// end comes when the process holding the pipe's other end exits, however
// it exits, so a test runner killed leaves no server behind.
func exitOnClose(in io.Reader, stop func(), log *slog.Logger) {
	var attrs []any
	if _, err := io.Copy(io.Discard, in); err != nil {
		attrs = append(attrs, "err", err)
	}
	log.Info("standard input closed (--exit-on-stdin-close): shutting down", attrs...)
	stop()
}

// listen opens the listeners of --addr and --admin-addr. Both listen
// before the data is built: its media URLs name the port the main one got
// (--addr 127.0.0.1:0 picks one).
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
// --state-interval; the function it returns stops the loop and saves a
// last time.
func keepState(ctx context.Context, cfg config, state *mock.StateDir, srv *mock.Server, log *slog.Logger) (stop func()) {
	saved := make(chan struct{})
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
		<-saved // the loop's last save is done before the final one
		if err := state.Save(srv); err != nil {
			log.Error("state: the last save failed", "dir", cfg.stateDir, "err", err)
		} else {
			log.Info("state saved", "dir", cfg.stateDir)
		}
	}
}

// setMemoryLimit sets a soft memory limit from the server's budgets,
// unless GOMEMLIMIT is set; it says which.
func setMemoryLimit(cfg config, srv *mock.Server) string {
	if !cfg.memLimit {
		return "GOMEMLIMIT"
	}
	// Go lets the heap grow to twice what is live before collecting: with
	// full budgets, the process would take twice their sum. A soft limit
	// of what is live now (the data built), the budgets and some room
	// makes the collector work harder near it instead.
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	limit := int64(ms.HeapAlloc) + srv.MemoryBudget() + memoryHeadroom
	debug.SetMemoryLimit(limit)
	return strconv.FormatInt(limit>>20, 10) + "MiB"
}

// startServing serves each listener with its handler, after logging where
// and what (served: log attributes); errc receives the first failure.
func startServing(cfg config, opts mock.Options, lns []net.Listener, handlers []http.Handler, served ...any) ([]*http.Server, chan error) {
	var servers []*http.Server
	errc := make(chan error, len(lns))
	admin := "open"
	if cfg.adminToken != "" {
		admin = "locked by token"
	}
	pages := []string{"loopback", "own page"}
	adminOrigins := slices.DeleteFunc(slices.Clone(opts.CORSOrigins), func(o string) bool { return o == "*" || o == "null" })
	for i, ln := range lns {
		hs := &http.Server{
			Handler:           handlers[i],
			ReadHeaderTimeout: cfg.timeouts.readHeader,
			ReadTimeout:       cfg.timeouts.read,
			WriteTimeout:      cfg.timeouts.write,
			IdleTimeout:       cfg.timeouts.idle,
			MaxHeaderBytes:    maxHeaderBytes, // over it, net/http answers 431
			ErrorLog:          slog.NewLogLogger(opts.Logger.Handler(), slog.LevelWarn),
		}
		ln = limitConns(ln, hs, cfg.maxConns)
		servers = append(servers, hs)
		what := "api and admin"
		if len(lns) == 2 {
			what = [2]string{"api", "admin"}[i]
		}
		attrs := []any{"addr", ln.Addr().String(), "reach", reach(ln.Addr()), "serves", what, "admin", admin,
			"api_origins", strings.Join(slices.Concat(pages, opts.CORSOrigins), ","), "admin_origins", strings.Join(slices.Concat(pages, adminOrigins), ","),
			"hosts", strings.Join(append([]string{"loopback", "IPs", "single-label"}, opts.AllowedHosts...), ","), "max_conns", cfg.maxConns}
		if what == "api" { // a public listener: what its clients may start
			perMinute := "any"
			if cfg.newSessions > 0 {
				perMinute = strconv.Itoa(cfg.newSessions)
			}
			attrs = append(attrs, "new_sessions_per_minute", perMinute, "public_scenarios", cmp.Or(strings.Join(opts.PublicScenarios, ","), "those built"))
		}
		attrs = append(append(attrs, served...), "read_only", cfg.readOnly, "strict", cfg.strict,
			"proxy", cmp.Or(cfg.proxy, "none"), "state_dir", cmp.Or(cfg.stateDir, "none"), "store", mock.ShownStoreURL(cfg.store), "version", opts.Version)
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
// host of addr (localhost for a wildcard) and the port bound.
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

// build makes the server, or gives up when ctx ends first (no server, no
// error): a big scenario takes seconds to build, and a SIGTERM meanwhile
// must not wait for it.
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
		}
		srv, err := mock.New(opts)
		if cfg.tuneGC {
			debug.SetGCPercent(100)
		}
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

// reach says who can connect to a listener's address.
func reach(addr net.Addr) string {
	if ap, err := netip.ParseAddrPort(addr.String()); err == nil && ap.Addr().Unmap().IsLoopback() {
		return "this machine only"
	}
	return "every machine that can route to it"
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

const maxHeaderBytes = 64 << 10

// memoryHeadroom is room, beyond the data and the budgets, for what
// requests in flight and connections hold.
const memoryHeadroom = 128 << 20

// The budgets of the server's stores, smaller than mock's defaults: with
// the faults' 16 MiB, the media cache's 32 MiB, memoryHeadroom and the
// default data, the soft memory limit is just under 500 MiB, which a
// laptop or a CI runner has to spare.
const (
	defaultJournalBytes = 64 << 20
	defaultMaxShopBytes = 128 << 20
	defaultMaxSeedBytes = 64 << 20
)
