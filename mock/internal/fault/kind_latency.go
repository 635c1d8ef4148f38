package fault

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/replymock/replymock/mock/internal/wire"
)

// latencyKind waits before the answer. The delays of all the faults a
// request meets add up, to at most MaxLatency.
var latencyKind = Kind{
	Name:  "latency",
	in:    func(f *Fault) bool { return f.Latency != nil },
	check: func(f *Fault, p *problems) { f.Latency.check(p) },
	label: func(*Fault) string { return "latency" },
	delay: func(f *Fault, rng *rand.Rand) time.Duration { return f.Latency.Sample(rng) },
}

// Latency is a delay: Fixed; a uniform range Min..Max; or log-normal,
// given its Median and 99th percentile P99. Exactly one form is used.
type Latency struct {
	Fixed  wire.Duration `json:"fixed,omitempty" yaml:"fixed"`
	Min    wire.Duration `json:"min,omitempty" yaml:"min"`
	Max    wire.Duration `json:"max,omitempty" yaml:"max"`
	Median wire.Duration `json:"median,omitempty" yaml:"median"`
	P99    wire.Duration `json:"p99,omitempty" yaml:"p99"`
}

// MaxLatency bounds every injected delay, so that the server's write
// timeout always outlasts it.
const MaxLatency = 60 * time.Second

func (l *Latency) check(p *problems) {
	forms := 0
	if l.Fixed > 0 {
		forms++
	}
	if l.Min > 0 || l.Max > 0 {
		forms++
		if l.Max < l.Min || l.Max == 0 {
			p.add("latency.max", "must be >= min and above 0")
		}
	}
	if l.Median > 0 || l.P99 > 0 {
		forms++
		if l.Median == 0 {
			p.add("latency.median", "required with p99")
		}
		if l.P99 < l.Median {
			p.add("latency.p99", "must be >= median")
		}
	}
	switch {
	case forms == 0:
		p.add("latency", "give fixed, min and max, or median and p99")
	case forms > 1:
		p.add("latency", "give only one of fixed, min/max, median/p99")
	}
	for _, d := range []struct {
		name string
		v    wire.Duration
	}{{"fixed", l.Fixed}, {"max", l.Max}, {"p99", l.P99}} {
		if d.v.D() > MaxLatency {
			p.add("latency."+d.name, "must be at most %s, got %s", MaxLatency, d.v)
		}
	}
}

// Sample draws one delay, at most MaxLatency.
func (l *Latency) Sample(rng *rand.Rand) time.Duration {
	var d time.Duration
	switch {
	case l.Fixed > 0:
		d = l.Fixed.D()
	case l.Max > 0:
		d = l.Min.D() + time.Duration(rng.Int64N(int64(l.Max-l.Min)+1))
	default:
		// Log-normal: the median is e^mu, and p99 = e^(mu + z99*sigma).
		const z99 = 2.3263478740408408
		mu := math.Log(float64(l.Median))
		sigma := 0.0
		if l.P99 > l.Median {
			sigma = (math.Log(float64(l.P99)) - mu) / z99
		}
		d = time.Duration(math.Exp(mu + sigma*rng.NormFloat64()))
	}
	return min(d, MaxLatency)
}
