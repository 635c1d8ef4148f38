package fault

import (
	"time"

	"github.com/replymock/replymock/mock/internal/wire"
)

// countsLagKind plays counts read from a cache or replica behind the
// list: a counts_only read it hits answers the counts without the
// list's Changes newest reviews, or those written within For of its
// newest, as if they had not arrived yet.
var countsLagKind = Kind{
	Name:  "counts_lag",
	in:    func(f *Fault) bool { return f.CountsLag != nil },
	check: func(f *Fault, p *problems) { f.CountsLag.check(p) },
	label: func(*Fault) string { return "counts_lag" },
	live: func(f *Fault, _ int, now bool, l Live) string {
		if now && l.Lag(f.CountsLag.Changes, f.CountsLag.For.D()) {
			return "counts_lag: counted the list without its newest reviews"
		}
		return ""
	},
}

// CountsLag is how far counts lag the list: a number of its newest
// reviews, a time before its newest, or both (whichever leaves out more).
type CountsLag struct {
	Changes int           `json:"changes,omitempty" yaml:"changes"`
	For     wire.Duration `json:"for,omitempty" yaml:"for"`
}

// MaxLagFor bounds how far counts lag in time.
const MaxLagFor = 24 * time.Hour

func (c *CountsLag) check(p *problems) {
	if c.Changes < 0 || c.Changes > MaxDrift {
		p.add("counts_lag.changes", "must be from 0 to %d, got %d", MaxDrift, c.Changes)
	}
	if c.For < 0 || c.For.D() > MaxLagFor {
		p.add("counts_lag.for", "must be from 0 to %s, got %s", wire.Duration(MaxLagFor), c.For)
	}
	if c.Changes == 0 && c.For == 0 {
		p.add("counts_lag", "does nothing: give changes (a number of reviews), for (a duration such as 1h) or both")
	}
}
