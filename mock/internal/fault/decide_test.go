package fault

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/replymock/replymock/mock/internal/wire"
)

// after, times and probability decide which matching requests a fault hits.
func TestFaultDecide(t *testing.T) {
	p := 0.5
	tests := []struct {
		name string
		f    Fault
		want string // one letter per request: x hit, . not
	}{
		{"always", Fault{}, "xxxxxx"},
		{"after 2", Fault{After: 2}, "..xxxx"},
		{"times 2", Fault{Times: 2}, "xx...."},
		{"after 1 times 2", Fault{After: 1, Times: 2}, ".xx..."},
		{"probability 0", Fault{Probability: new(float64)}, "......"},
	}
	for _, tc := range tests {
		var c Counter
		got := ""
		for range 6 {
			if hit, _ := tc.f.Decide(&c, 1); hit {
				got += "x"
			} else {
				got += "."
			}
		}
		if got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	// With a probability, the same seed gives the same sequence.
	seq := func() string {
		f := Fault{Probability: &p}
		f.Prepare()
		var c Counter
		s := ""
		for range 40 {
			if hit, _ := f.Decide(&c, 42); hit {
				s += "x"
			} else {
				s += "."
			}
		}
		return s
	}
	a, b := seq(), seq()
	if a != b {
		t.Errorf("same seed, different sequences:\n%s\n%s", a, b)
	}
	if n := strings.Count(a, "x"); n < 10 || n > 30 {
		t.Errorf("probability 0.5 hit %d of 40", n)
	}
}

// hits is the fault's decisions on n matching requests in a fresh
// session, one letter each: x hit, . not.
func hits(f Fault, seed int64, n int) string {
	f.Prepare()
	var c Counter
	b := make([]byte, n)
	for i := range b {
		b[i] = '.'
		if hit, _ := f.Decide(&c, seed); hit {
			b[i] = 'x'
		}
	}
	return string(b)
}

// A probability holds over many decisions, for any seed and stream; the
// draws are fixed by the seeds, so the test cannot flake. Bounds are 4.5
// standard deviations of a binomial: a broken hash lands far outside.
func TestFaultProbabilityHolds(t *testing.T) {
	const n = 10000
	for _, p := range []float64{0.01, 0.2, 0.5, 0.9} {
		for _, tc := range []struct {
			seed int64
			f    Fault
		}{
			{20261115, Fault{Method: "GET", Path: "/feedbacks", Error: &ErrorAnswer{Status: 503}}},
			{1, Fault{Drop: true}},
			{math.MaxInt64, Fault{Truncate: true, Seed: 7}},
			{12345, Fault{Latency: &Latency{Fixed: wire.Duration(time.Millisecond)}, Seed: math.MaxInt64}},
		} {
			tc.f.Probability = &p
			seq := hits(tc.f, tc.seed, n)
			got := strings.Count(seq, "x")
			sd := math.Sqrt(n * p * (1 - p))
			if math.Abs(float64(got)-n*p) > 4.5*sd {
				t.Errorf("p=%v seed %d fault %s: %d hits of %d, want %v ± %.0f", p, tc.seed, tc.f.Label(), got, n, n*p, 4.5*sd)
			}
			// A hit is as likely after a hit as after a miss: draws of
			// neighbouring requests do not hang together.
			after := 0
			for i := 1; i < n; i++ {
				if seq[i-1] == 'x' && seq[i] == 'x' {
					after++
				}
			}
			if hitsBefore := strings.Count(seq[:n-1], "x"); hitsBefore > 50 {
				if r := float64(after) / float64(hitsBefore); math.Abs(r-p) > 4.5*math.Sqrt(p*(1-p)/float64(hitsBefore))+0.01 {
					t.Errorf("p=%v seed %d: a hit follows a hit %.3f of the time, want about %v", p, tc.seed, r, p)
				}
			}
		}
	}
}

// Each fault has a stream of its own: its n-th matching request gets the
// same draw whatever the fault's id, its place among faults or its
// probability; a different seed, or fault seed, gives another stream.
func TestFaultStreams(t *testing.T) {
	half, most := 0.5, 0.9
	base := Fault{Path: "/feedbacks", Probability: &half, Error: &ErrorAnswer{Status: 503}}
	const n = 200
	want := hits(base, 7, n)
	same := base
	same.ID, same.seq, same.Name = "f99", 99, ""
	if got := hits(same, 7, n); got != want {
		t.Errorf("the id and the order changed the stream:\n%s\n%s", got, want)
	}
	raised := base
	raised.Probability = &most
	up := hits(raised, 7, n)
	for i := range n {
		if want[i] == 'x' && up[i] != 'x' {
			t.Fatalf("raising the probability dropped request %d's hit:\n%s\n%s", i+1, want, up)
		}
	}
	differ := func(what, a, b string) {
		t.Helper()
		d := 0
		for i := range a {
			if a[i] != b[i] {
				d++
			}
		}
		// Independent streams at p = 0.5 differ on about half the requests.
		if d < n/4 {
			t.Errorf("%s: the sequences differ on %d of %d requests:\n%s\n%s", what, d, n, a, b)
		}
	}
	differ("another seed", want, hits(base, 8, n))
	seeded := base
	seeded.Seed = 1
	differ("a fault seed", want, hits(seeded, 7, n))
	other := base
	other.Error = &ErrorAnswer{Status: 502}
	differ("another fault", want, hits(other, 7, n))
	named := base
	named.Name = "x"
	differ("another name", want, hits(named, 7, n))
}
