package probe

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/replymock/replymock/mock/probe/upstream"
)

// Main is the `replymock probe` command; args are those after "probe".
// The report goes to stdout, and the rest to stderr unless --quiet.
// Its error is a *DiffersError, a *UsageError or an *UncheckedError,
// one for each exit status but 0.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, format, quiet, err := parseFlags(args, stdout)
	if err != nil {
		return err
	}
	if !quiet {
		announce(cfg, stderr)
	}
	if !quiet && upstream.IsTerminal(stderr) {
		cfg.Progress = progressLine(stderr)
	}
	rep, err := Run(ctx, cfg)
	if rep != nil {
		// Said even with --quiet, and before anything else can go wrong.
		warnUnrestored(rep, stderr)
	}
	var ae *AuthError
	if errors.As(err, &ae) {
		return &UncheckedError{Reason: err.Error(), Err: err}
	}
	if rep == nil {
		return err
	}
	if werr := rep.Write(stdout, format); werr != nil {
		return werr
	}
	return verdict(rep, err, cfg.allowUnchecked)
}

// parseFlags reads the command's flags, and checks them; help asked for
// goes to stdout.
func parseFlags(args []string, stdout io.Writer) (cfg Config, format string, quiet bool, err error) {
	fs := flag.NewFlagSet("replymock probe", flag.ContinueOnError)
	fs.StringVar(&cfg.Target, "target", "", "the API's base `URL`, up to and including /api/v1 (required)")
	upstream.ClientFlags(fs, &cfg.Token, &cfg.Rate, &cfg.MaxRequests, &cfg.Timeout, DefaultMaxRequests, "")
	fs.StringVar(&format, "format", "table", "the report's format: table, json or junit")
	fs.BoolVar(&cfg.AllowWrites, "allow-writes", false, "also PATCH the settings (sandbox accounts only); they are restored at the end")
	fs.BoolVar(&cfg.allowUnchecked, "allow-unchecked", false, "exit 0 even when rules could not be checked, when none differs, one holds and the run was not interrupted")
	fs.BoolVar(&quiet, "quiet", false, "print the report and nothing else")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: replymock probe --target URL [--token T] [flags]\n\n"+
			"Checks, read-only, that a server claiming to be this API follows each rule of\n"+
			"the contract replymock fakes, and reports per rule: holds, differs (with the\n"+
			"request and answer that show it) or could not check.\n\n"+
			"exit status:\n"+
			"  0  every rule was checked and holds\n"+
			"  1  a rule differs: the server breaks the contract\n"+
			"  2  bad flags or arguments: nothing was sent\n"+
			"  3  no rule differs, but rules could not be checked (errors, the budget,\n"+
			"     a refused token, not this API, interrupted); --allow-unchecked makes\n"+
			"     that 0 when the run went through and one rule holds\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := upstream.ParseFlags(fs, args, stdout); err != nil {
		return cfg, format, quiet, err
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

// announce says what a run checks and within which budget, before it
// starts. It warns of a token sent in the clear.
func announce(cfg Config, w io.Writer) {
	if warning := upstream.TokenWarning(cfg.Target, cfg.Token); warning != "" {
		fmt.Fprintf(w, "warning: %s\n", warning)
	}
	mode := "read-only (--allow-writes adds 4 rules that PATCH the settings)"
	if cfg.AllowWrites {
		mode = "with writes: the settings are PATCHed, then restored"
	}
	longest := "under a second"
	if d := time.Duration(float64(cfg.MaxRequests) / cfg.Rate * float64(time.Second)); d >= time.Second {
		longest = d.Round(time.Second).String()
	}
	fmt.Fprintf(w, "probe %s: %d rules, %s\nbudget: at most %d requests, %g a second (%s at most), each within %s\n",
		upstream.Redacted(strings.TrimRight(cfg.Target, "/")), len(selected(cfg.AllowWrites)), mode, cfg.MaxRequests, cfg.Rate, longest, cfg.Timeout)
	if u, err := url.Parse(cfg.Target); err == nil && !strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/api/v1") {
		fmt.Fprint(w, "note: the target's path does not end in /api/v1; the probe asks for TARGET/settings/ai and TARGET/feedbacks\n")
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

// warnUnrestored warns when the original settings may not be back,
// and shows the PATCH that puts them back.
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

// verdict is Main's error for a run that wrote its report; err is
// Run's. A rule that differs wins over all else: the server is known
// to break the contract.
func verdict(rep *Report, err error, allowUnchecked bool) error {
	unchecked := rep.IDs(NotChecked)
	switch {
	case rep.Count(Differs) > 0:
		return &DiffersError{Rules: rep.IDs(Differs)}
	case err != nil:
		return &UncheckedError{Reason: "probe interrupted: " + stopReason(err), Err: err}
	case rep.Aborted != "":
		return &UncheckedError{Reason: "nothing was checked: " + rep.Aborted}
	case rep.Count(Holds) == 0:
		return &UncheckedError{Reason: "nothing was checked: every rule was left unchecked"}
	case len(unchecked) > 0 && !allowUnchecked:
		return &UncheckedError{Reason: fmt.Sprintf("%d of %d rules could not be checked: %s (the report says why; --allow-unchecked accepts that)",
			len(unchecked), len(rep.Results), strings.Join(unchecked, ", "))}
	}
	return nil
}
