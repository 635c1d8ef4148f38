package scenario

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/fault"
	"github.com/replymock/replymock/mock/internal/generate"
	"github.com/replymock/replymock/mock/internal/media"
	"github.com/replymock/replymock/mock/internal/proxy"
	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/settings"
)

// Scenario is a loaded, validated scenario: its rules, the initial
// settings every session starts from, and its data, built on first use.
type Scenario struct {
	Name         string
	Description  string
	Descriptions map[string]string // Description by language (en, ru)
	Extends      string
	Seed         int64
	Locale       string

	file        File // with the parent's values merged in and defaults applied
	rules       settings.Rules
	settings    settings.Settings
	history     settings.Settings // settings, or generate.history_settings
	faults      []fault.Fault
	bank        *generate.Bank
	media       media.URLs
	data        *dataSource
	fingerprint string
	// loaded is when the scenario was loaded: its data that ends now
	// ends then, and a living shop on a real clock starts then. It is
	// not in the fingerprint.
	loaded time.Time
}

// Loaded is the present the scenario was loaded at: the data anchor of
// a server's start (one for a fleet), or a reload's present.
func (sc *Scenario) Loaded() time.Time { return sc.loaded }

// Rules are the checks its settings follow (its tones).
func (sc *Scenario) Rules() settings.Rules { return sc.rules }

// Settings are the settings every session starts from.
func (sc *Scenario) Settings() settings.Settings { return sc.settings }

// Auth is who may call the API in the scenario.
func (sc *Scenario) Auth() access.Auth { return sc.file.Auth }

// RateLimit is the scenario's rate limit; nil for none.
func (sc *Scenario) RateLimit() *access.RateLimit { return sc.file.RateLimit }

// Strict says whether warnings answer 400; nil: as the server's option says.
func (sc *Scenario) Strict() *bool { return sc.file.Strict }

// Faults are the scenario's own faults, prepared. A fault's counters
// are keyed by its address in the slice, so it is read, never changed.
func (sc *Scenario) Faults() []fault.Fault { return sc.faults }

// Shop makes the scenario's shop live; nil: its data never changes.
func (sc *Scenario) Shop() *ShopSpec { return sc.file.Shop }

// Generate is the generator's spec, defaults applied; nil for data of
// fixtures alone.
func (sc *Scenario) Generate() *generate.GenerateSpec { return sc.file.Data.Generate }

// Proxy is the scenario's pass-through to the real service; nil for none.
func (sc *Scenario) Proxy() *proxy.Spec { return sc.file.Proxy }

// Bank is the phrase bank a living shop writes from; nil without
// generated data or a shop.
func (sc *Scenario) Bank() *generate.Bank { return sc.bank }

// Media are where the scenario's media URLs point: the server's public URL.
func (sc *Scenario) Media() media.URLs { return sc.media }

// Fingerprint changes whenever anything the scenario is made of does: a
// reload keeps a scenario whose fingerprint is unchanged, and a snapshot
// names the version it was taken on.
func (sc *Scenario) Fingerprint() string { return sc.fingerprint }

// hashOf hashes the JSON of vs: a scenario's fingerprint, or the key of
// its data, by everything that goes into it.
func hashOf(vs ...any) string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	for _, v := range vs {
		enc.Encode(v)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// HistoryDelay is the reply engine's delay in sc's history: its living
// shop's, so that the history reads as the shop would have written it.
func (sc *Scenario) HistoryDelay() time.Duration {
	if sc.file.Shop != nil {
		return sc.file.Shop.ReplyDelay.D()
	}
	return generate.HistoryDelay
}

// dataBuilder builds sc's reviews: the fixtures, then the generated ones.
func (sc *Scenario) dataBuilder(display string, fixtures []reviews.Feedback) func() (*reviews.Store, error) {
	gen, seed, bank, st, urls := sc.file.Data.Generate, sc.Seed, sc.bank, sc.history, sc.media
	delay := sc.HistoryDelay()
	return func() (*reviews.Store, error) {
		fbs := slices.Clone(fixtures)
		if gen != nil {
			more, err := generate.Generate(*gen, seed, bank, st, urls, delay)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", display, err)
			}
			fbs = append(fbs, more...)
		}
		return reviews.New(fbs)
	}
}

// Len is the number of reviews in the scenario's data.
func (sc *Scenario) Len() (int, error) {
	st, err := sc.Store()
	if err != nil {
		return 0, err
	}
	return st.Len(), nil
}

// Store is the scenario's reviews, built on first use.
func (sc *Scenario) Store() (*reviews.Store, error) { return sc.data.store() }

// Built reports whether the scenario's data was built, or failed to.
func (sc *Scenario) Built() bool { return sc.data.done.Load() }

// DataEnd is where sc's generated data ends when anchored to the
// present (generate.end: now), else "".
func (sc *Scenario) DataEnd() string {
	if g := sc.file.Data.Generate; g != nil && g.Anchored() {
		return g.End
	}
	return ""
}

// dataSource builds a store once, on first use. Scenarios with the same
// data (an extends without its own data or seed) share one.
type dataSource struct {
	store func() (*reviews.Store, error) // builds on the first call
	done  atomic.Bool
}

// dataCache shares built data between scenarios and across reloads, keyed
// by everything the data depends on.
type dataCache struct {
	mu sync.Mutex
	m  map[string]*dataSource
}

func (c *dataCache) source(key string, build func() (*reviews.Store, error)) *dataSource {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := c.m[key]; ok {
		return d
	}
	d := &dataSource{}
	d.store = sync.OnceValues(func() (*reviews.Store, error) {
		defer d.done.Store(true)
		return build()
	})
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
