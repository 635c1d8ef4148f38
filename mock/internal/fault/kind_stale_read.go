package fault

import (
	"time"

	"github.com/replymock/replymock/mock/internal/wire"
)

// staleReadKind plays a read served by a replica or cache behind a write:
// a read it hits answers the settings as they were before the session's
// last write, while that write is younger than For or for its first
// Reads reads.
var staleReadKind = Kind{
	Name:  "stale_read",
	in:    func(f *Fault) bool { return f.StaleRead != nil },
	check: func(f *Fault, p *problems) { f.StaleRead.check(p) },
	label: func(*Fault) string { return "stale_read" },
	live: func(f *Fault, _ int, now bool, l Live) string {
		if now && l.Stale(f.StaleRead.For.D(), f.StaleRead.Reads) {
			return "stale_read: answered the settings before the last write"
		}
		return ""
	},
}

// StaleRead is how long reads lag a write: a time, a number of reads, or
// both (whichever lasts longer).
type StaleRead struct {
	For   wire.Duration `json:"for,omitempty" yaml:"for"`
	Reads int           `json:"reads,omitempty" yaml:"reads"`
}

// Bounds of a stale read's lag.
const (
	MaxStaleFor   = 10 * time.Minute
	MaxStaleReads = 1000
)

func (s *StaleRead) check(p *problems) {
	if s.For < 0 || s.For.D() > MaxStaleFor {
		p.add("stale_read.for", "must be from 0 to %s, got %s", wire.Duration(MaxStaleFor), s.For)
	}
	if s.Reads < 0 || s.Reads > MaxStaleReads {
		p.add("stale_read.reads", "must be from 0 to %d, got %d", MaxStaleReads, s.Reads)
	}
	if s.For == 0 && s.Reads == 0 {
		p.add("stale_read", "does nothing: give for (a duration such as 2s), reads (a number) or both")
	}
}
