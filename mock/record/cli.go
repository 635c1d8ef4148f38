package record

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/replymock/replymock/mock/probe/upstream"
)

// Main is the `replymock record` command; args are those after
// "record". The summary goes to stdout, and the rest to stderr unless
// --quiet. Bad flags are an *upstream.UsageError, a refused token an
// *upstream.AuthError.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, format, quiet, err := parseFlags(args, stdout)
	if err != nil {
		return err
	}
	say := func(format string, args ...any) {
		if !quiet {
			fmt.Fprintf(stderr, format, args...)
		}
	}
	announce(cfg, say)
	if !quiet && upstream.IsTerminal(stderr) {
		cfg.Progress = func(p Progress) {
			fmt.Fprintf(stderr, "\r\033[K%d of %d reviews (%d requests)", p.Reviews, p.Total, p.Requests)
		}
	}
	res, err := Run(ctx, cfg)
	if cfg.Progress != nil {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err != nil {
		if res != nil && ctx.Err() != nil {
			say("interrupted: run the same command again to go on from where it stood\n")
		}
		if res != nil && len(res.Problems) > 0 && format == "text" {
			res.writeText(stdout) // what was written, and each problem
		}
		return err
	}
	if format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	return res.writeText(stdout)
}

// parseFlags reads the command's flags, and checks them; help asked for
// goes to stdout.
func parseFlags(args []string, stdout io.Writer) (cfg Config, format string, quiet bool, err error) {
	fs := flag.NewFlagSet("replymock record", flag.ContinueOnError)
	fs.StringVar(&cfg.From, "from", "", "the API's base `URL`, up to and including /api/v1 (required)")
	fs.StringVar(&cfg.Out, "out", "", "the `DIR` to write the scenario in (required): DIR/scenarios, DIR/fixtures, DIR/recorded")
	fs.StringVar(&cfg.Name, "name", "recorded", "the scenario's `NAME`, and its files'")
	fs.Int64Var(&cfg.Seed, "seed", 1, "the seed of fake names and remapped products: the same input and seed give the same files")
	fs.BoolVar(&cfg.Raw, "raw", false, "keep user names and texts as recorded (default: fake names; phones, e-mails, URLs and long numbers cut out)")
	fs.BoolVar(&cfg.AnonymizeProducts, "anonymize-products", false, "also remap nm_id, imt_id, supplier_article, brand and product names, consistently")
	upstream.ClientFlags(fs, &cfg.Token, &cfg.Rate, &cfg.MaxRequests, &cfg.Timeout, DefaultMaxRequests, " (100 reviews a request)")
	answerMiB := fs.Int64("max-answer-mib", DefaultMaxAnswerBytes>>20, "at most this many MiB read of one answer")
	readMiB := fs.Int64("max-read-mib", DefaultMaxReadBytes>>20, "at most this many MiB read of all answers together, an unfinished run's included (a recording holds about twice what it read in memory)")
	writeMiB := fs.Int64("max-write-mib", DefaultMaxWriteBytes>>20, "at most this many MiB written: the state file and the recording's files together")
	fs.StringVar(&format, "format", "text", "the summary's format: text or json")
	fs.BoolVar(&quiet, "quiet", false, "print the summary and nothing else")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: replymock record --from URL --out DIR [--token T] [flags]\n\n"+
			"Pages read-only through a shop's settings and reviews and writes a scenario\n"+
			"that serves them (DIR/scenarios/NAME.yaml), a living one calibrated on them\n"+
			"(NAME-live.yaml), their fixtures, and the records as they came\n"+
			"(DIR/recorded/NAME.json). Cut short, a run goes on where it stood the next\n"+
			"time. Exit status 1 on failure, 2 for bad flags.\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := upstream.ParseFlags(fs, args, stdout); err != nil {
		return cfg, format, quiet, err
	}
	switch {
	case fs.NArg() > 0:
		err = fmt.Errorf("record takes no arguments, got %q", fs.Args())
	case cfg.From == "":
		err = errors.New("--from is required: the API's base URL, up to and including /api/v1")
	case cfg.Out == "":
		err = errors.New("--out is required: the folder to write the scenario in")
	case format != "text" && format != "json":
		err = fmt.Errorf("--format must be text or json, got %q", format)
	case !nameRE.MatchString(cfg.Name):
		err = fmt.Errorf("--name must be lower-case letters, digits, - and _ (a scenario's file name), got %q", cfg.Name)
	}
	for _, b := range []struct {
		name string
		mib  int64
	}{{"answer", *answerMiB}, {"read", *readMiB}, {"write", *writeMiB}} {
		if err == nil && (b.mib < 1 || b.mib > maxMiB) {
			err = fmt.Errorf("--max-%s-mib must be from 1 to %d, got %d", b.name, maxMiB, b.mib)
		}
	}
	cfg.MaxAnswerBytes, cfg.MaxReadBytes, cfg.MaxWriteBytes = *answerMiB<<20, *readMiB<<20, *writeMiB<<20
	if err != nil {
		return cfg, format, quiet, &upstream.UsageError{Err: err}
	}
	if err := upstream.CheckClientFlags(cfg.Rate, cfg.MaxRequests, cfg.Timeout); err != nil {
		return cfg, format, quiet, err
	}
	if _, err := upstream.CheckTarget(cfg.From); err != nil {
		return cfg, format, quiet, &upstream.UsageError{Err: errors.New("--from" + strings.TrimPrefix(err.Error(), "probe: target"))}
	}
	return cfg, format, quiet, nil
}

// maxMiB is the most a bound of the command's may be, in MiB: a TiB.
const maxMiB = 1 << 20

// announce says what a recording reads and writes, and within which
// budget, before it starts. It warns of a token sent in the clear.
func announce(cfg Config, say func(format string, args ...any)) {
	if w := upstream.TokenWarning(cfg.From, cfg.Token); w != "" {
		say("warning: %s\n", w)
	}
	mode := "anonymised (fake names; phones, e-mails, URLs and long numbers cut out)"
	if cfg.Raw {
		mode = "raw (names and texts as they are)"
	}
	if cfg.AnonymizeProducts {
		mode += ", products remapped"
	}
	say("record %s into %s as %q: read-only, %s\nbudget: at most %d requests (%d reviews), %g a second, each within %s; %s an answer, %s read, %s written\n",
		upstream.Redacted(strings.TrimRight(cfg.From, "/")), cfg.Out, cfg.Name, mode, cfg.MaxRequests, (cfg.MaxRequests-1)*pageSize, cfg.Rate, cfg.Timeout,
		upstream.Size(cfg.MaxAnswerBytes), upstream.Size(cfg.MaxReadBytes), upstream.Size(cfg.MaxWriteBytes))
}

// writeText writes the summary for a person.
func (res *Result) writeText(w io.Writer) error {
	c := res.Calibration
	var b strings.Builder
	fmt.Fprintf(&b, "recorded %d reviews from %s in %d requests", res.Reviews, res.From, res.Requests)
	if res.Resumed > 0 {
		fmt.Fprintf(&b, " (going on from %d recorded before)", res.Resumed)
	}
	b.WriteString("\n")
	for _, f := range res.Files {
		fmt.Fprintf(&b, "  wrote %s\n", f)
	}
	fmt.Fprintf(&b, "ratings 1-5: %v; answered %.0f%%; rating-only %.0f%%; photos %.0f%%; video %.0f%%; %d products; %s to %s; %.2f new an hour\n",
		c.Ratings, 100*c.AnsweredShare, 100*c.RatingOnlyShare, 100*c.PhotoShare, 100*c.VideoShare, c.Products, c.First, c.Last, c.ArrivalsPerHour)
	if len(res.Anonymized) > 0 {
		fmt.Fprintf(&b, "anonymised: %s\n", joinCounts(res.Anonymized))
	}
	if len(res.Unreadable) > 0 {
		fmt.Fprintf(&b, "left out of the fixtures, not as the API writes them (kept in recorded/%s.json): %s\n", res.Name, joinCounts(res.Unreadable))
	}
	for _, p := range res.Problems {
		fmt.Fprintf(&b, "problem: %s\n", p)
	}
	if len(res.UnknownFields) > 0 {
		fmt.Fprintf(&b, "fields this version does not know (kept in recorded/%s.json, not served): %s\n", res.Name, joinCounts(res.UnknownFields))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// joinCounts writes counts as "a 3, b 1", by name.
func joinCounts(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
