package mock

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/replymock/replymock/mock/internal/content"
	"github.com/replymock/replymock/mock/internal/media"
	"github.com/replymock/replymock/mock/internal/settings"
	"github.com/replymock/replymock/mock/internal/wire"
	"github.com/replymock/replymock/mock/internal/yamlfile"
)

// scenarioFile is the YAML form of a scenario (scenarios/NAME.yaml).
type scenarioFile struct {
	Extends     string `yaml:"extends"`
	Description string `yaml:"description"`
	// Descriptions are the description in other languages, by locale
	// (en, ru), for the control panel; description is the fallback.
	Descriptions map[string]string `yaml:"descriptions"`
	Seed         int64             `yaml:"seed"`
	Tones        []string          `yaml:"tones"`
	Settings     string            `yaml:"settings"`
	Auth         Auth              `yaml:"auth"`
	RateLimit    *RateLimit        `yaml:"rate_limit"`
	Faults       []Fault           `yaml:"faults"`
	Shop         *shopSpec         `yaml:"shop"`
	Data         dataSpec          `yaml:"data"`
	Strict       *bool             `yaml:"strict"`
	Proxy        *ProxySpec        `yaml:"proxy"`
}

// scenarioKeys are the top-level keys; with extends, each one given
// replaces the parent's value whole.
var scenarioKeys = []string{"description", "descriptions", "seed", "tones", "settings", "auth", "rate_limit", "faults", "shop", "data", "strict", "proxy"}

// dataSpec says where a scenario's reviews come from.
type dataSpec struct {
	Locale   string                `yaml:"locale" json:"locale"`
	Fixtures []string              `yaml:"fixtures" json:"fixtures"`
	Generate *content.GenerateSpec `yaml:"generate" json:"generate"`
}

// Limits on scenario data, so a typo cannot exhaust memory.
const (
	MaxGeneratedReviews = content.MaxGeneratedReviews
	MaxProducts         = content.MaxProducts
	MaxFaults           = 100
)

// Scenario is a loaded, validated scenario: its rules, the initial
// settings every session starts from, and its data, built on first use.
type Scenario struct {
	Name        string
	Description string
	// Descriptions is Description by language (en, ru), when the file
	// gives them.
	Descriptions map[string]string
	Extends      string
	Seed         int64
	Locale       string

	file      scenarioFile // with the parent's values merged in and defaults applied
	rules     settings.Rules
	settings  Settings
	history   Settings // what the generated history was answered by: settings, or generate.history_settings
	auth      Auth
	rateLimit *RateLimit
	strict    *bool // warnings answer 400 (true) or not (false); nil: as Options.Strict says
	faults    []Fault
	shop      *shopSpec     // nil: the data never changes
	bank      *content.Bank // for new reviews and replies of a living shop
	media     media.URLs    // the base of generated media URLs: the server's public URL
	data      *dataSource
	// fingerprint changes whenever anything above does; a reload keeps a
	// scenario whose fingerprint is unchanged, and with it sessions' counters.
	fingerprint string
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
func dataKey(d dataSpec, seed int64, st Settings, delay time.Duration, fixtures []Feedback) string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	enc.Encode(d)
	enc.Encode(seed)
	enc.Encode(st)
	enc.Encode(delay)
	enc.Encode(fixtures)
	return hex.EncodeToString(h.Sum(nil))
}

// validate checks a decoded scenario; it does not change it.
func (sf *scenarioFile) validate(yf *yamlfile.File) {
	if strings.TrimSpace(sf.Description) == "" {
		yf.Problemf("description", "required: one line saying what the scenario is for")
	}
	if sf.Proxy != nil {
		for _, pr := range sf.Proxy.Problems() {
			yf.Problemf("proxy."+pr.Field, "%s", pr.Msg)
		}
	}
	for _, l := range slices.Sorted(maps.Keys(sf.Descriptions)) {
		switch {
		case !slices.Contains(content.Locales, l):
			yf.Problemf("descriptions", "languages are %s, got %q", strings.Join(content.Locales, ", "), l)
		case strings.TrimSpace(sf.Descriptions[l]) == "":
			yf.Problemf("descriptions."+l, "must not be empty")
		}
	}
	if sf.Seed == 0 {
		yf.Problemf("seed", "required and not 0: the seed makes the data the same on every run")
	}
	for i, t := range sf.Tones {
		if strings.TrimSpace(t) == "" || len([]rune(t)) > settings.MaxTone {
			yf.Problemf(fmt.Sprintf("tones[%d]", i), "must be a non-empty string of at most %d characters", settings.MaxTone)
		}
	}
	if sf.Settings == "" {
		yf.Problemf("settings", "required: a settings fixture, e.g. settings/default.yaml")
	}
	for _, p := range wire.Prefixed("auth", sf.Auth.Problems()) {
		yf.Problemf(p.Field, "%s", p.Msg)
	}
	if sf.RateLimit != nil {
		for _, p := range wire.Prefixed("rate_limit", sf.RateLimit.Problems()) {
			yf.Problemf(p.Field, "%s", p.Msg)
		}
	}
	if sf.Shop != nil {
		size := 0
		if sf.Data.Generate != nil {
			size = sf.Data.Generate.Count
		}
		// Without its parent, a file's data may come from the parent.
		dataUnknown := yf.Keep != nil && !yf.Has("data")
		sf.Shop.validate(yf, sf.Data.Generate != nil || dataUnknown, size)
	}
	if len(sf.Faults) > MaxFaults {
		yf.Problemf("faults", "at most %d faults, got %d", MaxFaults, len(sf.Faults))
	}
	for i := range sf.Faults {
		for _, p := range wire.Prefixed(fmt.Sprintf("faults[%d]", i), sf.Faults[i].Validate()) {
			yf.Problemf(p.Field, "%s", p.Msg)
		}
	}
	d := sf.Data
	if d.Locale != "" && !slices.Contains(content.Locales, d.Locale) {
		yf.Problemf("data.locale", "must be one of %s, got %q", strings.Join(content.Locales, ", "), d.Locale)
	}
	for i, fx := range d.Fixtures {
		if !fs.ValidPath(fx) || !strings.HasSuffix(fx, ".yaml") {
			yf.Problemf(fmt.Sprintf("data.fixtures[%d]", i), "must be a .yaml path inside the fixtures folder, got %q", fx)
		}
	}
	if g := d.Generate; g != nil {
		g.Validate(yf, "data.generate")
	}
}

// applyDefaults fills what the file leaves out, and writes a generated
// data's end anchored to now as the timestamp it is at now (unless now
// is zero: then it stays as written).
func (sf *scenarioFile) applyDefaults(now time.Time) {
	if sf.Data.Locale == "" {
		sf.Data.Locale = "ru"
	}
	if sf.Data.Generate != nil {
		sf.Data.Generate = sf.Data.Generate.WithDefaults(now) // the file's own: a parent's is shared
	}
}
