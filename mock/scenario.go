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

	"github.com/replymock/replymock/mock/internal/media"
	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/settings"
	"github.com/replymock/replymock/mock/internal/wire"
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
	Locale   string        `yaml:"locale" json:"locale"`
	Fixtures []string      `yaml:"fixtures" json:"fixtures"`
	Generate *generateSpec `yaml:"generate" json:"generate"`
}

// generateSpec are the generator's parameters. Pointers tell "absent"
// (a default applies) from zero.
type generateSpec struct {
	Count    int `yaml:"count" json:"count"`
	Products int `yaml:"products" json:"products"`
	// Replies is who answered the history: "settings" (the default), the
	// reply engine by the scenario's settings, as they would have been
	// answered as they arrived; "none", nobody yet (the service was just
	// switched on).
	Replies string `yaml:"replies" json:"replies"`
	// HistorySettings is a settings fixture the history was answered by,
	// when not the scenario's own: settings that held until the
	// scenario's clock starts (a demo paused now, busy before).
	HistorySettings string `yaml:"history_settings" json:"history_settings"`
	// Answered is the older form of Replies: 0 is "none", any other
	// share is "settings", which decide what is answered.
	Answered      *float64  `yaml:"answered" json:"answered"`
	RatingWeights []float64 `yaml:"rating_weights" json:"rating_weights"`
	RatingOnly    *float64  `yaml:"rating_only" json:"rating_only"`
	Photos        *float64  `yaml:"photos" json:"photos"`
	Videos        *float64  `yaml:"videos" json:"videos"`
	SameSecond    *float64  `yaml:"same_second" json:"same_second"`
	End           string    `yaml:"end" json:"end"`
	// anchored: End was written now or now-DURATION, and is the time
	// that was when the scenario loaded.
	anchored bool
	Days     int `yaml:"days" json:"days"`
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
	shop      *shopSpec   // nil: the data never changes
	bank      *phraseBank // for new reviews and replies of a living shop
	media     media.URLs  // the base of generated media URLs: the server's public URL
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
func (sf *scenarioFile) validate(yf *yamlFile) {
	if strings.TrimSpace(sf.Description) == "" {
		yf.problemf("description", "required: one line saying what the scenario is for")
	}
	if sf.Proxy != nil {
		for _, pr := range sf.Proxy.Problems() {
			yf.problemf("proxy."+pr.Field, "%s", pr.Msg)
		}
	}
	for _, l := range slices.Sorted(maps.Keys(sf.Descriptions)) {
		switch {
		case !slices.Contains(locales, l):
			yf.problemf("descriptions", "languages are %s, got %q", strings.Join(locales, ", "), l)
		case strings.TrimSpace(sf.Descriptions[l]) == "":
			yf.problemf("descriptions."+l, "must not be empty")
		}
	}
	if sf.Seed == 0 {
		yf.problemf("seed", "required and not 0: the seed makes the data the same on every run")
	}
	for i, t := range sf.Tones {
		if strings.TrimSpace(t) == "" || len([]rune(t)) > settings.MaxTone {
			yf.problemf(fmt.Sprintf("tones[%d]", i), "must be a non-empty string of at most %d characters", settings.MaxTone)
		}
	}
	if sf.Settings == "" {
		yf.problemf("settings", "required: a settings fixture, e.g. settings/default.yaml")
	}
	for _, p := range wire.Prefixed("auth", sf.Auth.Problems()) {
		yf.problemf(p.Field, "%s", p.Msg)
	}
	if sf.RateLimit != nil {
		for _, p := range wire.Prefixed("rate_limit", sf.RateLimit.Problems()) {
			yf.problemf(p.Field, "%s", p.Msg)
		}
	}
	if sf.Shop != nil {
		size := 0
		if sf.Data.Generate != nil {
			size = sf.Data.Generate.Count
		}
		// Without its parent, a file's data may come from the parent.
		dataUnknown := yf.keep != nil && !yf.has("data")
		sf.Shop.validate(yf, sf.Data.Generate != nil || dataUnknown, size)
	}
	if len(sf.Faults) > MaxFaults {
		yf.problemf("faults", "at most %d faults, got %d", MaxFaults, len(sf.Faults))
	}
	for i := range sf.Faults {
		for _, p := range wire.Prefixed(fmt.Sprintf("faults[%d]", i), sf.Faults[i].Validate()) {
			yf.problemf(p.Field, "%s", p.Msg)
		}
	}
	d := sf.Data
	if d.Locale != "" && !slices.Contains(locales, d.Locale) {
		yf.problemf("data.locale", "must be one of %s, got %q", strings.Join(locales, ", "), d.Locale)
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
		yf.problemf(p+".products", "must be from 1 to %d (0 or absent: %d), got %d", MaxProducts, defaultProducts, g.Products)
	}
	switch {
	case g.Replies != "" && g.Replies != repliesSettings && g.Replies != repliesNone:
		yf.problemf(p+".replies", "must be %s (the reply engine answered the history by the settings) or %s (nobody yet), got %q", repliesSettings, repliesNone, g.Replies)
	case g.Replies != "" && g.Answered != nil:
		yf.problemf(p+".answered", "give replies or its older form answered, not both")
	case g.HistorySettings != "" && g.Replies == repliesNone:
		yf.problemf(p+".history_settings", "nobody answered the history (replies: none): no settings to answer it by")
	}
	if g.HistorySettings != "" && (!fs.ValidPath(g.HistorySettings) || !strings.HasSuffix(g.HistorySettings, ".yaml")) {
		yf.problemf(p+".history_settings", "must be a .yaml path inside the fixtures folder, got %q", g.HistorySettings)
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
		if _, err := g.endAt(time.Now()); err != nil {
			yf.problemf(p+".end", "must be a timestamp YYYY-MM-DD HH:MM:SS, now, or now-DURATION (now-6h), got %q", g.End)
		}
	}
	if g.Days < 0 || g.Days > maxDays {
		yf.problemf(p+".days", "must be from 1 to %d (0 or absent: %d), got %d", maxDays, defaultDays, g.Days)
	}
}

// Who answered a scenario's generated history (generate.replies).
const (
	repliesSettings = "settings"
	repliesNone     = "none"
)

// Defaults of the generator, applied in one place after validation.
const (
	defaultProducts   = 40
	defaultRatingOnly = 0.15
	defaultPhotos     = 0.2
	defaultVideos     = 0.02
	defaultSameSecond = 0.03
	defaultEnd        = "2026-11-15 21:00:00"
	defaultDays       = 365
	maxDays           = 3660
)

// defaultRatingWeights skew ratings like a real shop: mostly 5, some 1.
var defaultRatingWeights = []float64{7, 3, 6, 14, 70}

// endAt is when the generated reviews end: End as written, or for now
// and now-DURATION, that long before now (whole seconds).
func (g *generateSpec) endAt(now time.Time) (time.Time, error) {
	rest, relative := strings.CutPrefix(g.End, "now")
	if !relative {
		return time.Parse(reviews.TimestampLayout, g.End)
	}
	var ago time.Duration
	if rest != "" {
		d, ok := strings.CutPrefix(rest, "-")
		var err error
		if ago, err = time.ParseDuration(d); !ok || err != nil || ago < 0 || ago > maxDays*24*time.Hour {
			return time.Time{}, fmt.Errorf("not now or now-DURATION: %q", g.End)
		}
	}
	return now.UTC().Add(-ago).Truncate(time.Second), nil
}

// applyDefaults fills what the file leaves out, and writes a generated
// data's end anchored to now as the timestamp it is at now (unless now
// is zero: then it stays as written).
func (sf *scenarioFile) applyDefaults(now time.Time) {
	if sf.Data.Locale == "" {
		sf.Data.Locale = "ru"
	}
	if sf.Data.Generate == nil {
		return
	}
	own := *sf.Data.Generate // the file's own: a parent's is shared
	g := &own
	sf.Data.Generate = g
	if strings.HasPrefix(g.End, "now") && !now.IsZero() {
		if end, err := g.endAt(now); err == nil {
			g.End, g.anchored = end.Format(reviews.TimestampLayout), true
		}
	}
	orDefault := func(p **float64, v float64) {
		if *p == nil {
			*p = &v
		}
	}
	if g.Replies == "" {
		g.Replies = repliesSettings
		if g.Answered != nil && *g.Answered == 0 {
			g.Replies = repliesNone
		}
	}
	g.Answered = nil // said by Replies now
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
