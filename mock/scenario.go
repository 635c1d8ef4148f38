package mock

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// scenarioFile is the YAML form of a scenario (scenarios/NAME.yaml).
type scenarioFile struct {
	Extends     string     `yaml:"extends"`
	Description string     `yaml:"description"`
	Seed        int64      `yaml:"seed"`
	Tones       []string   `yaml:"tones"`
	Settings    string     `yaml:"settings"`
	Auth        authSpec   `yaml:"auth"`
	RateLimit   *RateLimit `yaml:"rate_limit"`
	Faults      []Fault    `yaml:"faults"`
	Shop        *shopSpec  `yaml:"shop"`
	Data        dataSpec   `yaml:"data"`
}

// scenarioKeys are the top-level keys; with extends, each one given
// replaces the parent's value whole.
var scenarioKeys = []string{"description", "seed", "tones", "settings", "auth", "rate_limit", "faults", "shop", "data"}

// authSpec is a scenario's authentication: none, or a bearer token from
// a list on every API request.
type authSpec struct {
	Type   string   `yaml:"type" json:"type"`
	Tokens []string `yaml:"tokens" json:"tokens"`
}

// RateLimit allows Requests API requests per Window, per session; the
// request over it gets 429 with Retry-After.
type RateLimit struct {
	Requests int      `yaml:"requests" json:"requests"`
	Window   Duration `yaml:"window" json:"window"`
}

// dataSpec says where a scenario's reviews come from.
type dataSpec struct {
	Locale   string        `yaml:"locale" json:"locale"`
	Fixtures []string      `yaml:"fixtures" json:"fixtures"`
	Generate *generateSpec `yaml:"generate" json:"generate"`
}

// generateSpec are the generator's parameters. Pointers tell "absent"
// (a default applies) from zero.
type generateSpec struct {
	Count         int       `yaml:"count" json:"count"`
	Products      int       `yaml:"products" json:"products"`
	Answered      *float64  `yaml:"answered" json:"answered"`
	RatingWeights []float64 `yaml:"rating_weights" json:"rating_weights"`
	RatingOnly    *float64  `yaml:"rating_only" json:"rating_only"`
	Photos        *float64  `yaml:"photos" json:"photos"`
	Videos        *float64  `yaml:"videos" json:"videos"`
	SameSecond    *float64  `yaml:"same_second" json:"same_second"`
	End           string    `yaml:"end" json:"end"`
	Days          int       `yaml:"days" json:"days"`
}

// Limits on scenario data, so a typo cannot exhaust memory.
const (
	MaxGeneratedReviews = 2_000_000
	MaxProducts         = 100_000
	MaxFaults           = 100
)

// Scenario is a loaded, validated scenario: its rules, the initial
// settings every session starts from, and its data, built on first use.
type Scenario struct {
	Name        string
	Description string
	Extends     string
	Seed        int64
	Locale      string

	file      scenarioFile // with the parent's values merged in and defaults applied
	rules     settingsRules
	settings  Settings
	auth      authSpec
	rateLimit *RateLimit
	faults    []Fault
	shop      *shopSpec   // nil: the data never changes
	bank      *phraseBank // for new reviews and replies of a living shop
	data      *dataSource
	// fingerprint changes whenever anything above does; a reload keeps a
	// scenario whose fingerprint is unchanged, and with it sessions' counters.
	fingerprint string
}

// Len is the number of reviews in the scenario's data, building it if needed.
func (sc *Scenario) Len() (int, error) {
	st, err := sc.store()
	if err != nil {
		return 0, err
	}
	return len(st.records), nil
}

func (sc *Scenario) store() (*store, error) { return sc.data.get() }

// dataSource builds a store once, on first use. Scenarios with the same
// data (an extends without its own data or seed) share one.
type dataSource struct {
	once  sync.Once
	build func() (*store, error)
	st    *store
	err   error
}

func (d *dataSource) get() (*store, error) {
	d.once.Do(func() { d.st, d.err = d.build() })
	return d.st, d.err
}

// dataCache shares built data between scenarios and across reloads, keyed
// by everything the data depends on.
type dataCache struct {
	mu sync.Mutex // guards m
	m  map[string]*dataSource
}

func (c *dataCache) source(key string, build func() (*store, error)) *dataSource {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]*dataSource)
	}
	if d, ok := c.m[key]; ok {
		return d
	}
	d := &dataSource{build: build}
	c.m[key] = d
	return d
}

// retain forgets the data no scenario in scs uses any more.
func (c *dataCache) retain(scs map[string]*Scenario) {
	used := make(map[*dataSource]bool, len(scs))
	for _, sc := range scs {
		used[sc.data] = true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, d := range c.m {
		if !used[d] {
			delete(c.m, k)
		}
	}
}

var scenarioNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// loader reads scenario and fixture files from two file systems.
type loader struct {
	scenarios fs.FS
	fixtures  fs.FS
	seed      int64 // overrides every scenario's seed when not 0
	cache     *dataCache

	mu      sync.Mutex // guards decoded
	decoded map[string]memoized
}

type memoized struct {
	v   any
	err error
}

// memo runs decode once per kind, name and content (see loadFixture).
func (l *loader) memo(kind, name string, data []byte, decode func() (any, error)) (any, error) {
	sum := sha256.Sum256(data)
	key := kind + "\x00" + name + "\x00" + string(sum[:])
	l.mu.Lock()
	defer l.mu.Unlock()
	if m, ok := l.decoded[key]; ok {
		return m.v, m.err
	}
	v, err := decode()
	if l.decoded == nil {
		l.decoded = make(map[string]memoized)
	}
	l.decoded[key] = memoized{v, err}
	return v, err
}

// load reads and validates the scenario NAME and what it extends.
func (l *loader) load(name string) (*Scenario, error) {
	return l.loadChain(name, nil)
}

func (l *loader) loadChain(name string, chain []string) (*Scenario, error) {
	if !scenarioNameRE.MatchString(name) {
		return nil, fmt.Errorf("scenario name %q: use lower-case letters, digits, '-' and '_'", name)
	}
	file := name + ".yaml"
	data, err := fs.ReadFile(l.scenarios, file)
	if errors.Is(err, fs.ErrNotExist) {
		names, _ := scenarioNames(l.scenarios)
		return nil, &notFoundError{name: name, have: names}
	}
	if err != nil {
		return nil, err
	}
	return l.build(name, "scenarios/"+file, data, chain)
}

// build decodes and validates one scenario file's bytes. chain lists the
// scenarios that extend this one, to catch a loop.
func (l *loader) build(name, display string, data []byte, chain []string) (*Scenario, error) {
	var sf scenarioFile
	yf := decodeYAML(display, data, &sf)
	if yf.root == nil || len(yf.problems) > 0 {
		return nil, yf.err()
	}
	if sf.Extends != "" {
		parent, err := l.parent(yf, sf.Extends, append(chain, name))
		if err != nil {
			return nil, err
		}
		child := sf
		sf = parent.file
		sf.Extends = child.Extends
		for _, key := range scenarioKeys {
			if yf.has(key) {
				copyScenarioKey(&sf, &child, key)
			}
		}
	}
	sf.validate(yf)
	if err := yf.err(); err != nil {
		return nil, err
	}
	sf.applyDefaults()

	sc := &Scenario{Name: name, Description: sf.Description, Extends: sf.Extends, Seed: sf.Seed, Locale: sf.Data.Locale,
		file: sf, rules: settingsRules{tones: sf.Tones}, auth: sf.Auth, rateLimit: sf.RateLimit, faults: sf.Faults}
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
	var fixtures []Feedback
	seen := make(map[string]string)
	for i, fx := range sf.Data.Fixtures {
		recs, err := l.loadReviews(fx)
		if err != nil {
			fixtureErr(fmt.Sprintf("data.fixtures[%d]", i), err)
		}
		for _, r := range recs {
			if prev, dup := seen[r.FeedbackID]; dup && prev != fx {
				yf.problemf(fmt.Sprintf("data.fixtures[%d]", i), "feedback_id %q is also in %s", r.FeedbackID, prev)
			}
			seen[r.FeedbackID] = fx
		}
		fixtures = append(fixtures, recs...)
	}
	var bank *phraseBank
	if sf.Data.Generate != nil || sf.Shop != nil { // a living shop writes replies too
		bank, err = l.loadPhrases(sf.Data.Locale)
		if err != nil {
			fixtureErr("data.locale", err)
		}
	}
	if err := yf.err(); err != nil {
		return nil, err
	}
	sc.shop, sc.bank = sf.Shop, bank
	gen, seed := sf.Data.Generate, sc.Seed
	build := func() (*store, error) {
		fbs := slices.Clone(fixtures)
		if gen != nil {
			more, err := generate(*gen, seed, bank, st)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", display, err)
			}
			fbs = append(fbs, more...)
		}
		return newStore(fbs)
	}
	if l.cache == nil {
		l.cache = &dataCache{}
	}
	key := dataKey(sf.Data, seed, st, fixtures)
	sc.data = l.cache.source(key, build)
	sc.fingerprint = fingerprint(sf, sc.Seed, key)
	return sc, nil
}

// notFoundError is a scenario name with no file.
type notFoundError struct {
	name string
	have []string
}

func (e *notFoundError) Error() string {
	return fmt.Sprintf("scenario %q not found; have: %s", e.name, strings.Join(e.have, ", "))
}

// parent loads the scenario that NAME extends; its problems are reported
// at the extends line as well as in its own file.
func (l *loader) parent(yf *yamlFile, name string, chain []string) (*Scenario, error) {
	switch {
	case !scenarioNameRE.MatchString(name):
		yf.problemf("extends", "must be a scenario name (lower-case letters, digits, '-' and '_'), got %q", name)
		return nil, yf.err()
	case slices.Contains(chain, name):
		yf.problemf("extends", "extends loop: %s -> %s", strings.Join(chain, " -> "), name)
		return nil, yf.err()
	}
	parent, err := l.loadChain(name, chain)
	var nf *notFoundError
	switch {
	case errors.As(err, &nf):
		yf.problemf("extends", "%v", nf)
		return nil, yf.err()
	case err != nil:
		yf.problemf("extends", "scenario %q has problems", name)
		return nil, errors.Join(yf.err(), err)
	}
	return parent, nil
}

func copyScenarioKey(dst, src *scenarioFile, key string) {
	switch key {
	case "description":
		dst.Description = src.Description
	case "seed":
		dst.Seed = src.Seed
	case "tones":
		dst.Tones = src.Tones
	case "settings":
		dst.Settings = src.Settings
	case "auth":
		dst.Auth = src.Auth
	case "rate_limit":
		dst.RateLimit = src.RateLimit
	case "faults":
		dst.Faults = src.Faults
	case "shop":
		dst.Shop = src.Shop
	case "data":
		dst.Data = src.Data
	}
}

// fingerprint hashes what a scenario is made of.
func fingerprint(sf scenarioFile, seed int64, dataKey string) string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	enc.Encode(sf)
	enc.Encode(seed)
	enc.Encode(dataKey)
	return hex.EncodeToString(h.Sum(nil))
}

// dataKey names a scenario's data by everything that goes into it, so
// identical data is built once.
func dataKey(d dataSpec, seed int64, st Settings, fixtures []Feedback) string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	enc.Encode(d)
	enc.Encode(seed)
	enc.Encode(st)
	enc.Encode(fixtures)
	return hex.EncodeToString(h.Sum(nil))
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
	switch sf.Auth.Type {
	case "", "none":
		if len(sf.Auth.Tokens) > 0 {
			yf.problemf("auth.tokens", "only with type: bearer")
		}
	case "bearer":
		if len(sf.Auth.Tokens) == 0 {
			yf.problemf("auth.tokens", "required with type: bearer: the tokens clients may send")
		}
		for i, tok := range sf.Auth.Tokens {
			if tok == "" || strings.ContainsAny(tok, " \t\r\n") {
				yf.problemf(fmt.Sprintf("auth.tokens[%d]", i), "must be a non-empty token without spaces")
			}
		}
	default:
		yf.problemf("auth.type", "must be none or bearer, got %q", sf.Auth.Type)
	}
	if rl := sf.RateLimit; rl != nil {
		if rl.Requests < 1 {
			yf.problemf("rate_limit.requests", "must be at least 1, got %d", rl.Requests)
		}
		if rl.Window.D() < time.Millisecond || rl.Window.D() > 24*time.Hour {
			yf.problemf("rate_limit.window", "must be from 1ms to 24h, got %s", rl.Window)
		}
	}
	if sf.Shop != nil {
		size := 0
		if sf.Data.Generate != nil {
			size = sf.Data.Generate.Count
		}
		sf.Shop.validate(yf, sf.Data.Generate != nil, size)
	}
	if len(sf.Faults) > MaxFaults {
		yf.problemf("faults", "at most %d faults, got %d", MaxFaults, len(sf.Faults))
	}
	for i := range sf.Faults {
		for _, p := range sf.Faults[i].validate() {
			yf.problemf(strings.TrimSuffix(fmt.Sprintf("faults[%d].%s", i, p.field), "."), "%s", p.msg)
		}
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
