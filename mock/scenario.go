package mock

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

// scenarioFile is the YAML form of a scenario (scenarios/NAME.yaml).
type scenarioFile struct {
	Description string   `yaml:"description"`
	Seed        int64    `yaml:"seed"`
	Tones       []string `yaml:"tones"`
	Settings    string   `yaml:"settings"`
	Data        dataSpec `yaml:"data"`
}

// dataSpec says where a scenario's reviews come from.
type dataSpec struct {
	Locale   string        `yaml:"locale"`
	Fixtures []string      `yaml:"fixtures"`
	Generate *generateSpec `yaml:"generate"`
}

// generateSpec are the generator's parameters. Pointers tell "absent"
// (a default applies) from zero.
type generateSpec struct {
	Count         int       `yaml:"count"`
	Products      int       `yaml:"products"`
	Answered      *float64  `yaml:"answered"`
	RatingWeights []float64 `yaml:"rating_weights"`
	RatingOnly    *float64  `yaml:"rating_only"`
	Photos        *float64  `yaml:"photos"`
	Videos        *float64  `yaml:"videos"`
	SameSecond    *float64  `yaml:"same_second"`
	End           string    `yaml:"end"`
	Days          int       `yaml:"days"`
}

// Limits on scenario data, so a typo cannot exhaust memory.
const (
	MaxGeneratedReviews = 2_000_000
	MaxProducts         = 100_000
)

// Scenario is a loaded, validated scenario: immutable data and the
// initial settings every session starts from.
type Scenario struct {
	Name        string
	Description string
	Seed        int64
	Locale      string

	rules    settingsRules
	settings Settings
	store    *store
}

var scenarioNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// loader reads scenario and fixture files from two file systems and
// caches the fixtures it has decoded.
type loader struct {
	scenarios fs.FS
	fixtures  fs.FS
	seed      int64 // overrides every scenario's seed when not 0
}

// load reads, validates and builds the scenario NAME.
func (l *loader) load(name string) (*Scenario, error) {
	if !scenarioNameRE.MatchString(name) {
		return nil, fmt.Errorf("scenario name %q: use lower-case letters, digits, '-' and '_'", name)
	}
	file := name + ".yaml"
	data, err := fs.ReadFile(l.scenarios, file)
	if errors.Is(err, fs.ErrNotExist) {
		names, _ := scenarioNames(l.scenarios)
		return nil, fmt.Errorf("scenario %q not found; have: %s", name, strings.Join(names, ", "))
	}
	if err != nil {
		return nil, err
	}
	return l.build(name, "scenarios/"+file, data)
}

// build decodes and validates one scenario file's bytes and builds it.
func (l *loader) build(name, display string, data []byte) (*Scenario, error) {
	var sf scenarioFile
	yf := decodeYAML(display, data, &sf)
	if yf.root == nil || len(yf.problems) > 0 {
		return nil, yf.err()
	}
	sf.validate(yf)
	if err := yf.err(); err != nil {
		return nil, err
	}
	sf.applyDefaults()

	sc := &Scenario{Name: name, Description: sf.Description, Seed: sf.Seed, Locale: sf.Data.Locale,
		rules: settingsRules{tones: sf.Tones}}
	if l.seed != 0 {
		sc.Seed = l.seed
	}
	// A missing fixture is the scenario's problem, placed at the reference;
	// a broken one is reported in the fixture's own file.
	fixtureErr := func(path string, err error) {
		if errors.Is(err, fs.ErrNotExist) {
			yf.problemf(path, "no such file in the fixtures folder")
		} else {
			yf.problems = append(yf.problems, err)
		}
	}
	st, err := l.loadSettings(sf.Settings, sc.rules)
	if err != nil {
		fixtureErr("settings", err)
	}
	sc.settings = st
	var fbs []Feedback
	for i, fx := range sf.Data.Fixtures {
		recs, err := l.loadReviews(fx)
		if err != nil {
			fixtureErr(fmt.Sprintf("data.fixtures[%d]", i), err)
		}
		fbs = append(fbs, recs...)
	}
	var bank *phraseBank
	if sf.Data.Generate != nil {
		bank, err = l.loadPhrases(sf.Data.Locale)
		if err != nil {
			fixtureErr("data.locale", err)
		}
	}
	if err := yf.err(); err != nil {
		return nil, err
	}
	if sf.Data.Generate != nil {
		fbs = append(fbs, generate(*sf.Data.Generate, sc.Seed, bank, st)...)
	}
	if err := assignIDs(fbs); err != nil {
		return nil, fmt.Errorf("%s: %w", display, err)
	}
	if sc.store, err = newStore(fbs); err != nil {
		return nil, fmt.Errorf("%s: %w", display, err)
	}
	return sc, nil
}

// validate checks a decoded scenario; it does not change it.
func (sf *scenarioFile) validate(yf *yamlFile) {
	if strings.TrimSpace(sf.Description) == "" {
		yf.problemf("description", "required: one line saying what the scenario is for")
	}
	if sf.Seed == 0 {
		yf.problemf("seed", "required and not 0: the seed makes the data the same on every run")
	}
	for i, t := range sf.Tones {
		if strings.TrimSpace(t) == "" || len([]rune(t)) > maxTone {
			yf.problemf(fmt.Sprintf("tones[%d]", i), "must be a non-empty string of at most %d characters", maxTone)
		}
	}
	if sf.Settings == "" {
		yf.problemf("settings", "required: a settings fixture, e.g. settings/default.yaml")
	}
	d := sf.Data
	if d.Locale != "" && !slices.Contains(Locales, d.Locale) {
		yf.problemf("data.locale", "must be one of %s, got %q", strings.Join(Locales, ", "), d.Locale)
	}
	for i, fx := range d.Fixtures {
		if !fs.ValidPath(fx) || !strings.HasSuffix(fx, ".yaml") {
			yf.problemf(fmt.Sprintf("data.fixtures[%d]", i), "must be a .yaml path inside the fixtures folder, got %q", fx)
		}
	}
	if g := d.Generate; g != nil {
		g.validate(yf, "data.generate")
	}
}

func (g *generateSpec) validate(yf *yamlFile, p string) {
	if g.Count < 0 || g.Count > MaxGeneratedReviews {
		yf.problemf(p+".count", "must be from 0 to %d, got %d", MaxGeneratedReviews, g.Count)
	}
	if g.Products < 0 || g.Products > MaxProducts {
		yf.problemf(p+".products", "must be from 1 to %d, got %d", MaxProducts, g.Products)
	}
	for _, fr := range []struct {
		name string
		v    *float64
	}{{"answered", g.Answered}, {"rating_only", g.RatingOnly}, {"photos", g.Photos}, {"videos", g.Videos}, {"same_second", g.SameSecond}} {
		if fr.v != nil && !(*fr.v >= 0 && *fr.v <= 1) {
			yf.problemf(p+"."+fr.name, "must be a fraction from 0 to 1, got %v", *fr.v)
		}
	}
	if g.RatingWeights != nil {
		sum := 0.0
		for _, w := range g.RatingWeights {
			if !(w >= 0) {
				yf.problemf(p+".rating_weights", "weights must be >= 0, got %v", w)
			}
			sum += w
		}
		if len(g.RatingWeights) != 5 {
			yf.problemf(p+".rating_weights", "must list 5 weights, for ratings 1 to 5; got %d", len(g.RatingWeights))
		} else if !(sum > 0) {
			yf.problemf(p+".rating_weights", "at least one weight must be above 0")
		}
	}
	if g.End != "" {
		if _, err := time.Parse(timestampLayout, g.End); err != nil {
			yf.problemf(p+".end", "must be a timestamp YYYY-MM-DD HH:MM:SS, got %q", g.End)
		}
	}
	if g.Days < 0 || g.Days > 3660 {
		yf.problemf(p+".days", "must be from 1 to 3660, got %d", g.Days)
	}
}

// Defaults of the generator, applied in one place after validation.
const (
	defaultProducts   = 40
	defaultAnswered   = 0.6
	defaultRatingOnly = 0.15
	defaultPhotos     = 0.2
	defaultVideos     = 0.02
	defaultSameSecond = 0.03
	defaultEnd        = "2026-11-15 21:00:00"
	defaultDays       = 365
)

// defaultRatingWeights skew ratings like a real shop: mostly 5, some 1.
var defaultRatingWeights = []float64{7, 3, 6, 14, 70}

func (sf *scenarioFile) applyDefaults() {
	if sf.Data.Locale == "" {
		sf.Data.Locale = "ru"
	}
	g := sf.Data.Generate
	if g == nil {
		return
	}
	orDefault := func(p **float64, v float64) {
		if *p == nil {
			*p = &v
		}
	}
	orDefault(&g.Answered, defaultAnswered)
	orDefault(&g.RatingOnly, defaultRatingOnly)
	orDefault(&g.Photos, defaultPhotos)
	orDefault(&g.Videos, defaultVideos)
	orDefault(&g.SameSecond, defaultSameSecond)
	if g.Products == 0 {
		g.Products = defaultProducts
	}
	if g.RatingWeights == nil {
		g.RatingWeights = defaultRatingWeights
	}
	if g.End == "" {
		g.End = defaultEnd
	}
	if g.Days == 0 {
		g.Days = defaultDays
	}
}

// assignIDs numbers the reviews 1..N from the oldest, in a stable order,
// and checks that feedback_id values are unique.
func assignIDs(fbs []Feedback) error {
	seen := make(map[string]bool, len(fbs))
	for _, f := range fbs {
		if seen[f.FeedbackID] {
			return fmt.Errorf("feedback_id %q is used by more than one review", f.FeedbackID)
		}
		seen[f.FeedbackID] = true
	}
	slices.SortStableFunc(fbs, func(a, b Feedback) int { return strings.Compare(a.CreatedDate, b.CreatedDate) })
	for i := range fbs {
		fbs[i].ID = int64(i + 1)
	}
	return nil
}

// scenarioNames lists the scenarios in a folder, sorted.
func scenarioNames(fsys fs.FS) ([]string, error) {
	matches, err := fs.Glob(fsys, "*.yaml")
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(matches))
	for _, m := range matches {
		names = append(names, strings.TrimSuffix(path.Base(m), ".yaml"))
	}
	sort.Strings(names)
	return names, nil
}

// reviewsFile is a fixture of hand-written reviews (kind: reviews).
type reviewsFile struct {
	Kind    string          `yaml:"kind"`
	Reviews []reviewFixture `yaml:"reviews"`
}

// reviewFixture is a review as written in a fixture: lists are YAML lists
// (the API carries them as JSON text), and derived fields may be omitted.
type reviewFixture struct {
	FeedbackID       string         `yaml:"feedback_id"`
	NmID             int64          `yaml:"nm_id"`
	ImtID            int64          `yaml:"imt_id"`
	Text             string         `yaml:"text"`
	Pros             string         `yaml:"pros"`
	Cons             string         `yaml:"cons"`
	ProductValuation int            `yaml:"product_valuation"`
	ValuationTags    []string       `yaml:"valuation_tags"`
	CreatedDate      string         `yaml:"created_date"`
	AnswerText       string         `yaml:"answer_text"`
	AnswerState      *string        `yaml:"answer_state"`
	ProductName      string         `yaml:"product_name"`
	SupplierArticle  string         `yaml:"supplier_article"`
	BrandName        string         `yaml:"brand_name"`
	Photos           []string       `yaml:"photos"`
	Video            map[string]any `yaml:"video"`
	UserName         string         `yaml:"user_name"`
	WasViewed        *int           `yaml:"was_viewed"`
	State            *string        `yaml:"state"`
	CreatedAt        string         `yaml:"created_at"`
}

// loadReviews reads a reviews fixture.
func (l *loader) loadReviews(name string) ([]Feedback, error) {
	data, err := fs.ReadFile(l.fixtures, name)
	if err != nil {
		return nil, fmt.Errorf("fixtures/%s: %w", name, err)
	}
	return decodeReviews("fixtures/"+name, data)
}

func decodeReviews(display string, data []byte) ([]Feedback, error) {
	var rf reviewsFile
	yf := decodeYAML(display, data, &rf)
	if yf.root == nil || len(yf.problems) > 0 {
		return nil, yf.err()
	}
	if rf.Kind != "reviews" {
		yf.problemf("kind", "must be \"reviews\" in a reviews fixture, got %q", rf.Kind)
	}
	fbs := make([]Feedback, 0, len(rf.Reviews))
	seen := make(map[string]int)
	for i, r := range rf.Reviews {
		p := fmt.Sprintf("reviews[%d]", i)
		f, problems := r.toFeedback()
		for _, pr := range problems {
			yf.problemf(p+"."+pr.field, "%s", pr.msg)
		}
		if j, dup := seen[r.FeedbackID]; dup && r.FeedbackID != "" {
			yf.problemf(p+".feedback_id", "%q is already used by reviews[%d]", r.FeedbackID, j)
		}
		seen[r.FeedbackID] = i
		fbs = append(fbs, f)
	}
	if err := yf.err(); err != nil {
		return nil, err
	}
	return fbs, nil
}

type fieldProblem struct{ field, msg string }

// toFeedback checks a fixture review and fills its derived fields.
func (r reviewFixture) toFeedback() (Feedback, []fieldProblem) {
	var probs []fieldProblem
	bad := func(field, format string, args ...any) {
		probs = append(probs, fieldProblem{field, fmt.Sprintf(format, args...)})
	}
	if r.FeedbackID == "" {
		bad("feedback_id", "required")
	}
	if r.NmID <= 0 {
		bad("nm_id", "required: a positive integer")
	}
	if r.ImtID < 0 {
		bad("imt_id", "must be a positive integer")
	}
	if r.ProductValuation < 1 || r.ProductValuation > 5 {
		bad("product_valuation", "must be 1 to 5, got %d", r.ProductValuation)
	}
	if r.ProductName == "" {
		bad("product_name", "required")
	}
	created, err := time.Parse(timestampLayout, r.CreatedDate)
	if err != nil {
		bad("created_date", "must be a timestamp YYYY-MM-DD HH:MM:SS, got %q", r.CreatedDate)
	}
	createdAt := r.CreatedAt
	if createdAt == "" {
		createdAt = r.CreatedDate
	} else if t, err := time.Parse(timestampLayout, createdAt); err != nil {
		bad("created_at", "must be a timestamp YYYY-MM-DD HH:MM:SS, got %q", createdAt)
	} else if t.Before(created) {
		bad("created_at", "must not be before created_date")
	}
	answerState, state := "", "new"
	if r.AnswerText != "" {
		answerState, state = "sent", "done"
	}
	if r.AnswerState != nil {
		answerState = *r.AnswerState
	}
	if r.State != nil {
		state = *r.State
	}
	wasViewed := 1
	if r.WasViewed != nil {
		wasViewed = *r.WasViewed
		if wasViewed != 0 && wasViewed != 1 {
			bad("was_viewed", "must be 0 or 1, got %d", wasViewed)
		}
	}
	video := json.RawMessage("null")
	if r.Video != nil {
		js, err := marshalJSON(r.Video)
		if err != nil {
			bad("video", "cannot be written as JSON: %v", err)
		}
		video = js
	}
	return Feedback{
		FeedbackID: r.FeedbackID, NmID: r.NmID, ImtID: r.ImtID,
		Text: r.Text, Pros: r.Pros, Cons: r.Cons,
		ProductValuation: r.ProductValuation,
		ValuationTags:    jsonList(r.ValuationTags),
		CreatedDate:      r.CreatedDate,
		AnswerText:       r.AnswerText, AnswerState: answerState,
		ProductName: r.ProductName, SupplierArticle: r.SupplierArticle, BrandName: r.BrandName,
		Photos: jsonList(r.Photos), Video: video,
		UserName: r.UserName, WasViewed: wasViewed, State: state, CreatedAt: createdAt,
	}, probs
}

// jsonList is the JSON text of a list of strings; nil gives "[]".
func jsonList(items []string) string {
	if items == nil {
		items = []string{}
	}
	js, _ := marshalJSON(items) // a []string always encodes
	return string(js)
}

// settingsFile is a settings fixture (kind: settings): the GET shape.
type settingsFile struct {
	Kind     string           `yaml:"kind"`
	Feedback []yamlFeedbackEl `yaml:"feedback"`
	Question QuestionSettings `yaml:"question"`
}

type yamlFeedbackEl = FeedbackSettings

func (l *loader) loadSettings(name string, rules settingsRules) (Settings, error) {
	data, err := fs.ReadFile(l.fixtures, name)
	if err != nil {
		return Settings{}, fmt.Errorf("fixtures/%s: %w", name, err)
	}
	return decodeSettingsFixture("fixtures/"+name, data, rules)
}

func decodeSettingsFixture(display string, data []byte, rules settingsRules) (Settings, error) {
	var sf settingsFile
	yf := decodeYAML(display, data, &sf)
	if yf.root == nil || len(yf.problems) > 0 {
		return Settings{}, yf.err()
	}
	if sf.Kind != "settings" {
		yf.problemf("kind", "must be \"settings\" in a settings fixture, got %q", sf.Kind)
	}
	var st Settings
	if len(sf.Feedback) != 5 {
		yf.problemf("feedback", "must have exactly 5 elements, one per rating 1 to 5; got %d", len(sf.Feedback))
		return Settings{}, yf.err()
	}
	copy(st.Feedback[:], sf.Feedback)
	st.Question = sf.Question
	for _, e := range st.validate(rules) {
		yf.problemf(e.Field, "%s", e.Message)
	}
	return st, yf.err()
}
