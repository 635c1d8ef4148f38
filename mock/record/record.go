package record

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/mock/probe/upstream"
)

// Config says what Run records and how.
type Config struct {
	// From is the API's base URL up to and including /api/v1.
	From string
	// Token, when set, is sent as "Authorization: Bearer TOKEN".
	Token string
	// Out is the folder the scenario is written in.
	Out string
	// Name names the scenario and its files; "" means "recorded".
	Name string
	// Seed drives the fake names and remapped products; 0 means 1.
	Seed int64
	// Raw keeps names and texts as recorded. Otherwise user names become
	// fake ones, and phones, e-mails, URLs and long numbers are cut out.
	Raw bool
	// AnonymizeProducts remaps the product ids and names, consistently.
	AnonymizeProducts bool
	// Rate, MaxRequests, Timeout and Client are as for the probe;
	// MaxRequests 0 means DefaultMaxRequests.
	Rate        float64
	MaxRequests int
	Timeout     time.Duration
	Client      *http.Client
	// Progress, when set, is called after each page.
	Progress func(Progress)
	// MaxAnswerBytes bounds one answer, MaxReadBytes all answers (an
	// unfinished run's included), and MaxWriteBytes all that is written.
	// 0 means the default of each.
	MaxAnswerBytes int64
	MaxReadBytes   int64
	MaxWriteBytes  int64
}

// DefaultMaxRequests bounds a recording: 100,000 reviews, and the
// settings.
const DefaultMaxRequests = 1002

// The bounds of a recording's bytes, by default. 100,000 reviews are
// some 110 MB, and write some three times that. A recording holds about
// twice what it read in memory, so MaxReadBytes bounds its memory too.
const (
	DefaultMaxAnswerBytes = 8 << 20
	DefaultMaxReadBytes   = 256 << 20
	DefaultMaxWriteBytes  = 1 << 30
)

// pageSize is the page size a recording asks for: the API's largest.
const pageSize = 100

// Progress is where a recording stands.
type Progress struct {
	Reviews  int // recorded so far
	Total    int // the list's total, as last answered
	Requests int // sent so far
}

// Result says what a recording wrote.
type Result struct {
	Name     string   `json:"name"`
	From     string   `json:"from"`
	Reviews  int      `json:"reviews"`
	Resumed  int      `json:"resumed_from"` // reviews an earlier, interrupted run had recorded
	Requests int      `json:"requests"`
	Files    []string `json:"files"` // relative to Out
	// UnknownFields counts the records (or settings elements) with each
	// field this version does not know, kept in recorded/NAME.json only.
	UnknownFields map[string]int `json:"unknown_fields"`
	// Anonymized says what was replaced or cut, and how often.
	Anonymized map[string]int `json:"anonymized"`
	// Unreadable counts the fields left out of the fixtures because they
	// were not as the API writes them.
	Unreadable map[string]int `json:"unreadable"`
	// Problems keep the written scenario from serving; the recording
	// then fails.
	Problems    []string    `json:"problems,omitempty"`
	Calibration Calibration `json:"calibration"`
}

// Run pages read-only through the shop at cfg.From and writes a
// scenario that serves it. A run cut short keeps what it recorded, and
// the next run with the same From and Out goes on from there.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	base, err := upstream.CheckTarget(cfg.From)
	if err != nil {
		return nil, errors.New("record: " + strings.TrimPrefix(err.Error(), "probe: target"))
	}
	if cfg.Name == "" {
		cfg.Name = "recorded"
	}
	if !nameRE.MatchString(cfg.Name) {
		return nil, fmt.Errorf("record: name %q: lower-case letters, digits, - and _, as a scenario's file name", cfg.Name)
	}
	if cfg.Out == "" {
		return nil, errors.New("record: no output folder")
	}
	cfg.Seed = cmp.Or(cfg.Seed, 1)
	cfg.Rate = cmp.Or(cfg.Rate, upstream.DefaultRate)
	cfg.MaxRequests = cmp.Or(cfg.MaxRequests, DefaultMaxRequests)
	cfg.Timeout = cmp.Or(cfg.Timeout, upstream.DefaultTimeout)
	cfg.MaxAnswerBytes = cmp.Or(cfg.MaxAnswerBytes, DefaultMaxAnswerBytes)
	cfg.MaxReadBytes = cmp.Or(cfg.MaxReadBytes, DefaultMaxReadBytes)
	cfg.MaxWriteBytes = cmp.Or(cfg.MaxWriteBytes, DefaultMaxWriteBytes)
	c := upstream.NewClient(base, cfg.Token, cfg.Rate, cfg.MaxRequests, cfg.Timeout, cfg.Client)
	res := &Result{Name: cfg.Name, From: upstream.Redacted(base), UnknownFields: map[string]int{}, Anonymized: map[string]int{}, Unreadable: map[string]int{}}

	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	statePath := filepath.Join(cfg.Out, ".record-"+cfg.Name+".jsonl")
	before, err := stateSize(statePath, cfg.MaxReadBytes)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	st, err := loadState(statePath, base)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	out := &budget{max: cfg.MaxWriteBytes}
	limits := upstream.Limits{Answer: cfg.MaxAnswerBytes, Total: cfg.MaxReadBytes, AnswerFlag: "max-answer-mib", TotalFlag: "max-read-mib"}
	if st != nil {
		res.Resumed = len(st.records)
		out.used = before // on disk already, and read before
		limits.Before = before
	}
	c.SetLimits(limits)
	if st == nil {
		if st, err = startState(ctx, c, statePath, base, out); err != nil {
			return nil, err
		}
	}
	if err := fetchPages(ctx, c, statePath, st, out, cfg.Progress); err != nil {
		return res, err
	}
	res.Requests = c.Sent()
	if err := write(cfg, base, st, res, out); err != nil {
		return res, fmt.Errorf("record: %w", err)
	}
	os.Remove(statePath)
	return res, checkServes(cfg, res)
}

// startState reads the settings and starts the state file with them.
func startState(ctx context.Context, c *upstream.Client, statePath, base string, out *budget) (*recordState, error) {
	data, err := c.GetData(ctx, "/settings/ai")
	if err != nil {
		return nil, recordError(err)
	}
	if _, ok := data.(map[string]any); !ok {
		return nil, fmt.Errorf("record: GET /settings/ai: data is %s, not the settings object", upstream.Kind(data))
	}
	st := &recordState{From: base, Settings: json.RawMessage(mustJSON(data))}
	if err := appendLine(statePath, st, true, out); err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	return st, nil
}

// fetchPages pages through the list from where st stands to its end,
// appending each page to the state file as it comes.
func fetchPages(ctx context.Context, c *upstream.Client, statePath string, st *recordState, out *budget, progress func(Progress)) error {
	for st.total == 0 || st.offset < st.total {
		// New reviews may arrive meanwhile, pushing the older ones a
		// place on: a page may repeat a review, which is kept once.
		page, err := fetchPage(ctx, c, st)
		if err != nil {
			return err
		}
		if err := appendLine(statePath, page, false, out); err != nil {
			return fmt.Errorf("record: %w", err)
		}
		st.add(page)
		if progress != nil {
			progress(Progress{Reviews: len(st.records), Total: st.total, Requests: c.Sent()})
		}
		if len(page.Records) < pageSize {
			break
		}
	}
	return nil
}

// fetchPage reads the page at st's offset.
func fetchPage(ctx context.Context, c *upstream.Client, st *recordState) (statePage, error) {
	path := fmt.Sprintf("/feedbacks?limit=%d&offset=%d", pageSize, st.offset)
	page := statePage{Offset: st.offset, Total: st.total}
	data, err := c.GetData(ctx, path)
	if err != nil {
		return page, recordError(err)
	}
	obj, _ := data.(map[string]any)
	list, ok := obj["feedbacks"].([]any)
	if !ok {
		return page, fmt.Errorf("record: GET %s: data has no feedbacks list", path)
	}
	if len(list) > pageSize {
		return page, fmt.Errorf("record: GET %s: the page holds %d records, more than the %d asked for: not this API's paging", path, len(list), pageSize)
	}
	if t, ok := upstream.AsInt(obj["total"]); ok {
		page.Total = int(t)
	}
	for i, v := range list {
		if _, ok := v.(map[string]any); !ok {
			return page, fmt.Errorf("record: GET %s: feedbacks[%d] is %s, not a record", path, i, upstream.Kind(v))
		}
		page.Records = append(page.Records, mustJSON(v))
	}
	return page, nil
}

// checkServes checks that what was written serves, listing each problem
// in res.
func checkServes(cfg Config, res *Result) error {
	results, err := mock.ValidateScenarios(mock.Options{Scenarios: os.DirFS(filepath.Join(cfg.Out, "scenarios")),
		Fixtures: os.DirFS(filepath.Join(cfg.Out, "fixtures")), ShippedFixtures: true, Scenario: cfg.Name})
	if err != nil {
		return fmt.Errorf("record: checking what was written: %w", err)
	}
	for _, r := range results {
		for _, p := range mock.Problems(r.Err) {
			res.Problems = append(res.Problems, p.Error())
		}
	}
	if len(res.Problems) > 0 {
		return fmt.Errorf("record: the recording does not serve as written: %s (and %d more problems in the summary)", res.Problems[0], len(res.Problems)-1)
	}
	return nil
}

var nameRE = regexp.MustCompile(`^[a-z0-9_-]{1,64}$`)

// recordError is err after "record: ", but for a refused token, which
// is said as the probe says it.
func recordError(err error) error {
	var ae *upstream.AuthError
	if errors.As(err, &ae) {
		return err
	}
	return fmt.Errorf("record: %v", err)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // decoded JSON encodes
	}
	return b
}
