package scenario

import (
	"cmp"
	"fmt"
	"io/fs"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/fault"
	"github.com/replymock/replymock/mock/internal/generate"
	"github.com/replymock/replymock/mock/internal/proxy"
	"github.com/replymock/replymock/mock/internal/settings"
	"github.com/replymock/replymock/mock/internal/yamlfile"
)

// File is the YAML form of a scenario (scenarios/NAME.yaml).
type File struct {
	Extends     string `yaml:"extends"`
	Description string `yaml:"description"`
	// Descriptions are the description by locale (en, ru), for the
	// control panel; description is the fallback.
	Descriptions map[string]string `yaml:"descriptions"`
	Seed         int64             `yaml:"seed"`
	Tones        []string          `yaml:"tones"`
	Settings     string            `yaml:"settings"`
	Auth         access.Auth       `yaml:"auth"`
	RateLimit    *access.RateLimit `yaml:"rate_limit"`
	Faults       []fault.Fault     `yaml:"faults"`
	Shop         *ShopSpec         `yaml:"shop"`
	Data         DataSpec          `yaml:"data"`
	Strict       *bool             `yaml:"strict"`
	Proxy        *proxy.Spec       `yaml:"proxy"`
}

// DataSpec says where a scenario's reviews come from.
type DataSpec struct {
	Locale   string                 `yaml:"locale" json:"locale"`
	Fixtures []string               `yaml:"fixtures" json:"fixtures"`
	Generate *generate.GenerateSpec `yaml:"generate" json:"generate"`
}

// MaxFaults bounds a scenario's own faults, so a typo cannot exhaust
// memory (its generated data is bounded by content's limits).
const MaxFaults = 100

// validate checks a decoded scenario; it does not change it.
func (sf *File) validate(yf *yamlfile.File) {
	if strings.TrimSpace(sf.Description) == "" {
		yf.Problemf("description", "required: one line saying what the scenario is for")
	}
	if sf.Proxy != nil {
		yf.Problems("proxy", sf.Proxy.Problems())
	}
	for _, l := range slices.Sorted(maps.Keys(sf.Descriptions)) {
		switch {
		case !slices.Contains(generate.Locales, l):
			yf.Problemf("descriptions", "languages are %s, got %q", strings.Join(generate.Locales, ", "), l)
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
	yf.Problems("auth", sf.Auth.Problems())
	if sf.RateLimit != nil {
		yf.Problems("rate_limit", sf.RateLimit.Problems())
	}
	if sf.Shop != nil {
		size := 0
		if sf.Data.Generate != nil {
			size = sf.Data.Generate.Count
		}
		// Without its parent, the file's data may be the parent's.
		dataUnknown := yf.Keep != nil && !yf.Has("data")
		sf.Shop.validate(yf, sf.Data.Generate != nil || dataUnknown, size)
	}
	if len(sf.Faults) > MaxFaults {
		yf.Problemf("faults", "at most %d faults, got %d", MaxFaults, len(sf.Faults))
	}
	for i := range sf.Faults {
		probs := sf.Faults[i].Validate()
		if len(probs) == 0 && sf.Proxy == nil { // with a proxy, the fault may be for a path it serves
			probs = append(probs, sf.Faults[i].CanFire()...)
		}
		yf.Problems(fmt.Sprintf("faults[%d]", i), probs)
	}
	d := sf.Data
	if d.Locale != "" && !slices.Contains(generate.Locales, d.Locale) {
		yf.Problemf("data.locale", "must be one of %s, got %q", strings.Join(generate.Locales, ", "), d.Locale)
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

// applyDefaults fills what the file leaves out, and an end anchored to
// now as the timestamp it is at now, unless now is zero.
func (sf *File) applyDefaults(now time.Time) {
	sf.Data.Locale = cmp.Or(sf.Data.Locale, "ru")
	if sf.Data.Generate != nil {
		sf.Data.Generate = sf.Data.Generate.WithDefaults(now)
	}
}

// merged is parent with the top-level keys yf gives replaced, each whole,
// by child's values.
func merged(parent, child File, yf *yamlfile.File) File {
	out := parent
	dst, src := reflect.ValueOf(&out).Elem(), reflect.ValueOf(child)
	for i, f := range reflect.VisibleFields(dst.Type()) {
		if yf.Has(f.Tag.Get("yaml")) {
			dst.Field(i).Set(src.Field(i))
		}
	}
	if yf.Has("description") {
		// A description of its own: the parent's translations no longer fit.
		out.Descriptions = child.Descriptions
	}
	return out
}
