package generate

import (
	"cmp"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/yamlfile"
)

// GenerateSpec is the generator's parameters (data.generate). A nil
// pointer takes the default.
type GenerateSpec struct {
	Count    int    `yaml:"count" json:"count"`
	Products int    `yaml:"products" json:"products"`
	Replies  string `yaml:"replies" json:"replies"` // RepliesSettings or RepliesNone
	// HistorySettings is a settings fixture that answered the history
	// instead of the scenario's (a demo paused now, busy before).
	HistorySettings string `yaml:"history_settings" json:"history_settings"`
	// Answered is the older form of Replies: 0 is "none", else "settings".
	Answered      *float64  `yaml:"answered" json:"answered"`
	RatingWeights []float64 `yaml:"rating_weights" json:"rating_weights"`
	RatingOnly    *float64  `yaml:"rating_only" json:"rating_only"`
	Photos        *float64  `yaml:"photos" json:"photos"`
	Videos        *float64  `yaml:"videos" json:"videos"`
	SameSecond    *float64  `yaml:"same_second" json:"same_second"`
	End           string    `yaml:"end" json:"end"`
	anchored      bool      // End was now or now-DURATION
	Days          int       `yaml:"days" json:"days"`
}

// Limits on generated data, so a typo cannot exhaust memory.
const (
	MaxGeneratedReviews = 2_000_000
	MaxProducts         = 100_000
)

// Validate checks the spec decoded from yf at the field path p.
func (g *GenerateSpec) Validate(yf *yamlfile.File, p string) {
	if g.Count < 0 || g.Count > MaxGeneratedReviews {
		yf.Problemf(p+".count", "must be from 0 to %d, got %d", MaxGeneratedReviews, g.Count)
	}
	if g.Products < 0 || g.Products > MaxProducts {
		yf.Problemf(p+".products", "must be from 1 to %d (0 or absent: %d), got %d", MaxProducts, DefaultProducts, g.Products)
	}
	switch {
	case g.Replies != "" && g.Replies != RepliesSettings && g.Replies != RepliesNone:
		yf.Problemf(p+".replies", "must be %s (the reply engine answered the history by the settings) or %s (nobody yet), got %q", RepliesSettings, RepliesNone, g.Replies)
	case g.Replies != "" && g.Answered != nil:
		yf.Problemf(p+".answered", "give replies or its older form answered, not both")
	case g.HistorySettings != "" && g.Replies == RepliesNone:
		yf.Problemf(p+".history_settings", "nobody answered the history (replies: none): no settings to answer it by")
	}
	if g.HistorySettings != "" && (!fs.ValidPath(g.HistorySettings) || !strings.HasSuffix(g.HistorySettings, ".yaml")) {
		yf.Problemf(p+".history_settings", "must be a .yaml path inside the fixtures folder, got %q", g.HistorySettings)
	}
	for _, fr := range []struct {
		name string
		v    *float64
	}{{"answered", g.Answered}, {"rating_only", g.RatingOnly}, {"photos", g.Photos}, {"videos", g.Videos}, {"same_second", g.SameSecond}} {
		if fr.v != nil && !(*fr.v >= 0 && *fr.v <= 1) {
			yf.Problemf(p+"."+fr.name, "must be a fraction from 0 to 1, got %v", *fr.v)
		}
	}
	if g.RatingWeights != nil {
		sum := 0.0
		for _, w := range g.RatingWeights {
			if !(w >= 0) {
				yf.Problemf(p+".rating_weights", "weights must be >= 0, got %v", w)
			}
			sum += w
		}
		if len(g.RatingWeights) != 5 {
			yf.Problemf(p+".rating_weights", "must list 5 weights, for ratings 1 to 5; got %d", len(g.RatingWeights))
		} else if !(sum > 0) {
			yf.Problemf(p+".rating_weights", "at least one weight must be above 0")
		}
	}
	if g.End != "" {
		if _, err := g.endAt(time.Now()); err != nil {
			yf.Problemf(p+".end", "must be a timestamp YYYY-MM-DD HH:MM:SS, now, or now-DURATION (now-6h), got %q", g.End)
		}
	}
	if g.Days < 0 || g.Days > maxDays {
		yf.Problemf(p+".days", "must be from 1 to %d (0 or absent: %d), got %d", maxDays, defaultDays, g.Days)
	}
}

// Who answered a generated history: the engine by the settings, or nobody.
const (
	RepliesSettings = "settings"
	RepliesNone     = "none"
)

// Defaults of the generator.
const (
	DefaultProducts   = 40
	defaultRatingOnly = 0.15
	defaultPhotos     = 0.2
	defaultVideos     = 0.02
	defaultSameSecond = 0.03
	DefaultEnd        = "2026-11-15 21:00:00"
	defaultDays       = 365
	maxDays           = 3660
)

// defaultRatingWeights skew ratings like a real shop: mostly 5, some 1.
var defaultRatingWeights = []float64{7, 3, 6, 14, 70}

// endAt is when the generated reviews end: End, or for now-DURATION that
// long before now, in whole seconds.
func (g *GenerateSpec) endAt(now time.Time) (time.Time, error) {
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

// Anchored reports whether End was written now or now-DURATION.
func (g *GenerateSpec) Anchored() bool { return g.anchored }

// WithDefaults is a copy of the spec with defaults filled in, and End
// resolved against now unless now is zero. A parent scenario shares the
// spec, so it is not changed.
func (g GenerateSpec) WithDefaults(now time.Time) *GenerateSpec {
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
		g.Replies = RepliesSettings
		if g.Answered != nil && *g.Answered == 0 {
			g.Replies = RepliesNone
		}
	}
	g.Answered = nil
	orDefault(&g.RatingOnly, defaultRatingOnly)
	orDefault(&g.Photos, defaultPhotos)
	orDefault(&g.Videos, defaultVideos)
	orDefault(&g.SameSecond, defaultSameSecond)
	g.Products = cmp.Or(g.Products, DefaultProducts)
	if g.RatingWeights == nil {
		g.RatingWeights = defaultRatingWeights
	}
	g.End = cmp.Or(g.End, DefaultEnd)
	g.Days = cmp.Or(g.Days, defaultDays)
	return &g
}
