package probe

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/replymock/replymock/mock/probe/upstream"
)

// Defaults of Config, and of the command's flags.
const (
	DefaultRate        = upstream.DefaultRate
	DefaultMaxRequests = 400
	DefaultTimeout     = upstream.DefaultTimeout
)

// Config is what Run probes and how gently. A zero field but Target
// means its default.
type Config struct {
	Target      string        // the API's base URL up to and including /api/v1
	Token       string        // sent as "Authorization: Bearer TOKEN", or as it is if it has a space
	Rate        float64       // the most requests a second
	MaxRequests int           // the most requests in all, retries included
	Timeout     time.Duration // bounds each request, its answer included
	// AllowWrites runs the rules that PATCH the settings, for sandbox
	// accounts. The original settings are put back at the end, even
	// when a rule fails or ctx is cancelled.
	AllowWrites bool
	Client      *http.Client   // nil means a new one; redirects are never followed
	Progress    func(Progress) // if set, called before each rule runs

	clock          upstream.Clock // nil means the real one; tests set a fake
	allowUnchecked bool           // Main's --allow-unchecked; Run does not read it
}

// Progress is where a run is.
type Progress struct {
	Rule     string // about to run
	Done     int    // rules finished
	Rules    int    // rules in this run
	Requests int    // requests sent
}

// Status is a rule's outcome.
type Status string

const (
	Holds      Status = "holds"
	Differs    Status = "differs"
	NotChecked Status = "could not check"
)

// Result is one rule's outcome.
type Result struct {
	Rule     string        `json:"rule"`  // its id, e.g. "list.limit-bounds"
	Title    string        `json:"title"` // what the contract says
	Status   Status        `json:"status"`
	Detail   string        `json:"detail"`             // one line: what the target did, or why it was not checked
	Evidence []Evidence    `json:"evidence,omitempty"` // when it differs
	Requests int           `json:"requests"`           // sent for this rule
	Duration time.Duration `json:"-"`
}

// Evidence is a request and what came back.
type Evidence struct {
	Request string `json:"request"`        // "GET /feedbacks?limit=101", relative to the target
	Body    string `json:"body,omitempty"` // the request's body, if any
	Status  int    `json:"status"`
	Answer  string `json:"answer"` // the answer's body, trimmed
}

// Report is a whole run.
type Report struct {
	Target      string    `json:"target"`
	Started     time.Time `json:"started"`
	Writes      bool      `json:"writes"`
	MaxRequests int       `json:"max_requests"`
	Rate        float64   `json:"rate"`
	Requests    int       `json:"requests"` // sent in all
	// Aborted says why no rule could be checked, when the target did not
	// answer as this API at all.
	Aborted  string        `json:"aborted,omitempty"`
	Results  []Result      `json:"rules"`
	Duration time.Duration `json:"-"`
}

// Count is how many rules ended with s.
func (r *Report) Count(s Status) int {
	return len(r.IDs(s))
}

// IDs lists the ids of the rules that ended with s.
func (r *Report) IDs(s Status) []string {
	var ids []string
	for _, res := range r.Results {
		if res.Status == s {
			ids = append(ids, res.Rule)
		}
	}
	return ids
}

// The exit statuses of `replymock probe` but 0, which means every rule
// was checked and holds.
const (
	ExitDiffers   = 1 // a rule differs: the server breaks the contract
	ExitUsage     = 2 // bad flags or arguments: nothing was sent
	ExitUnchecked = 3 // no rule differs, but rules could not be checked
)

// DiffersError is returned by Main when at least one rule differs.
type DiffersError struct {
	Rules []string // their ids
}

func (e *DiffersError) Error() string {
	if len(e.Rules) == 1 {
		return "1 rule differs: " + e.Rules[0]
	}
	return fmt.Sprintf("%d rules differ: %s", len(e.Rules), strings.Join(e.Rules, ", "))
}

// ExitCode is ExitDiffers.
func (e *DiffersError) ExitCode() int { return ExitDiffers }

// UncheckedError is returned by Main when no rule differs but rules
// could not be checked.
type UncheckedError struct {
	Reason string // one line
	Err    error  // what stopped the run, if anything: an *AuthError, ctx's error
}

func (e *UncheckedError) Error() string { return e.Reason }
func (e *UncheckedError) Unwrap() error { return e.Err }

// ExitCode is ExitUnchecked.
func (e *UncheckedError) ExitCode() int { return ExitUnchecked }

// UsageError is Main's error for bad flags or arguments.
type UsageError = upstream.UsageError

// AuthError is Run's error when the target refuses the credentials (401).
type AuthError = upstream.AuthError

// Run checks every rule against cfg.Target and reports each one. A rule
// that differs is not an error. The error is an *AuthError when the
// target refused the credentials, ctx's error when it was cancelled
// (the report holds what was checked), or a configuration error, which
// names the field by its flag.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	base, err := upstream.CheckTarget(cfg.Target)
	if err != nil {
		return nil, err
	}
	cfg.Rate = cmp.Or(cfg.Rate, DefaultRate)
	cfg.MaxRequests = cmp.Or(cfg.MaxRequests, DefaultMaxRequests)
	cfg.Timeout = cmp.Or(cfg.Timeout, DefaultTimeout)
	if err := upstream.CheckClientFlags(cfg.Rate, cfg.MaxRequests, cfg.Timeout); err != nil {
		return nil, err
	}
	c := upstream.NewClient(base, cfg.Token, cfg.Rate, cfg.MaxRequests, cfg.Timeout, cfg.Client)
	if cfg.clock != nil {
		c.SetClock(cfg.clock)
	}
	if cfg.AllowWrites {
		c.Reserve(restoreReserve)
	}
	r := &run{c: c, writes: cfg.AllowWrites}
	rep := &Report{Target: upstream.Redacted(base), Started: c.Now(), Writes: cfg.AllowWrites, MaxRequests: cfg.MaxRequests, Rate: cfg.Rate}
	err = r.all(ctx, rep, cfg.Progress)
	rep.Requests = c.Sent()
	rep.Duration = c.Now().Sub(rep.Started)
	return rep, err
}
