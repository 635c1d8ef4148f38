package record

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/mock/internal/reviews"
)

// Calibration is what the recorded shop measures. The generate block of
// NAME-live.yaml is written from it.
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

// calibrate measures the recorded shop.
func calibrate(recs []apiRecord) Calibration {
	c := Calibration{TextLength: map[string]int{}, Locale: "ru"}
	if len(recs) == 0 {
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
		if reviews.Answered(&r) {
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
	for _, share := range []*float64{&c.AnsweredShare, &c.RatingOnlyShare, &c.PhotoShare, &c.VideoShare, &c.SameSecondShare} {
		*share /= n
	}
	c.Products = len(products)
	if lat > cyr {
		c.Locale = "en"
	}
	slices.Sort(lengths)
	for _, p := range []int{10, 50, 90, 99} {
		if len(lengths) > 0 {
			c.TextLength["p"+strconv.Itoa(p)] = lengths[min(len(lengths)-1, len(lengths)*p/100)]
		}
	}
	c.measureTimes(times)
	return c
}

// measureTimes sets the first and last times, the days they span, and
// the arrivals an hour over the last 30 days.
func (c *Calibration) measureTimes(times []time.Time) {
	if len(times) == 0 {
		return
	}
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	first, last := times[0], times[len(times)-1]
	c.First, c.Last = first.Format(time.DateTime), last.Format(time.DateTime)
	c.Days = int(math.Ceil(last.Sub(first).Hours()/24)) + 1
	from := last.Add(-30 * 24 * time.Hour)
	recent := len(times) - sort.Search(len(times), func(i int) bool { return times[i].After(from) })
	span := math.Min(30*24, math.Max(last.Sub(first).Hours(), 1))
	c.ArrivalsPerHour = math.Round(float64(recent)/span*100) / 100
}

// recordedScenario is the scenario that serves the recording as it is.
func recordedScenario(cfg Config, res *Result) map[string]any {
	return map[string]any{
		"description": fmt.Sprintf("Recorded from %s: %d reviews, %s to %s", res.From, res.Reviews, res.Calibration.First, res.Calibration.Last),
		"seed":        cfg.Seed,
		"settings":    "settings/" + cfg.Name + ".yaml",
		"data":        map[string]any{"locale": res.Calibration.Locale, "fixtures": fixtureNames(cfg.Name, res.Reviews)},
	}
}

// liveScenario is the recording with generated reviews by its measures
// and a living shop at its arrival rate.
func liveScenario(cfg Config, res *Result) map[string]any {
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
	// A living shop holds at most mock.MaxShopReviews. Generate as many
	// again as were recorded, or what room is left; for a shop too big,
	// generated reviews alone.
	count, recorded := mock.MaxShopReviews/2, 0
	var fixtures []string
	if room := mock.MaxShopReviews - res.Reviews; room >= 1 {
		count, recorded, fixtures = min(max(res.Reviews, 1), room), res.Reviews, fixtureNames(cfg.Name, res.Reviews)
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
	if fixtures != nil {
		data["fixtures"] = fixtures
	}
	return map[string]any{
		"description": fmt.Sprintf("The shop recorded from %s, alive: %d recorded and %d generated reviews, %.2f new an hour", res.From, recorded, count, c.ArrivalsPerHour),
		"extends":     cfg.Name,
		"data":        data,
		"shop":        map[string]any{"arrivals_per_hour": math.Max(round(c.ArrivalsPerHour), 0.01), "reply_delay": "2m", "clock": "real"},
	}
}
