package fault

import "math/rand/v2"

// Counter is the state of one fault within one session: what Decide
// needs to know of the requests before.
type Counter struct {
	Matched int // matching requests seen
	Hit     int // requests the fault applied to
}

// Decide advances the counter for a matching request and reports whether
// the fault applies to it, with the random source of its latency. The
// draws of the fault's n-th matching request in a session come from
// seed, the fault's stream (see Prepare) and n alone: not from the
// session's id, nor from other faults, so every session of a scenario
// sees the same sequence for the same requests.
func (f *Fault) Decide(c *Counter, seed int64) (bool, *rand.Rand) {
	c.Matched++
	if c.Matched <= f.After || f.Times > 0 && c.Hit >= f.Times {
		return false, nil
	}
	if p := f.Probability; p != nil && *p < 1 && f.uniform(seed, c.Matched) >= *p {
		return false, nil
	}
	c.Hit++
	var rng *rand.Rand
	if f.Latency != nil && f.Latency.Fixed == 0 {
		d := f.draw(seed, c.Matched, laneLatency)
		rng = rand.New(rand.NewPCG(d, mix64(d^laneLatency)))
	}
	return true, rng
}

// The draws of one request, each from a lane of its own.
const (
	laneProbability = 1
	laneLatency     = 2
)

// uniform is the probability draw of the fault's n-th matching request:
// a number in [0, 1).
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
