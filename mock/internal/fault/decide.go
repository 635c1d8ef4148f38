package fault

import (
	"encoding/binary"
	"math/rand/v2"
)

// Counter is the state of one fault within one session: how many
// matching requests it has seen and how many it hit.
type Counter struct {
	Matched int // matching requests seen
	Hit     int // requests the fault applied to
}

// Tally counts a session's limited faults across the processes that share
// the session (a fleet on Redis). Each count is one atomic step, so a
// fault limited to N answers fails exactly N requests whichever process
// serves them.
type Tally interface {
	// Count adds one to what ("matched" or "hit") of f and returns the
	// new count, at least base+1 (the session's own count).
	Count(f *Fault, what string, base int) (int, error)
}

// Stream names the fault's random stream (see Prepare); it is the same
// for the same fault in every process.
func (f *Fault) Stream() uint64 { return f.key }

// Decide counts a matching request in c and reports whether the fault
// applies to it, with the random source of its latency. tally, when not
// nil, keeps the counts instead; while it is out of reach, c decides.
//
// The draws of the n-th matching request come from seed, the fault's
// stream and n alone, so every session of a scenario sees the same
// sequence for the same requests.
func (f *Fault) Decide(c *Counter, seed int64, tally Tally) (bool, *rand.Rand) {
	count := func(what string, base int) int {
		if tally != nil {
			n, err := tally.Count(f, what, base)
			if err == nil {
				return n
			}
			tally = nil
		}
		return base + 1
	}
	c.Matched = count("matched", c.Matched)
	if c.Matched <= f.After {
		return false, nil
	}
	// The probability draw comes first, whatever the probability, so that
	// raising it keeps the requests hit and the latencies drawn.
	rng := f.rand(seed, c.Matched)
	if p := f.Probability; p != nil && rng.Float64() >= *p {
		return false, nil
	}
	if f.Times > 0 {
		hit := count("hit", c.Hit)
		c.Hit = min(hit, f.Times)
		if hit > f.Times {
			return false, nil
		}
	} else {
		c.Hit++
	}
	return true, rng
}

// rand is the random source of the fault's n-th matching request.
func (f *Fault) rand(seed int64, n int) *rand.Rand {
	var key [32]byte
	binary.LittleEndian.PutUint64(key[0:], uint64(seed))
	binary.LittleEndian.PutUint64(key[8:], f.key)
	binary.LittleEndian.PutUint64(key[16:], uint64(n))
	return rand.New(rand.NewChaCha8(key))
}
