package scenario

import (
	"time"

	"github.com/replymock/replymock/mock/internal/wire"
	"github.com/replymock/replymock/mock/internal/yamlfile"
)

// ShopSpec makes a scenario's shop live (scenario key "shop"): new
// reviews arrive, and the reply engine answers them by the session's
// settings, on a clock of the session's own.
type ShopSpec struct {
	// ArrivalsPerHour is how many new reviews arrive in an hour of the
	// session's clock, evenly spaced; 0 means none.
	ArrivalsPerHour float64 `yaml:"arrivals_per_hour" json:"arrivals_per_hour"`
	// ReplyDelay is how long after a review arrived, or its rating's
	// settings changed, the engine answers it.
	ReplyDelay wire.Duration `yaml:"reply_delay" json:"reply_delay"`
	// Clock is "real" (the default: follows time, and POST /__mock/clock
	// moves it ahead) or "frozen" (stands still until advanced).
	Clock string `yaml:"clock" json:"clock"`
}

// MaxShopReviews bounds a living shop: its scenario's data, and each
// session's arrivals, so that the reply engine, which reads every review
// of a session's shop when its clock moves, stays quick.
const MaxShopReviews = 20_000

// validate checks the shop decoded from yf, in a scenario with or
// without a generator, and of dataSize reviews.
func (sp *ShopSpec) validate(yf *yamlfile.File, hasGenerator bool, dataSize int) {
	if !(sp.ArrivalsPerHour >= 0 && sp.ArrivalsPerHour <= 3600) {
		yf.Problemf("shop.arrivals_per_hour", "must be from 0 to 3600, got %v", sp.ArrivalsPerHour)
	}
	if sp.ArrivalsPerHour > 0 && !hasGenerator {
		yf.Problemf("shop.arrivals_per_hour", "needs data.generate: new reviews are written by the generator")
	}
	if sp.ReplyDelay.D() > 30*24*time.Hour {
		yf.Problemf("shop.reply_delay", "must be at most 720h, got %s", sp.ReplyDelay)
	}
	if sp.Clock != "" && sp.Clock != "real" && sp.Clock != "frozen" {
		yf.Problemf("shop.clock", "must be real or frozen, got %q", sp.Clock)
	}
	if dataSize > MaxShopReviews {
		yf.Problemf("shop", "a living shop's reply engine reads all its data as the clock moves: at most %d reviews, got %d", MaxShopReviews, dataSize)
	}
}
