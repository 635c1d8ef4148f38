package fault

import (
	"math/rand/v2"
	"time"
)

// Counter is what Decide knows of one session's requests before.
type Counter struct {
	Matched int
	Hit     int
}

// Decide advances the counter for a matching request and reports whether
// the fault applies to it, with the random source of its latency. The
// draws of the fault's n-th matching request in a session come from
// seed, the fault's stream (see Prepare) and n alone: not from the
// session's id, nor from other faults, so every session of a scenario
// sees the same sequence for the same requests.
func (f *Fault) Decide(c *Counter, seed int64) (bool, *rand.Rand) {
	c.Matched++
	if f.Times > 0 && c.Hit >= f.Times || !f.draws(seed, c.Matched) {
		return false, nil
	}
	c.Hit++
	return true, f.latencyRand(seed, c.Matched)
}

// draws reports whether the fault's n-th matching request is past After
// and wins the probability draw.
func (f *Fault) draws(seed int64, n int) bool {
	p := f.Probability
	return n > f.After && (p == nil || *p >= 1 || f.uniform(seed, n) < *p)
}

// hitsUpTo is how many of the fault's first n matching requests in a
// session it hit, at most MaxDrift: the draws of each are the same in
// every process, so the answer is too.
func (f *Fault) hitsUpTo(seed int64, n int) int {
	limit := MaxDrift
	if f.Times > 0 {
		limit = min(limit, f.Times)
	}
	if p := f.Probability; p == nil || *p >= 1 {
		return min(max(n-f.After, 0), limit)
	}
	hits := 0
	for k := f.After + 1; k <= n && hits < limit; k++ {
		if f.draws(seed, k) {
			hits++
		}
	}
	return hits
}

// latencyRand is the random source of the latency of the fault's n-th
// matching request; nil for a fixed one.
func (f *Fault) latencyRand(seed int64, n int) *rand.Rand {
	if f.Latency == nil || f.Latency.Fixed != 0 {
		return nil
	}
	d := f.draw(seed, n, laneLatency)
	return rand.New(rand.NewPCG(d, mix64(d^laneLatency)))
}

// SharedCounter counts, for one session, a limited fault's matching
// requests and hits across the processes that share the session (a
// fleet's Redis), each count one atomic step, so that a fault limited to
// N answers fails exactly N requests whichever process serves them.
type SharedCounter interface {
	// Count adds one to what ("matched" or "hit") of f and returns the
	// new count, never below base+1 (the session's own count, restored
	// from a snapshot say).
	Count(f *Fault, what string, base int) (int, error)
	// ReadSince counts one more read of the session's settings since its
	// write number n, at writeAt, and returns how many there were
	// (stale_read).
	ReadSince(writeAt time.Time, n int64) (int, error)
}

// Stream names the fault's random stream (Prepare): the same for the
// same fault in every process.
func (f *Fault) Stream() uint64 { return f.key }

// decideShared is Decide with the counts of req.Shared: the n-th
// matching request across the processes draws as the n-th would in
// one, and a hit past Times is refused by the shared count of hits. A
// counter out of reach leaves the decision to the session's Counter.
func (f *Fault) decideShared(c *Counter, req Request) (bool, *rand.Rand) {
	n, err := req.Shared.Count(f, "matched", c.Matched)
	if err != nil {
		return f.Decide(c, req.Seed)
	}
	c.Matched = n
	if !f.draws(req.Seed, n) {
		return false, nil
	}
	if f.Times > 0 {
		h, err := req.Shared.Count(f, "hit", c.Hit)
		if err != nil {
			h = c.Hit + 1
		}
		c.Hit = min(h, f.Times)
		if h > f.Times {
			return false, nil
		}
	} else {
		c.Hit++
	}
	return true, f.latencyRand(req.Seed, n)
}

// The draws of one request, each from a lane of its own.
const (
	laneProbability = 1
	laneLatency     = 2
)

// uniform is the probability draw of the fault's n-th matching request,
// in [0, 1).
func (f *Fault) uniform(seed int64, n int) float64 {
	return float64(f.draw(seed, n, laneProbability)>>11) / (1 << 53)
}

// draw hashes seed, the fault's stream, n and a lane into 64 random bits.
func (f *Fault) draw(seed int64, n int, lane uint64) uint64 {
	h := mix64(uint64(seed) ^ 0x6a09e667f3bcc908)
	h = mix64(h ^ f.key)
	h = mix64(h ^ uint64(n))
	return mix64(h ^ lane)
}

// mix64 is splitmix64's finalizer: a bijection on 64 bits whose every
// output bit depends on every input bit.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
