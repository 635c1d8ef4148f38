package upstream

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/url"
	"os"
	"strings"
	"time"
)

// Defaults of the commands' flags, and of a zero Config's fields.
const (
	// DefaultRate is the upstream's limit: 3 requests a second per seller
	// account, shared by all review and question methods.
	DefaultRate    = 3.0
	DefaultTimeout = 10 * time.Second
)

// UsageError is a command's bad flag or argument (exit status 2). For
// -h it wraps flag.ErrHelp, after the usage was printed.
type UsageError struct {
	Err error
}

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// ClientFlags adds to fs the flags of a command that talks to the API:
// --token, --rate, --max-requests (def, with per added to its usage) and
// --timeout.
func ClientFlags(fs *flag.FlagSet, token *string, rate *float64, max *int, timeout *time.Duration, def int, per string) {
	// ParseFlags reads the variable, so that the help does not print
	// the token.
	fs.StringVar(token, "token", "", "sent as Authorization: Bearer `TOKEN` (default $"+TokenVariable+")")
	fs.Float64Var(rate, "rate", DefaultRate, "at most this many requests a second (the upstream allows 3)")
	fs.IntVar(max, "max-requests", def, "at most this many requests in all, retries included"+per)
	fs.DurationVar(timeout, "timeout", DefaultTimeout, "how long one request may take, its answer included")
}

// TokenVariable is the environment variable --token defaults to.
const TokenVariable = "REPLYMOCK_PROBE_TOKEN"

// ParseFlags parses a command's args into fs. Help goes to stdout, and
// the error then wraps flag.ErrHelp. A --token not given is read from
// $REPLYMOCK_PROBE_TOKEN.
func ParseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) error {
	var help bytes.Buffer
	fs.SetOutput(&help)
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		_, werr := stdout.Write(help.Bytes())
		return &UsageError{Err: errors.Join(flag.ErrHelp, werr)}
	case err != nil:
		return &UsageError{Err: fmt.Errorf("%v (%s -h lists the flags)", err, fs.Name())}
	}
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "token" })
	if f := fs.Lookup("token"); f != nil && !given {
		f.Value.Set(os.Getenv(TokenVariable)) // a string flag takes any value
	}
	return nil
}

// CheckClientFlags checks what ClientFlags read. Its error is a
// *UsageError naming the flag.
func CheckClientFlags(rate float64, max int, timeout time.Duration) error {
	switch {
	case !(rate > 0) || math.IsInf(rate, 0):
		return &UsageError{fmt.Errorf("--rate must be a number above 0, got %v", rate)}
	case max < 1:
		return &UsageError{fmt.Errorf("--max-requests must be at least 1, got %d", max)}
	case timeout <= 0:
		return &UsageError{fmt.Errorf("--timeout must be above 0, got %s", timeout)}
	}
	return nil
}

// CheckTarget checks target as the API's base URL and returns it
// without a trailing slash. Its errors start with "probe: target" (or
// "probe: no target"), which record replaces with its own words.
func CheckTarget(target string) (string, error) {
	if target == "" {
		return "", errors.New("probe: no target: give the API's base URL, up to and including /api/v1")
	}
	u, err := url.Parse(target)
	if err != nil {
		return "", fmt.Errorf("probe: target %q: %v", target, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("probe: target %q: want an http or https URL such as http://localhost:8080/api/v1", target)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("probe: target %q: give the base URL alone, without a query or fragment", target)
	}
	return strings.TrimRight(target, "/"), nil
}

// TokenWarning warns when a token would cross the network in the clear,
// or is "".
func TokenWarning(target, token string) string {
	u, err := url.Parse(target)
	if err != nil || token == "" || u.Scheme != "http" {
		return ""
	}
	host := u.Hostname()
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return ""
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return ""
	}
	return "the token goes to " + host + " over plain http, readable on the way; prefer https"
}

// Redacted is a target without its password, as reports show it.
func Redacted(target string) string {
	u, err := url.Parse(target)
	if err != nil {
		return target
	}
	return u.Redacted()
}

// authorization is the Authorization header for token. A bare token
// gets the Bearer scheme; one that names its scheme is kept.
func authorization(token string) string {
	token = strings.TrimSpace(token)
	if token == "" || strings.ContainsRune(token, ' ') {
		return token
	}
	return "Bearer " + token
}

// IsTerminal reports whether w is a terminal, where a progress line
// that rewrites itself reads well.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
