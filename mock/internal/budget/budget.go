// Package budget counts the bytes each bounded store keeps.
//
// Each store (journals, shops, seeded reviews, overrides, run-time
// faults) charges a Budget of its own, and the server's Set of them
// is its memory budget. A store either refuses what would not fit
// (Reserve), or keeps it and evicts until it is within (Charge and
// Over). The store's own lock makes its decisions whole; the count is
// atomic, so reading it takes no lock.
package budget

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// Budget counts the bytes one store keeps, against its most.
type Budget struct {
	metric, help string
	max          int64
	used         atomic.Int64
}

// New returns a budget of max bytes (0 or less keeps nothing), reported
// as the gauge metric with help.
func New(metric, help string, max int64) *Budget {
	return &Budget{metric: metric, help: help, max: max}
}

// Max is the most the store may keep, in bytes.
func (b *Budget) Max() int64 { return b.max }

// Used is what the store keeps now, in bytes.
func (b *Budget) Used() int64 { return b.used.Load() }

// Reserve charges n bytes if they fit within the budget, and reports
// whether they did. A negative n always fits.
func (b *Budget) Reserve(n int64) bool {
	for {
		used := b.used.Load()
		if n > 0 && used+n > b.max {
			return false
		}
		if b.used.CompareAndSwap(used, used+n) {
			return true
		}
	}
}

// Fits reports whether n more bytes would fit now, charging nothing.
func (b *Budget) Fits(n int64) bool { return n <= 0 || b.used.Load()+n <= b.max }

// Charge counts n more bytes whether or not they fit, for a store that
// evicts afterwards until Over is 0.
func (b *Budget) Charge(n int64) { b.used.Add(n) }

// Release counts n bytes fewer.
func (b *Budget) Release(n int64) { b.used.Add(-n) }

// Over is how many bytes the store keeps past its most; 0 within it.
func (b *Budget) Over() int64 { return max(b.used.Load()-b.max, 0) }

// Set is every budget of a server: what its stores may keep together.
type Set struct {
	list []*Budget
}

// Add puts budgets in the set.
func (s *Set) Add(bs ...*Budget) { s.list = append(s.list, bs...) }

// Max is what the set's stores may keep together at most.
func (s *Set) Max() int64 {
	var n int64
	for _, b := range s.list {
		n += max(b.max, 0)
	}
	return n
}

// Register adds a gauge of what each budget's store keeps to reg.
func (s *Set) Register(reg prometheus.Registerer) {
	for _, b := range s.list {
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: b.metric, Help: b.help},
			func() float64 { return float64(b.Used()) }))
	}
}
