package probe

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"math"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/google/renameio/v2"
	"github.com/replymock/replymock/mock"
	"gopkg.in/yaml.v3"
)

// RecordConfig says what Record records and how.
type RecordConfig struct {
	// From is the API's base URL up to and including /api/v1.
	From string
	// Token, when set, is sent as "Authorization: Bearer TOKEN".
	Token string
	// Out is the folder the scenario is written in: Out/scenarios,
	// Out/fixtures/reviews, Out/fixtures/settings, Out/recorded.
	Out string
	// Name names the scenario and its files; "" means "recorded".
	Name string
	// Seed drives the fake names and remapped products: the same input
	// and seed give the same output. 0 means 1.
	Seed int64
	// Raw keeps names and texts as recorded; otherwise user names are
	// replaced by consistent fake ones, and phone numbers, e-mail
	// addresses, URLs and long numbers (orders, cards) are cut out of
	// texts, pros, cons and answers.
	Raw bool
	// AnonymizeProducts remaps nm_id, imt_id, supplier_article, brand
	// and product names, consistently.
	AnonymizeProducts bool
	// Rate, MaxRequests, Timeout and Client are as for the probe;
	// MaxRequests 0 means DefaultRecordRequests.
	Rate        float64
	MaxRequests int
	Timeout     time.Duration
	Client      *http.Client
	// Progress, when set, is called after each page.
	Progress func(RecordProgress)

	clock clock
}

// DefaultRecordRequests bounds a recording: 100,000 reviews, and the
// settings.
const DefaultRecordRequests = 1002

// recordPage is the page size a recording asks for: the API's largest.
const recordPage = 100

// RecordProgress is where a recording stands.
type RecordProgress struct {
	Reviews  int // recorded so far
	Total    int // the list's total, as last answered
	Requests int // sent so far
}

// RecordResult says what a recording wrote.
type RecordResult struct {
	Name     string `json:"name"`
	From     string `json:"from"`
	Reviews  int    `json:"reviews"`
	Resumed  int    `json:"resumed_from"` // reviews an earlier, interrupted run had recorded
	Requests int    `json:"requests"`
	// Files are the files written, relative to Out.
	Files []string `json:"files"`
	// UnknownFields counts the records (or settings elements) with
	// each field this version does not know: kept in recorded/NAME.json,
	// left out of the fixtures.
	UnknownFields map[string]int `json:"unknown_fields"`
	// Anonymized says what was replaced or cut, and how often.
	Anonymized map[string]int `json:"anonymized"`
	// Unreadable counts the fields left out of the fixtures because they
	// were not as the API writes them (photos that are not a JSON list);
	// the records as they came are in recorded/NAME.json.
	Unreadable map[string]int `json:"unreadable"`
	// Problems are what keeps the written scenario from serving, if
	// anything: the record then fails.
	Problems    []string    `json:"problems,omitempty"`
	Calibration Calibration `json:"calibration"`
}

// Calibration is what the recorded shop measures: the generate block of
// NAME-live.yaml is written from it, and the rest is for a reader.
type Calibration struct {
	Ratings         [5]int         `json:"ratings"`
	AnsweredShare   float64        `json:"answered_share"`
	RatingOnlyShare float64        `json:"rating_only_share"`
	PhotoShare      float64        `json:"photo_share"`
	VideoShare      float64        `json:"video_share"`
	SameSecondShare float64        `json:"same_second_share"`
	Products        int            `json:"products"`
	First           string         `json:"first"`
	Last            string         `json:"last"`
	Days            int            `json:"days"`
	ArrivalsPerHour float64        `json:"arrivals_per_hour"` // over the last 30 days recorded
	ByHour          [24]int        `json:"by_hour"`           // reviews by hour of created_date
	TextLength      map[string]int `json:"text_length"`       // percentiles of the texts' lengths, in characters
	Locale          string         `json:"locale"`
}

// recordState is an unfinished recording, kept in Out/.record-NAME.jsonl
// so that a run cut short goes on where it stood: a first line with the
// target and its settings, then a line per page, appended and synced
// as each page comes (never rewritten: a recording costs its size once).
type recordState struct {
	From     string          `json:"from"`
	Settings json.RawMessage `json:"settings"`

	offset  int // the list's offset the next page starts at
	total   int // the list's total, as last answered
	records []json.RawMessage
	seen    map[string]bool
}

// statePage is a line of the state file after the first.
type statePage struct {
	Offset  int               `json:"offset"` // of the page's first record
	Total   int               `json:"total"`
	Records []json.RawMessage `json:"records"`
}

// add keeps a page's records, each once.
func (st *recordState) add(p statePage) {
	if st.seen == nil {
		st.seen = map[string]bool{}
	}
	for _, raw := range p.Records {
		if k := recordKey(raw); k == "/" || !st.seen[k] {
			st.seen[k] = true
			st.records = append(st.records, raw)
		}
	}
	st.offset, st.total = p.Offset+len(p.Records), p.Total
}

// loadState reads the state file of an earlier run from the same target;
// a line cut short by a crash, and what follows it, are dropped (the
// file is cut back to the last whole line). It returns nil for none.
func loadState(path, from string) (*recordState, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil
	}
	st := &recordState{}
	good := 0
	for i, line := range bytes.SplitAfter(data, []byte("\n")) {
		if !bytes.HasSuffix(line, []byte("\n")) {
			break
		}
		if i == 0 {
			if json.Unmarshal(line, st) != nil || st.From != from || st.Settings == nil {
				return nil, nil // another target's, or unreadable: start again
			}
		} else {
			var p statePage
			if json.Unmarshal(line, &p) != nil {
				break
			}
			st.add(p)
		}
		good += len(line)
	}
	if good == 0 {
		return nil, nil
	}
	if good < len(data) {
		if err := os.Truncate(path, int64(good)); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// appendLine appends v as a line of JSON to the file at path and syncs it.
func appendLine(path string, v any, create bool) error {
	flags := os.O_WRONLY | os.O_APPEND
	if create {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if err != nil {
		return err
	}
	b := append(mustJSON(v), '\n')
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// Record pages read-only through a shop's settings and reviews at
// cfg.From and writes a scenario that serves them: the list, counts and
// every filter answer as the shop does (but for what anonymising
// replaced). A run cut short (ctx, an error) keeps what it recorded, and
// the next run with the same From and Out goes on from there.
func Record(ctx context.Context, cfg RecordConfig) (*RecordResult, error) {
	base, err := checkTarget(cfg.From)
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
	cfg.Rate = cmp.Or(cfg.Rate, DefaultRate)
	cfg.MaxRequests = cmp.Or(cfg.MaxRequests, DefaultRecordRequests)
	cfg.Timeout = cmp.Or(cfg.Timeout, DefaultTimeout)
	clk := cfg.clock
	if clk == nil {
		clk = realClock{}
	}
	c := newClient(base, cfg.Token, cfg.Rate, cfg.MaxRequests, cfg.Timeout, cfg.Client, clk)
	res := &RecordResult{Name: cfg.Name, From: redacted(base), UnknownFields: map[string]int{}, Anonymized: map[string]int{}, Unreadable: map[string]int{}}

	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	statePath := filepath.Join(cfg.Out, ".record-"+cfg.Name+".jsonl")
	st, err := loadState(statePath, base)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	if st != nil {
		res.Resumed = len(st.records)
	} else {
		ex, err := c.get(ctx, "/settings/ai", false)
		if err != nil {
			return nil, recordError(err)
		}
		data, err := okData(ex)
		if err != nil {
			return nil, recordError(err)
		}
		if _, ok := data.(map[string]any); !ok {
			return nil, fmt.Errorf("record: GET /settings/ai: data is %s, not the settings object", kind(data))
		}
		st = &recordState{From: base, Settings: json.RawMessage(mustJSON(data))}
		if err := appendLine(statePath, st, true); err != nil {
			return nil, fmt.Errorf("record: %w", err)
		}
	}
	for st.total == 0 || st.offset < st.total {
		// New reviews may arrive meanwhile, pushing the older ones a
		// place on: a page may repeat a review, which is kept once.
		path := fmt.Sprintf("/feedbacks?limit=%d&offset=%d", recordPage, st.offset)
		ex, err := c.get(ctx, path, false)
		if err != nil {
			return res, recordError(err)
		}
		data, err := okData(ex)
		if err != nil {
			return res, recordError(err)
		}
		obj, _ := data.(map[string]any)
		list, ok := obj["feedbacks"].([]any)
		if !ok {
			return res, fmt.Errorf("record: GET %s: data has no feedbacks list", path)
		}
		if len(list) > recordPage {
			return res, fmt.Errorf("record: GET %s: the page holds %d records, more than the %d asked for: not this API's paging", path, len(list), recordPage)
		}
		page := statePage{Offset: st.offset, Total: st.total}
		if t, ok := asInt(obj["total"]); ok {
			page.Total = int(t)
		}
		for i, item := range list {
			m, ok := item.(map[string]any)
			if !ok {
				return res, fmt.Errorf("record: GET %s: feedbacks[%d] is %s, not a record", path, i, kind(item))
			}
			page.Records = append(page.Records, mustJSON(m))
		}
		if err := appendLine(statePath, page, false); err != nil {
			return res, fmt.Errorf("record: %w", err)
		}
		st.add(page)
		if cfg.Progress != nil {
			cfg.Progress(RecordProgress{Reviews: len(st.records), Total: st.total, Requests: c.sent})
		}
		if len(list) < recordPage {
			break
		}
	}
	res.Requests = c.sent
	if err := write(cfg, base, st, res); err != nil {
		return res, fmt.Errorf("record: %w", err)
	}
	os.Remove(statePath)
	// What was written must serve: each problem is reported, with the
	// file and the review it is in.
	results, err := mock.ValidateScenarios(mock.Options{Scenarios: os.DirFS(filepath.Join(cfg.Out, "scenarios")),
		Fixtures: os.DirFS(filepath.Join(cfg.Out, "fixtures")), ShippedFixtures: true, Scenario: cfg.Name})
	if err != nil {
		return res, fmt.Errorf("record: checking what was written: %w", err)
	}
	for _, r := range results {
		for _, p := range mock.Problems(r.Err) {
			res.Problems = append(res.Problems, p.Error())
		}
	}
	if len(res.Problems) > 0 {
		return res, fmt.Errorf("record: the recording does not serve as written: %s (and %d more problems in the summary)", res.Problems[0], len(res.Problems)-1)
	}
	return res, nil
}

var nameRE = regexp.MustCompile(`^[a-z0-9_-]{1,64}$`)

// recordError says why a recording stopped, in one line.
func recordError(err error) error {
	var ae *AuthError
	if errors.As(err, &ae) {
		return err
	}
	var de *differsError
	if errors.As(err, &de) {
		return fmt.Errorf("record: %s", de.detail)
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

// recordKey names a record by its id and feedback_id.
func recordKey(raw json.RawMessage) string {
	var k struct {
		ID         json.Number `json:"id"`
		FeedbackID string      `json:"feedback_id"`
	}
	json.Unmarshal(raw, &k)
	return k.ID.String() + "/" + k.FeedbackID
}

// apiRecord is a record as the API sends it; fields it does not name are
// kept aside.
type apiRecord = mock.Feedback

// knownFields are apiRecord's fields by their JSON names.
var knownFields = func() map[string]bool {
	m := map[string]bool{}
	t := reflect.TypeFor[apiRecord]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		m[name] = true
	}
	return m
}()

// fixtureReview is a review as a reviews fixture writes it.
type fixtureReview struct {
	FeedbackID       string         `yaml:"feedback_id"`
	NmID             int64          `yaml:"nm_id"`
	ImtID            int64          `yaml:"imt_id"`
	Text             string         `yaml:"text,omitempty"`
	Pros             string         `yaml:"pros,omitempty"`
	Cons             string         `yaml:"cons,omitempty"`
	ProductValuation int            `yaml:"product_valuation"`
	ValuationTags    []string       `yaml:"valuation_tags,omitempty"`
	CreatedDate      string         `yaml:"created_date"`
	AnswerText       string         `yaml:"answer_text,omitempty"`
	AnswerState      string         `yaml:"answer_state"`
	ProductName      string         `yaml:"product_name"`
	SupplierArticle  string         `yaml:"supplier_article"`
	BrandName        string         `yaml:"brand_name"`
	Photos           []fixturePhoto `yaml:"photos,omitempty"`
	Video            *fixtureVideo  `yaml:"video,omitempty"`
	UserName         string         `yaml:"user_name,omitempty"`
	WasViewed        int            `yaml:"was_viewed"`
	State            string         `yaml:"state"`
	CreatedAt        string         `yaml:"created_at"`
}

type fixturePhoto struct {
	FullSize string `yaml:"fullSize" json:"fullSize"`
	MiniSize string `yaml:"miniSize" json:"miniSize"`
}

type fixtureVideo struct {
	PreviewImage string `yaml:"previewImage" json:"previewImage"`
	Link         string `yaml:"link" json:"link"`
	DurationSec  int    `yaml:"durationSec" json:"durationSec"`
}

// write turns the recorded state into the scenario's files.
func write(cfg RecordConfig, base string, st *recordState, res *RecordResult) error {
	recs := make([]apiRecord, len(st.records))
	raws := make([]map[string]any, len(st.records))
	for i, raw := range st.records {
		if err := json.Unmarshal(raw, &recs[i]); err != nil {
			return fmt.Errorf("feedbacks[%d] (id %s): a field of the wrong type: %v", i, recordKey(raw), err)
		}
		json.Unmarshal(raw, &raws[i])
		for k := range raws[i] {
			if !knownFields[k] {
				res.UnknownFields["feedbacks[]."+k]++
			}
		}
	}
	// Oldest first, as the fixture numbers them; ties by id.
	order := make([]int, len(recs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		ra, rb := &recs[order[a]], &recs[order[b]]
		if ra.CreatedDate != rb.CreatedDate {
			return ra.CreatedDate < rb.CreatedDate
		}
		return ra.ID < rb.ID
	})
	an := newAnonymizer(cfg, res.Anonymized)
	from, _ := url.Parse(base)
	var out []fixtureReview
	var keptRaw []map[string]any
	for n, i := range order {
		r := recs[i]
		if r.FeedbackID == "" {
			// A fixture names each review: one the upstream sent without
			// a feedback_id gets one made up, and counted.
			r.FeedbackID = fmt.Sprintf("recorded-%d", n+1)
			res.Unreadable["feedback_id (made up)"]++
		}
		an.record(&r)
		fr := fixtureReview{FeedbackID: r.FeedbackID, NmID: r.NmID, ImtID: r.ImtID, Text: r.Text, Pros: r.Pros, Cons: r.Cons,
			ProductValuation: r.ProductValuation, CreatedDate: r.CreatedDate, AnswerText: r.AnswerText, AnswerState: r.AnswerState,
			ProductName: r.ProductName, SupplierArticle: r.SupplierArticle, BrandName: r.BrandName, UserName: r.UserName,
			WasViewed: r.WasViewed, State: r.State, CreatedAt: r.CreatedAt}
		// Media the API writes otherwise than it should are left out of
		// the fixture (and counted), not the review.
		if r.ValuationTags != "" && json.Unmarshal([]byte(r.ValuationTags), &fr.ValuationTags) != nil {
			fr.ValuationTags = nil
			res.Unreadable["valuation_tags"]++
		}
		if r.Photos != "" {
			if json.Unmarshal([]byte(r.Photos), &fr.Photos) != nil {
				fr.Photos = nil
				res.Unreadable["photos"]++
			}
			for j := range fr.Photos {
				fr.Photos[j].FullSize = served(from, fr.Photos[j].FullSize)
				fr.Photos[j].MiniSize = served(from, fr.Photos[j].MiniSize)
			}
		}
		if v := bytes.TrimSpace(r.Video); len(v) > 0 && string(v) != "null" {
			fr.Video = new(fixtureVideo)
			if json.Unmarshal(v, fr.Video) != nil {
				fr.Video = nil
				res.Unreadable["video"]++
			} else {
				fr.Video.PreviewImage, fr.Video.Link = served(from, fr.Video.PreviewImage), served(from, fr.Video.Link)
			}
		}
		out = append(out, fr)
		kept := raws[i]
		for k, v := range map[string]any{"feedback_id": r.FeedbackID, "nm_id": r.NmID, "imt_id": r.ImtID, "text": r.Text, "pros": r.Pros,
			"cons": r.Cons, "answer_text": r.AnswerText, "product_name": r.ProductName, "supplier_article": r.SupplierArticle,
			"brand_name": r.BrandName, "user_name": r.UserName} {
			if _, ok := kept[k]; ok {
				kept[k] = v
			}
		}
		keptRaw = append(keptRaw, kept)
	}
	res.Reviews = len(out)
	res.Calibration = calibrate(recs)

	var settings map[string]any
	json.Unmarshal(st.Settings, &settings)
	fixtureSettings := knownSettings(settings, res.UnknownFields)

	files := map[string]any{
		filepath.Join("fixtures", "settings", cfg.Name+".yaml"): yamlDoc{"The settings recorded from " + res.From + ".", fixtureSettings},
		filepath.Join("scenarios", cfg.Name+".yaml"):            yamlDoc{"The shop recorded from " + res.From + ", as it was: serve it with\n  replymock --scenarios OUT/scenarios --fixtures OUT/fixtures --scenario " + cfg.Name, recordedScenario(cfg, res)},
		filepath.Join("scenarios", cfg.Name+"-live.yaml"):       yamlDoc{"The recorded shop, kept alive: its reviews, as many again generated by its measures\n(raise generate.count to scale it up), and new ones arriving at its rate.", liveScenario(cfg, res)},
		filepath.Join("recorded", cfg.Name+".json"):             map[string]any{"from": res.From, "settings": settings, "feedbacks": keptRaw},
	}
	// The reviews in files of at most fixtureChunk each, oldest first,
	// well within what a fixture may be.
	for i, name := range fixtureNames(cfg.Name, len(out)) {
		part := out[i*fixtureChunk : min((i+1)*fixtureChunk, len(out))]
		files[filepath.Join("fixtures", name)] = yamlDoc{fmt.Sprintf("Recorded from %s: reviews %d to %d of %d, oldest first.", res.From, i*fixtureChunk+1, i*fixtureChunk+len(part), len(out)),
			map[string]any{"kind": "reviews", "reviews": part}}
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for k := range files {
			if !yield(k) {
				return
			}
		}
	})
	for _, name := range names {
		var b []byte
		var err error
		switch v := files[name].(type) {
		case yamlDoc:
			b, err = v.encode()
		default:
			b, err = json.MarshalIndent(v, "", "  ")
		}
		if err != nil {
			return err
		}
		p := filepath.Join(cfg.Out, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := renameio.WriteFile(p, b, 0o644); err != nil {
			return err
		}
		res.Files = append(res.Files, filepath.ToSlash(name))
	}
	return nil
}

// fixtureChunk is how many reviews a recorded fixture file holds at
// most: some 10 MB of long reviews, a third of what a fixture may be.
const fixtureChunk = 5000

// fixtureNames are the reviews fixtures of a recording of n reviews, as
// a scenario names them: reviews/NAME.yaml, or reviews/NAME-01.yaml and
// on for more than fixtureChunk.
func fixtureNames(name string, n int) []string {
	if n <= fixtureChunk {
		return []string{"reviews/" + name + ".yaml"}
	}
	var out []string
	for i := 0; i*fixtureChunk < n; i++ {
		out = append(out, fmt.Sprintf("reviews/%s-%02d.yaml", name, i+1))
	}
	return out
}

// yamlDoc is a YAML file with a comment on top.
type yamlDoc struct {
	comment string
	v       any
}

func (d yamlDoc) encode() ([]byte, error) {
	var b bytes.Buffer
	for l := range strings.SplitSeq(d.comment, "\n") {
		b.WriteString("# " + l + "\n")
	}
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(d.v); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

// served is a media URL of the recorded server as a fixture writes it: a
// replymock's own media (/__mock/media/...) as a path, so the server
// that serves the fixture serves them too; any other URL as it is.
func served(from *url.URL, raw string) string {
	u, err := url.Parse(raw)
	if err != nil || from == nil || u.Host != from.Host || !strings.HasPrefix(u.Path, "/__mock/media/") {
		return raw
	}
	return u.Path
}

// knownSettings is the settings with the fields a settings fixture has;
// the others are counted in unknown.
func knownSettings(s map[string]any, unknown map[string]int) map[string]any {
	feedbackKeys := []string{"rating", "reply_mode", "signature", "tone", "excluded_words", "required_words", "empty_review_mode", "use_unified_settings", "reply_from_date", "ai_instructions"}
	questionKeys := []string{"reply_mode", "signature", "tone", "excluded_words", "required_words", "reply_from_date", "ai_instructions"}
	keep := func(m map[string]any, keys []string, path string) map[string]any {
		out := map[string]any{}
		for k, v := range m {
			if slices.Contains(keys, k) {
				out[k] = v
			} else {
				unknown[path+"."+k]++
			}
		}
		return out
	}
	out := map[string]any{"kind": "settings"}
	for k := range s {
		if k != "feedback" && k != "question" {
			unknown["settings."+k]++
		}
	}
	var fb []any
	items, _ := s["feedback"].([]any)
	for _, el := range items {
		m, _ := el.(map[string]any)
		fb = append(fb, keep(m, feedbackKeys, "settings.feedback[]"))
	}
	out["feedback"] = fb
	if q, ok := s["question"].(map[string]any); ok {
		out["question"] = keep(q, questionKeys, "settings.question")
	}
	return out
}

// recordedScenario is the scenario that serves the recording as it is.
func recordedScenario(cfg RecordConfig, res *RecordResult) map[string]any {
	return map[string]any{
		"description": fmt.Sprintf("Recorded from %s: %d reviews, %s to %s", res.From, res.Reviews, res.Calibration.First, res.Calibration.Last),
		"seed":        cfg.Seed,
		"settings":    "settings/" + cfg.Name + ".yaml",
		"data":        map[string]any{"locale": res.Calibration.Locale, "fixtures": fixtureNames(cfg.Name, res.Reviews)},
	}
}

// liveScenario is the recording with generated reviews by its measures
// and a living shop at its arrival rate.
func liveScenario(cfg RecordConfig, res *RecordResult) map[string]any {
	c := res.Calibration
	weights := make([]float64, 5)
	for i, n := range c.Ratings {
		weights[i] = max(float64(n), 0.5) // every rating possible
	}
	replies := "settings"
	if c.AnsweredShare == 0 {
		replies = "none"
	}
	round := func(f float64) float64 { return math.Round(f*1000) / 1000 }
	// A living shop reads all its reviews as its clock moves: at most
	// mock.MaxShopReviews. The recording and as many again, if they fit;
	// else the room left; for a shop too big, generated reviews alone.
	count, fixtures := res.Reviews, fixtureNames(cfg.Name, res.Reviews)
	if room := mock.MaxShopReviews - res.Reviews; room >= 1 {
		count = min(max(res.Reviews, 1), room)
	} else {
		count, fixtures = mock.MaxShopReviews/2, nil
	}
	gen := map[string]any{
		"count": count, "products": max(c.Products, 1), "replies": replies, "rating_weights": weights,
		"rating_only": round(c.RatingOnlyShare), "photos": round(c.PhotoShare), "videos": round(c.VideoShare),
		"same_second": round(c.SameSecondShare), "days": max(c.Days, 1),
	}
	if c.Last != "" {
		gen["end"] = c.Last
	}
	data := map[string]any{"locale": c.Locale, "generate": gen}
	recorded := 0
	if fixtures != nil {
		data["fixtures"] = fixtures
		recorded = res.Reviews
	}
	return map[string]any{
		"description": fmt.Sprintf("The shop recorded from %s, alive: %d recorded and %d generated reviews, %.2f new an hour", res.From, recorded, count, c.ArrivalsPerHour),
		"extends":     cfg.Name,
		"data":        data,
		"shop":        map[string]any{"arrivals_per_hour": math.Max(round(c.ArrivalsPerHour), 0.01), "reply_delay": "2m", "clock": "real"},
	}
}

// calibrate measures the recorded shop.
func calibrate(recs []apiRecord) Calibration {
	var c Calibration
	c.TextLength = map[string]int{}
	if len(recs) == 0 {
		c.Locale = "ru"
		return c
	}
	n := float64(len(recs))
	products := map[int64]bool{}
	var lengths []int
	seconds := map[string]int{}
	cyr, lat := 0, 0
	var times []time.Time
	for _, r := range recs {
		if r.ProductValuation >= 1 && r.ProductValuation <= 5 {
			c.Ratings[r.ProductValuation-1]++
		}
		if r.AnswerText != "" {
			c.AnsweredShare++
		}
		if r.Text == "" && r.Pros == "" && r.Cons == "" {
			c.RatingOnlyShare++
		} else {
			lengths = append(lengths, len([]rune(r.Text+r.Pros+r.Cons)))
		}
		if r.Photos != "" && r.Photos != "[]" {
			c.PhotoShare++
		}
		if v := strings.TrimSpace(string(r.Video)); v != "" && v != "null" {
			c.VideoShare++
		}
		products[r.NmID] = true
		seconds[r.CreatedDate]++
		for _, ch := range r.Text + r.Pros + r.Cons {
			switch {
			case unicode.Is(unicode.Cyrillic, ch):
				cyr++
			case unicode.Is(unicode.Latin, ch):
				lat++
			}
		}
		if t, err := time.Parse(time.DateTime, r.CreatedDate); err == nil {
			times = append(times, t)
			c.ByHour[t.Hour()]++
		}
	}
	for _, k := range seconds {
		if k > 1 {
			c.SameSecondShare += float64(k - 1)
		}
	}
	c.AnsweredShare /= n
	c.RatingOnlyShare /= n
	c.PhotoShare /= n
	c.VideoShare /= n
	c.SameSecondShare /= n
	c.Products = len(products)
	c.Locale = "ru"
	if lat > cyr {
		c.Locale = "en"
	}
	slices.Sort(lengths)
	for _, p := range []int{10, 50, 90, 99} {
		if len(lengths) > 0 {
			c.TextLength["p"+strconv.Itoa(p)] = lengths[min(len(lengths)-1, len(lengths)*p/100)]
		}
	}
	if len(times) > 0 {
		slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
		first, last := times[0], times[len(times)-1]
		c.First, c.Last = first.Format(time.DateTime), last.Format(time.DateTime)
		c.Days = int(math.Ceil(last.Sub(first).Hours()/24)) + 1
		from := last.Add(-30 * 24 * time.Hour)
		recent := len(times) - sort.Search(len(times), func(i int) bool { return times[i].After(from) })
		span := math.Min(30*24, math.Max(last.Sub(first).Hours(), 1))
		c.ArrivalsPerHour = math.Round(float64(recent)/span*100) / 100
	}
	return c
}

// anonymizer replaces what identifies people (and, asked, products)
// consistently: the same name gives the same fake name everywhere.
type anonymizer struct {
	cfg      RecordConfig
	counts   map[string]int
	names    map[string]string
	used     map[string]bool
	ids      map[[2]int64]int64 // (kind, id) -> new id
	takenIDs map[[2]int64]bool
	strs     map[[2]string]string
}

func newAnonymizer(cfg RecordConfig, counts map[string]int) *anonymizer {
	return &anonymizer{cfg: cfg, counts: counts, names: map[string]string{}, used: map[string]bool{},
		ids: map[[2]int64]int64{}, takenIDs: map[[2]int64]bool{}, strs: map[[2]string]string{}}
}

// Patterns of what is cut out of texts: e-mail addresses, URLs, phone
// numbers, and numbers of 6 digits or more (orders, cards, tracking).
var (
	emailRE = regexp.MustCompile(`[\p{L}0-9._%+-]+@[\p{L}0-9.-]+\.\p{L}{2,}`)
	urlRE   = regexp.MustCompile(`(?i)\b(?:https?://|www\.)[^\s<>"]+|\b[a-z0-9-]+\.(?:ru|com|рф|net|org|su)(?:/[^\s<>"]*)?`)
	phoneRE = regexp.MustCompile(`(?:\+7|\b8)[\s(-]*\d{3}[\s)-]*\d{3}[\s-]*\d{2}[\s-]*\d{2}\b`)
	digitRE = regexp.MustCompile(`\d(?:[\s-]?\d){5,}`)
)

// hidden replaces what a text must not keep.
const hidden = "***"

func (a *anonymizer) text(s string) string {
	if s == "" {
		return s
	}
	for _, p := range []struct {
		what string
		re   *regexp.Regexp
	}{{"emails", emailRE}, {"urls", urlRE}, {"phones", phoneRE}, {"numbers", digitRE}} {
		s = p.re.ReplaceAllStringFunc(s, func(string) string { a.counts[p.what]++; return hidden })
	}
	return s
}

// Fake names: Russian first names and an initial, as the upstream shows
// reviewers.
var (
	fakeFirst   = []string{"Анна", "Мария", "Елена", "Ольга", "Наталья", "Ирина", "Татьяна", "Светлана", "Екатерина", "Юлия", "Алексей", "Дмитрий", "Сергей", "Андрей", "Иван", "Михаил", "Павел", "Николай", "Кирилл", "Полина", "Дарья", "Ксения", "Виктория", "Артём"}
	fakeInitial = []rune("АБВГДЕЖЗИКЛМНОПРСТУФХЧШЭЮЯ")
)

// hash is a deterministic hash of the recording's seed and parts.
func (a *anonymizer) hash(parts ...string) uint64 {
	h := fnv.New64a()
	fmt.Fprint(h, a.cfg.Seed)
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return h.Sum64()
}

func (a *anonymizer) name(s string) string {
	if s == "" {
		return s
	}
	if n, ok := a.names[s]; ok {
		return n
	}
	for try := 0; ; try++ {
		h := a.hash("name", s, strconv.Itoa(try))
		n := fakeFirst[h%uint64(len(fakeFirst))]
		if try > 0 || h>>32%3 == 0 {
			n += " " + string(fakeInitial[(h>>40)%uint64(len(fakeInitial))]) + "."
		}
		if !a.used[n] || try > 50 {
			a.used[n] = true
			a.names[s] = n
			a.counts["user_names"]++
			return n
		}
	}
}

// id remaps a product id of kind k (0 nm_id, 1 imt_id), keeping its
// number of digits.
func (a *anonymizer) id(k int64, v int64) int64 {
	if v <= 0 {
		return v
	}
	key := [2]int64{k, v}
	if n, ok := a.ids[key]; ok {
		return n
	}
	digits := len(strconv.FormatInt(v, 10))
	lo := int64(math.Pow10(digits - 1))
	for try := 0; ; try++ {
		n := lo + int64(a.hash("id", strconv.FormatInt(k, 10), strconv.FormatInt(v, 10), strconv.Itoa(try))%uint64(9*lo))
		if !a.takenIDs[[2]int64{k, n}] {
			a.takenIDs[[2]int64{k, n}] = true
			a.ids[key] = n
			return n
		}
	}
}

// str remaps a product string of kind k to prefix and a number, the
// same for the same string.
func (a *anonymizer) str(k, v, prefix string) string {
	if v == "" {
		return v
	}
	key := [2]string{k, v}
	if s, ok := a.strs[key]; ok {
		return s
	}
	s := fmt.Sprintf("%s %d", prefix, len(a.strs)+1)
	a.strs[key] = s
	return s
}

// record anonymizes one record in place.
func (a *anonymizer) record(r *apiRecord) {
	if !a.cfg.Raw {
		r.UserName = a.name(r.UserName)
		r.Text, r.Pros, r.Cons, r.AnswerText = a.text(r.Text), a.text(r.Pros), a.text(r.Cons), a.text(r.AnswerText)
	}
	if a.cfg.AnonymizeProducts {
		r.NmID, r.ImtID = a.id(0, r.NmID), a.id(1, r.ImtID)
		r.ProductName = a.str("product", r.ProductName, "Товар")
		r.BrandName = a.str("brand", r.BrandName, "Бренд")
		if r.SupplierArticle != "" {
			r.SupplierArticle = fmt.Sprintf("ART-%06d", a.hash("article", r.SupplierArticle)%1_000_000)
		}
		a.counts["product_ids"] = len(a.ids)
	}
}

// RecordMain is the `replymock record` command: args are those after
// "record". The summary goes to stdout (text, or JSON with --format
// json); the announcement and progress (on a terminal) go to stderr,
// unless --quiet. Errors are as Main's.
func RecordMain(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("replymock record", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg RecordConfig
	fs.StringVar(&cfg.From, "from", "", "the API's base URL, up to and including /api/v1 (required)")
	fs.StringVar(&cfg.Out, "out", "", "the folder to write the scenario in (required): OUT/scenarios, OUT/fixtures, OUT/recorded")
	fs.StringVar(&cfg.Name, "name", "recorded", "the scenario's name, and its files'")
	fs.Int64Var(&cfg.Seed, "seed", 1, "the seed of fake names and remapped products: the same input and seed give the same files")
	fs.BoolVar(&cfg.Raw, "raw", false, "keep user names and texts as recorded (default: fake names; phones, e-mails, URLs and long numbers cut out)")
	fs.BoolVar(&cfg.AnonymizeProducts, "anonymize-products", false, "also remap nm_id, imt_id, supplier_article, brand and product names, consistently")
	clientFlags(fs, &cfg.Token, &cfg.Rate, &cfg.MaxRequests, &cfg.Timeout, DefaultRecordRequests, " (100 reviews a request)")
	format := fs.String("format", "text", "the summary's format: text or json")
	quiet := fs.Bool("quiet", false, "print the summary and nothing else")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: replymock record --from URL --out DIR [--token T] [flags]\n\n"+
			"Pages read-only through a shop's settings and reviews and writes a scenario\n"+
			"that serves them (DIR/scenarios/NAME.yaml), a living one calibrated on them\n"+
			"(NAME-live.yaml), their fixtures, and the records as they came\n"+
			"(DIR/recorded/NAME.json). Cut short, a run goes on where it stood the next\n"+
			"time. Exit status 1 on failure, 2 for bad flags.\n\nflags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return &UsageError{err}
	}
	switch {
	case fs.NArg() > 0:
		return &UsageError{fmt.Errorf("record takes no arguments, got %q", fs.Args())}
	case cfg.From == "":
		return &UsageError{errors.New("--from is required: the API's base URL, up to and including /api/v1")}
	case cfg.Out == "":
		return &UsageError{errors.New("--out is required: the folder to write the scenario in")}
	case *format != "text" && *format != "json":
		return &UsageError{fmt.Errorf("--format must be text or json, got %q", *format)}
	case !nameRE.MatchString(cfg.Name):
		return &UsageError{fmt.Errorf("--name must be lower-case letters, digits, - and _ (a scenario's file name), got %q", cfg.Name)}
	}
	if err := checkClientFlags(cfg.Rate, cfg.MaxRequests, cfg.Timeout); err != nil {
		return err
	}
	if _, err := checkTarget(cfg.From); err != nil {
		return &UsageError{errors.New("--from" + strings.TrimPrefix(err.Error(), "probe: target"))}
	}
	say := func(format string, args ...any) {
		if !*quiet {
			fmt.Fprintf(stderr, format, args...)
		}
	}
	if w := tokenWarning(cfg.From, cfg.Token); w != "" {
		say("warning: %s\n", w)
	}
	mode := "anonymised (fake names; phones, e-mails, URLs and long numbers cut out)"
	if cfg.Raw {
		mode = "raw (names and texts as they are)"
	}
	if cfg.AnonymizeProducts {
		mode += ", products remapped"
	}
	say("record %s into %s as %q: read-only, %s\nbudget: at most %d requests (%d reviews), %g a second, each within %s\n",
		redacted(strings.TrimRight(cfg.From, "/")), cfg.Out, cfg.Name, mode, cfg.MaxRequests, (cfg.MaxRequests-1)*recordPage, cfg.Rate, cfg.Timeout)
	if !*quiet && isTerminal(stderr) {
		cfg.Progress = func(p RecordProgress) {
			fmt.Fprintf(stderr, "\r\033[K%d of %d reviews (%d requests)", p.Reviews, p.Total, p.Requests)
		}
	}
	res, err := Record(ctx, cfg)
	if cfg.Progress != nil {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err != nil {
		if res != nil && ctx.Err() != nil {
			say("interrupted: run the same command again to go on from where it stood\n")
		}
		if res != nil && len(res.Problems) > 0 && *format == "text" {
			res.writeText(stdout) // what was written, and each problem
		}
		return err
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	return res.writeText(stdout)
}

// writeText writes the summary for a person.
func (res *RecordResult) writeText(w io.Writer) error {
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
