package scenario

import (
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/replymock/replymock/fixtures"
	"github.com/replymock/replymock/mock/internal/generate"
	"github.com/replymock/replymock/mock/internal/media"
	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/settings"
	"github.com/replymock/replymock/scenarios"
)

// Loader reads scenario and fixture files from layers of folders. It
// keeps what it decoded and built, keyed by content, so that scenarios
// sharing a fixture or data, and a reload of unchanged files, repeat no
// work.
type Loader struct {
	scenarios []layer // the first layer with a name is read
	fixtures  []layer
	seed      int64            // overrides every scenario's seed when not 0
	now       func() time.Time // anchors data that ends now
	// anchor, when set, anchors data that ends now instead (Load, at a
	// server's start: every scenario at the same present).
	anchor time.Time
	media  media.URLs
	log    *slog.Logger
	cache  dataCache

	mu      sync.Mutex // guards decoded and polled
	decoded map[string]memoized
	polled  *folderState // the scenarios folder when it was last read whole
}

// Config says where a Loader reads from, and what it builds with: the
// server's options of the same names.
type Config struct {
	// Scenarios is a user's folder of NAME.yaml files, named ScenariosDir
	// in messages; nil for the shipped scenarios alone. With
	// ShippedScenarios, the shipped ones are served too, under it.
	Scenarios        fs.FS
	ScenariosDir     string
	ShippedScenarios bool
	Fixtures         fs.FS // likewise, for the fixture files scenarios name
	FixturesDir      string
	ShippedFixtures  bool
	Seed             int64
	Now              func() time.Time // nil for time.Now
	PublicURL        string           // the base of the records' media URLs
	Logger           *slog.Logger
}

// NewLoader is a loader of cfg's folders.
func NewLoader(cfg Config) *Loader {
	l := &Loader{
		scenarios: layers(cfg.Scenarios, cfg.ScenariosDir, cfg.ShippedScenarios, scenarios.FS, "scenarios"),
		fixtures:  layers(cfg.Fixtures, cfg.FixturesDir, cfg.ShippedFixtures, fixtures.FS, "fixtures"),
		seed:      cfg.Seed,
		now:       cfg.Now,
		media:     media.URLs{Base: cfg.PublicURL},
		log:       cmp.Or(cfg.Logger, slog.New(slog.DiscardHandler)),
		cache:     dataCache{m: make(map[string]*dataSource)},
		decoded:   make(map[string]memoized),
	}
	if l.now == nil {
		l.now = time.Now
	}
	return l
}

// Media is where the records' media URLs point: the server's public URL.
func (l *Loader) Media() media.URLs { return l.media }

// unbased is fixtures with their media URLs relative to the server.
func unbased(fixtures []reviews.Feedback, base string) []reviews.Feedback {
	if base == "" || len(fixtures) == 0 {
		return fixtures
	}
	out := slices.Clone(fixtures)
	for i := range out {
		media.Rebase(&out[i], base, "")
	}
	return out
}

// layer is one folder of scenario or fixture files, or the scenario files
// given to ValidateFiles. A user's folder hides the shipped files of the
// same names.
type layer struct {
	fsys  fs.FS
	dir   string                // how messages name the folder: "scenarios", "(shipped) scenarios"
	where string                // how a "not found" message names it
	given map[string]SourceFile // instead of fsys: files by NAME.yaml
}

// layers are the layers of a kind of file: the user's folder, if any,
// then, without one or with shipped, the embedded files.
func layers(user fs.FS, dir string, shipped bool, embedded fs.FS, kind string) []layer {
	var out []layer
	if user != nil {
		ly := layer{fsys: user, dir: dir, where: dir}
		if dir == "" {
			ly.dir, ly.where = kind, "the "+kind+" folder"
		}
		out = append(out, ly)
	}
	if user == nil || shipped {
		out = append(out, layer{fsys: embedded, dir: "(shipped) " + kind, where: "the shipped " + kind})
	}
	return out
}

// display names file, a path inside the layer, as the user finds it.
func (ly *layer) display(file string) string {
	if ly.given != nil {
		return ly.given[file].Path
	}
	return filepath.Join(ly.dir, filepath.FromSlash(file))
}

// whereAll names layers in a "not found" message.
func whereAll(layers []layer) string {
	names := make([]string, len(layers))
	for i, ly := range layers {
		names[i] = ly.where
	}
	return strings.Join(names, " or ")
}

type memoized struct {
	v   any
	err error
}

// memo runs decode once per kind, name and content.
func (l *Loader) memo(kind, name string, data []byte, decode func() (any, error)) (any, error) {
	sum := sha256.Sum256(data)
	key := kind + "\x00" + name + "\x00" + string(sum[:])
	l.mu.Lock()
	defer l.mu.Unlock()
	if m, ok := l.decoded[key]; ok {
		return m.v, m.err
	}
	v, err := decode()
	l.decoded[key] = memoized{v, err}
	return v, err
}

// loadFixture reads the fixture name and decodes it once per content:
// many scenarios share the same settings, reviews and phrase bank.
// Decoded values are never changed.
func loadFixture[T any](l *Loader, kind, name string, decode func(display string, data []byte) (T, error)) (T, error) {
	var zero T
	for i := range l.fixtures {
		ly := &l.fixtures[i]
		err := checkFile(ly.fsys, name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		display := ly.display(name)
		var data []byte
		if err == nil {
			data, err = readChecked(ly.fsys, name)
		}
		if err != nil {
			return zero, fmt.Errorf("%s: %w", display, err)
		}
		v, err := l.memo(kind, display, data, func() (any, error) { return decode(display, data) })
		t, _ := v.(T)
		return t, err
	}
	return zero, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

func (l *Loader) loadSettings(name string, rules settings.Rules) (settings.Settings, error) {
	// The tones are part of the check, so of the key.
	return loadFixture(l, "settings "+strings.Join(rules.Tones, ","), name, func(display string, data []byte) (settings.Settings, error) {
		return settings.DecodeFixture(display, data, rules)
	})
}

// LoadPhrases reads the phrase bank of locale (phrases/LOCALE.yaml).
func (l *Loader) LoadPhrases(locale string) (*generate.Bank, error) {
	return loadFixture(l, "phrases", "phrases/"+locale+".yaml", generate.DecodePhrases)
}
