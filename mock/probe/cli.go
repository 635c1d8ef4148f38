package probe

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/replymock/replymock/mock/probe/upstream"
)

// Main is the `replymock probe` command: args are those after "probe".
// The report goes to stdout; the announcement of the budget, progress
// (on a terminal) and warnings go to stderr, unless --quiet. It returns
// nil when every rule checked holds; a *DiffersError when a rule
// differs; a *UsageError for bad flags (wrapping flag.ErrHelp for -h);
// an *AuthError when the target refused the token; another error when
// nothing could be checked or the run was interrupted.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, format, quiet, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	say := func(format string, args ...any) {
		if !quiet {
			fmt.Fprintf(stderr, format, args...)
		}
	}
	announce(cfg, say)
	if !quiet && isTerminal(stderr) {
		cfg.Progress = progressLine(stderr)
	}
	rep, err := Run(ctx, cfg)
	if rep != nil {
		// Said even with --quiet, and before anything else can go wrong.
		warnUnrestored(rep, stderr)
	}
	var ae *AuthError
	if rep == nil || errors.As(err, &ae) {
		return err
	}
	if werr := rep.Write(stdout, format); werr != nil {
		return werr
	}
	return verdict(rep, err)
}

// parseFlags reads the command's flags, and checks them.
func parseFlags(args []string, stderr io.Writer) (cfg Config, format string, quiet bool, err error) {
	fs := flag.NewFlagSet("replymock probe", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.Target, "target", "", "the API's base URL, up to and including /api/v1 (required)")
	upstream.ClientFlags(fs, &cfg.Token, &cfg.Rate, &cfg.MaxRequests, &cfg.Timeout, DefaultMaxRequests, "")
	fs.StringVar(&format, "format", "table", "the report's format: table, json or junit")
	fs.BoolVar(&cfg.AllowWrites, "allow-writes", false, "also PATCH the settings (sandbox accounts only); they are restored at the end")
	fs.BoolVar(&quiet, "quiet", false, "print the report and nothing else")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: replymock probe --target URL [--token T] [flags]\n\n"+
			"Checks, read-only, that a server claiming to be this API follows each rule of\n"+
			"the contract replymock fakes, and reports per rule: holds, differs (with the\n"+
			"request and answer that show it) or could not check. Exit status 1 when a\n"+
			"rule differs, 2 for bad flags.\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return cfg, format, quiet, &UsageError{Err: err}
	}
	switch {
	case fs.NArg() > 0:
		return cfg, format, quiet, &UsageError{Err: fmt.Errorf("probe takes no arguments, got %q", fs.Args())}
	case cfg.Target == "":
		return cfg, format, quiet, &UsageError{Err: errors.New("--target is required: the API's base URL, up to and including /api/v1")}
	case !slices.Contains(Formats, format):
		return cfg, format, quiet, &UsageError{Err: fmt.Errorf("--format must be table, json or junit, got %q", format)}
	}
	if err := upstream.CheckClientFlags(cfg.Rate, cfg.MaxRequests, cfg.Timeout); err != nil {
		return cfg, format, quiet, err
	}
	if _, err := upstream.CheckTarget(cfg.Target); err != nil {
		return cfg, format, quiet, &UsageError{Err: errors.New("--" + strings.TrimPrefix(err.Error(), "probe: "))}
	}
	return cfg, format, quiet, nil
}

// announce says, before a run starts, what it checks and within which
// budget; and warns of a token sent in the clear.
func announce(cfg Config, say func(format string, args ...any)) {
	if w := upstream.TokenWarning(cfg.Target, cfg.Token); w != "" {
		say("warning: %s\n", w)
	}
	n := 0
	for _, ru := range Rules() {
		if !ru.Writes || cfg.AllowWrites {
			n++
		}
	}
	mode := "read-only (--allow-writes adds 4 rules that PATCH the settings)"
	if cfg.AllowWrites {
		mode = "with writes: the settings are PATCHed, then restored"
	}
	longest := "under a second"
	if d := time.Duration(float64(cfg.MaxRequests) / cfg.Rate * float64(time.Second)); d >= time.Second {
		longest = d.Round(time.Second).String()
	}
	say("probe %s: %d rules, %s\nbudget: at most %d requests, %g a second (%s at most), each within %s\n",
		upstream.Redacted(strings.TrimRight(cfg.Target, "/")), n, mode, cfg.MaxRequests, cfg.Rate, longest, cfg.Timeout)
	if u, err := url.Parse(cfg.Target); err == nil && !strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/api/v1") {
		say("note: the target's path does not end in /api/v1; the probe asks for TARGET/settings/ai and TARGET/feedbacks\n")
	}
}

// progressLine is a progress callback that rewrites one line of w.
func progressLine(w io.Writer) func(Progress) {
	return func(p Progress) {
		if p.Rule == "" {
			fmt.Fprint(w, "\r\033[K")
			return
		}
		fmt.Fprintf(w, "\r\033[K[%d/%d] %s (%d requests)", p.Done, p.Rules, p.Rule, p.Requests)
	}
}

// warnUnrestored warns on w when the original settings may not be
// back, with the PATCH that puts them back.
func warnUnrestored(rep *Report, w io.Writer) {
	for _, res := range rep.Results {
		if res.Rule == "writes.restored" && res.Status != Holds {
			fmt.Fprintf(w, "WARNING: %s\n", res.Detail)
			for _, ev := range res.Evidence {
				if ev.Body != "" {
					fmt.Fprintf(w, "%s\n%s\n", ev.Request, ev.Body)
					break
				}
			}
		}
	}
}

// verdict is Main's error for a run that wrote its report: err is
// Run's.
func verdict(rep *Report, err error) error {
	switch {
	case err != nil:
		return fmt.Errorf("probe interrupted: %s", stopReason(err))
	case rep.Count(Differs) > 0:
		return &DiffersError{Rules: rep.Differing()}
	case rep.Aborted != "":
		return errors.New("nothing was checked: " + rep.Aborted)
	case rep.Count(Holds) == 0:
		return errors.New("nothing was checked: every rule was left unchecked")
	}
	return nil
}

// isTerminal reports whether w is a terminal, where a progress line
// that rewrites itself reads well.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
