package mock

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// The log-normal latency has the median and p99 it was given.
func TestLatencyLogNormal(t *testing.T) {
	l := Latency{Median: Duration(400 * time.Millisecond), P99: Duration(2 * time.Second)}
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 20000
	ds := make([]time.Duration, n)
	for i := range ds {
		ds[i] = l.sample(rng)
	}
	slices.Sort(ds)
	median, p99 := ds[n/2], ds[n*99/100]
	if median < 360*time.Millisecond || median > 440*time.Millisecond {
		t.Errorf("median = %v, want about 400ms", median)
	}
	if p99 < 1700*time.Millisecond || p99 > 2300*time.Millisecond {
		t.Errorf("p99 = %v, want about 2s", p99)
	}
}

func TestLatencyFixedAndUniform(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	fixed := Latency{Fixed: Duration(250 * time.Millisecond)}
	uniform := Latency{Min: Duration(100 * time.Millisecond), Max: Duration(300 * time.Millisecond)}
	lo, hi := time.Hour, time.Duration(0)
	for range 5000 {
		if d := fixed.sample(rng); d != 250*time.Millisecond {
			t.Fatalf("fixed latency gave %v", d)
		}
		d := uniform.sample(rng)
		lo, hi = min(lo, d), max(hi, d)
	}
	if lo < 100*time.Millisecond || hi > 300*time.Millisecond || lo > 110*time.Millisecond || hi < 290*time.Millisecond {
		t.Errorf("uniform 100ms..300ms gave %v..%v", lo, hi)
	}
	huge := Latency{Median: Duration(time.Minute), P99: Duration(time.Minute)}
	if d := huge.sample(rng); d > MaxLatency {
		t.Errorf("latency %v above MaxLatency", d)
	}
}

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
		var c faultCounter
		rng := rand.New(rand.NewPCG(1, 1))
		got := ""
		for range 6 {
			if tc.f.decide(&c, rng) {
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
		var c faultCounter
		rng := (&Scenario{Seed: 42}).rng("session-a")
		s := ""
		for range 40 {
			if f.decide(&c, rng) {
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
	if n := len(a) - len(slices.DeleteFunc([]byte(a), func(c byte) bool { return c == 'x' })); n < 10 || n > 30 {
		t.Errorf("probability 0.5 hit %d of 40", n)
	}
}

func TestFaultMatches(t *testing.T) {
	tests := []struct {
		method, path string
		reqMethod    string
		reqPath      string
		want         bool
	}{
		{"", "", "GET", "/feedbacks", true},
		{"*", "*", "PATCH", "/settings/ai", true},
		{"GET", "/feedbacks", "GET", "/feedbacks", true},
		{"get", "/feedbacks", "GET", "/feedbacks", true},
		{"GET", "/feedbacks", "PATCH", "/feedbacks", false},
		{"", "/settings/*", "GET", "/settings/ai", true},
		{"", "/settings/*", "GET", "/feedbacks", false},
		{"", "/*", "GET", "/settings/ai", false},
		{"", "/**", "GET", "/settings/ai", true},
		{"", "/settings/**", "GET", "/settings/ai", true},
		{"", "/settings/**", "GET", "/settingsx", false},
		{"", "/feed*", "GET", "/feedbacks", true},
	}
	for _, tc := range tests {
		f := Fault{Method: tc.method, Path: tc.path}
		if got := f.matches(tc.reqMethod, tc.reqPath); got != tc.want {
			t.Errorf("fault %q %q on %s %s: %v, want %v", tc.method, tc.path, tc.reqMethod, tc.reqPath, got, tc.want)
		}
	}
}
