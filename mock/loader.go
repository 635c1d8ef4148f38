package mock

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"math/rand/v2"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/replymock/replymock/mock/internal/reviews"
)

var scenarioNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// loader reads scenario and fixture files from two file systems. It keeps
// what it decoded and built, keyed by content, so that scenarios sharing a
// fixture or data, and a reload of unchanged files, repeat no work.
type loader struct {
	scenarios fs.FS
	fixtures  fs.FS
	seed      int64 // overrides every scenario's seed when not 0
	cache     dataCache

	mu      sync.Mutex // guards decoded
	decoded map[string]memoized
}

func newLoader(opts Options) *loader {
	return &loader{scenarios: opts.Scenarios, fixtures: opts.Fixtures, seed: opts.Seed}
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

// pass is one reading of the scenarios folder: each file is read once and
// each scenario built once, however many others extend it.
type pass struct {
	l     *loader
	names []string // the scenarios in the folder, sorted
	files map[string]fileRead
	built map[string]*Scenario // the ones built without problems
}

type fileRead struct {
	data []byte
	err  error
}

func (l *loader) newPass() (*pass, error) {
	names, err := scenarioNames(l.scenarios)
	if err != nil {
		return nil, err
	}
	return &pass{l: l, names: names, files: make(map[string]fileRead), built: make(map[string]*Scenario)}, nil
}

// read returns the bytes of scenario name's file, reading it the first time.
func (p *pass) read(name string) ([]byte, error) {
	f, ok := p.files[name]
	if !ok {
		f.data, f.err = fs.ReadFile(p.l.scenarios, name+".yaml")
		p.files[name] = f
	}
	return f.data, f.err
}

// loadAll loads every scenario in the folder, with the bytes each was
// built from; any problem fails it.
func (l *loader) loadAll() (map[string]*Scenario, map[string][]byte, error) {
	p, err := l.newPass()
	if err != nil {
		return nil, nil, err
	}
	scs := make(map[string]*Scenario, len(p.names))
	sources := make(map[string][]byte, len(p.names))
	var errs []error
	for _, n := range p.names {
		sc, err := p.load(n)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		scs[n], sources[n] = sc, p.files[n].data
	}
	return scs, sources, errors.Join(errs...)
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

// notFound is the error for a scenario name without a file.
func (l *loader) notFound(name string) error {
	if !scenarioNameRE.MatchString(name) {
		return fmt.Errorf("scenario name %q: use lower-case letters, digits, '-' and '_'", name)
	}
	names, err := scenarioNames(l.scenarios)
	if err != nil {
		return err
	}
	return &notFoundError{name: name, have: names}
}

// notFoundError is a scenario name with no file.
type notFoundError struct {
	name string
	have []string
}

func (e *notFoundError) Error() string {
	return fmt.Sprintf("scenario %q not found; have: %s", e.name, strings.Join(e.have, ", "))
}

// load reads and validates the scenario NAME and what it extends.
func (p *pass) load(name string) (*Scenario, error) {
	return p.loadChain(name, nil)
}

// loadChain loads name; chain lists the scenarios that extend it, to
// catch a loop.
func (p *pass) loadChain(name string, chain []string) (*Scenario, error) {
	if !scenarioNameRE.MatchString(name) {
		return nil, fmt.Errorf("scenario name %q: use lower-case letters, digits, '-' and '_'", name)
	}
	if sc, ok := p.built[name]; ok {
		return sc, nil
	}
	data, err := p.read(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &notFoundError{name: name, have: p.names}
	}
	if err != nil {
		return nil, err
	}
	sc, err := p.build(name, "scenarios/"+name+".yaml", data, chain)
	if err == nil {
		p.built[name] = sc
	}
	return sc, err
}

// build decodes, validates and assembles one scenario file's bytes.
// display names the file in messages; chain is as for loadChain.
func (p *pass) build(name, display string, data []byte, chain []string) (*Scenario, error) {
	sf, yf, err := p.decode(name, display, data, chain)
	if err != nil {
		return nil, err
	}
	sf.validate(yf)
	if err := yf.err(); err != nil {
		return nil, err
	}
	sf.applyDefaults()
	sc := &Scenario{Name: name, Description: sf.Description, Extends: sf.Extends, Seed: sf.Seed, Locale: sf.Data.Locale,
		file: sf, rules: settingsRules{tones: sf.Tones}, auth: sf.Auth, rateLimit: sf.RateLimit, shop: sf.Shop,
		// Its own copy: a fault's counters are keyed by its address, and a
		// scenario that extends another must not share the other's.
		faults: slices.Clone(sf.Faults)}
	if p.l.seed != 0 {
		sc.Seed = p.l.seed
	}
	fixtures := p.l.readFixtures(sc, yf)
	if err := yf.err(); err != nil {
		return nil, err
	}
	key := dataKey(sf.Data, sc.Seed, sc.settings, fixtures)
	sc.data = p.l.cache.source(key, sc.dataBuilder(display, fixtures))
	sc.fingerprint = fingerprint(sf, sc.Seed, key)
	return sc, nil
}

// decode reads a scenario file strictly and merges in what it extends:
// each top-level key the file gives replaces the parent's value whole.
func (p *pass) decode(name, display string, data []byte, chain []string) (scenarioFile, *yamlFile, error) {
	var sf scenarioFile
	yf := decodeYAML(display, data, &sf)
	if yf.root == nil || len(yf.problems) > 0 {
		return sf, nil, yf.err()
	}
	if sf.Extends == "" {
		return sf, yf, nil
	}
	parent, err := p.parent(yf, sf.Extends, append(chain, name))
	if err != nil {
		return sf, nil, err
	}
	child := sf
	sf = parent.file
	sf.Extends = child.Extends
	for _, key := range scenarioKeys {
		if yf.has(key) {
			copyScenarioKey(&sf, &child, key)
		}
	}
	return sf, yf, nil
}

// parent loads the scenario that NAME extends; its problems are reported
// at the extends line as well as in its own file.
func (p *pass) parent(yf *yamlFile, name string, chain []string) (*Scenario, error) {
	switch {
	case !scenarioNameRE.MatchString(name):
		yf.problemf("extends", "must be a scenario name (lower-case letters, digits, '-' and '_'), got %q", name)
		return nil, yf.err()
	case slices.Contains(chain, name):
		yf.problemf("extends", "extends loop: %s -> %s", strings.Join(chain, " -> "), name)
		return nil, yf.err()
	}
	parent, err := p.loadChain(name, chain)
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

// readFixtures loads the settings, review fixtures and phrase bank sc's
// file names, filling sc, and returns the fixtures' reviews. A missing
// fixture is the scenario's problem, placed at the reference; a broken one
// is reported in the fixture's own file. Problems go to yf.
func (l *loader) readFixtures(sc *Scenario, yf *yamlFile) []Feedback {
	problem := func(path string, err error) {
		if errors.Is(err, fs.ErrNotExist) {
			yf.problemf(path, "no such file in the fixtures folder")
		} else {
			yf.problems = append(yf.problems, err)
		}
	}
	sf := &sc.file
	var err error
	if sc.settings, err = l.loadSettings(sf.Settings, sc.rules); err != nil {
		problem("settings", err)
	}
	var fixtures []Feedback
	seen := make(map[string]string)
	for i, fx := range sf.Data.Fixtures {
		recs, err := l.loadReviews(fx)
		if err != nil {
			problem(fmt.Sprintf("data.fixtures[%d]", i), err)
		}
		for _, r := range recs {
			if prev, dup := seen[r.FeedbackID]; dup && prev != fx {
				yf.problemf(fmt.Sprintf("data.fixtures[%d]", i), "feedback_id %q is also in %s", r.FeedbackID, prev)
			}
			seen[r.FeedbackID] = fx
		}
		fixtures = append(fixtures, recs...)
	}
	if sf.Data.Generate != nil || sf.Shop != nil { // a living shop writes replies too
		if sc.bank, err = l.loadPhrases(sf.Data.Locale); err != nil {
			problem("data.locale", err)
		}
	}
	return fixtures
}

// dataBuilder builds sc's reviews: the fixtures, then the generated ones.
func (sc *Scenario) dataBuilder(display string, fixtures []Feedback) func() (*reviews.Store, error) {
	gen, seed, bank, settings := sc.file.Data.Generate, sc.Seed, sc.bank, sc.settings
	return func() (*reviews.Store, error) {
		fbs := slices.Clone(fixtures)
		if gen != nil {
			more, err := generate(*gen, seed, bank, settings)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", display, err)
			}
			fbs = append(fbs, more...)
		}
		return reviews.New(fbs)
	}
}

// Len is the number of reviews in the scenario's data, building it if needed.
func (sc *Scenario) Len() (int, error) {
	st, err := sc.store()
	if err != nil {
		return 0, err
	}
	return st.Len(), nil
}

// store is the scenario's reviews, built on first use.
func (sc *Scenario) store() (*reviews.Store, error) { return sc.data.get() }

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

// rng is a source of random choices from the scenario's seed and a stream
// name (a session id): the same seed and name give the same sequence.
func (sc *Scenario) rng(stream string) *rand.Rand {
	h := fnv.New64a()
	io.WriteString(h, stream)
	return rand.New(rand.NewPCG(uint64(sc.Seed), h.Sum64()))
}

// dataSource builds a store once, on first use. Scenarios with the same
// data (an extends without its own data or seed) share one.
type dataSource struct {
	once  sync.Once
	build func() (*reviews.Store, error)
	st    *reviews.Store
	err   error
}

func (d *dataSource) get() (*reviews.Store, error) {
	d.once.Do(func() { d.st, d.err = d.build() })
	return d.st, d.err
}

// dataCache shares built data between scenarios and across reloads, keyed
// by everything the data depends on.
type dataCache struct {
	mu sync.Mutex // guards m
	m  map[string]*dataSource
}

func (c *dataCache) source(key string, build func() (*reviews.Store, error)) *dataSource {
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

// loadReviews reads a reviews fixture.
func (l *loader) loadReviews(name string) ([]Feedback, error) {
	return loadFixture(l, "reviews", name, decodeReviews)
}

// loadFixture reads the fixture name and decodes it once per content:
// many scenarios share the same settings, reviews and phrase bank.
// Decoded values are never changed.
func loadFixture[T any](l *loader, kind, name string, decode func(display string, data []byte) (T, error)) (T, error) {
	var zero T
	data, err := fs.ReadFile(l.fixtures, name)
	if err != nil {
		return zero, fmt.Errorf("fixtures/%s: %w", name, err)
	}
	v, err := l.memo(kind, name, data, func() (any, error) { return decode("fixtures/"+name, data) })
	if t, ok := v.(T); ok {
		return t, err
	}
	return zero, err
}

func (l *loader) loadSettings(name string, rules settingsRules) (Settings, error) {
	// The tones are part of the check, so of the key.
	return loadFixture(l, "settings "+strings.Join(rules.tones, ","), name, func(display string, data []byte) (Settings, error) {
		return decodeSettingsFixture(display, data, rules)
	})
}

func (l *loader) loadPhrases(locale string) (*phraseBank, error) {
	return loadFixture(l, "phrases", "phrases/"+locale+".yaml", decodePhrases)
}
