package fault

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/replymock/replymock/mock/internal/wire"
)

// The log-normal latency has the median and p99 it was given.
func TestLatencyLogNormal(t *testing.T) {
	l := Latency{Median: wire.Duration(400 * time.Millisecond), P99: wire.Duration(2 * time.Second)}
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 20000
	ds := make([]time.Duration, n)
	for i := range ds {
		ds[i] = l.Sample(rng)
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
	fixed := Latency{Fixed: wire.Duration(250 * time.Millisecond)}
	uniform := Latency{Min: wire.Duration(100 * time.Millisecond), Max: wire.Duration(300 * time.Millisecond)}
	lo, hi := time.Hour, time.Duration(0)
	for range 5000 {
		if d := fixed.Sample(rng); d != 250*time.Millisecond {
			t.Fatalf("fixed latency gave %v", d)
		}
		d := uniform.Sample(rng)
		lo, hi = min(lo, d), max(hi, d)
	}
	if lo < 100*time.Millisecond || hi > 300*time.Millisecond || lo > 110*time.Millisecond || hi < 290*time.Millisecond {
		t.Errorf("uniform 100ms..300ms gave %v..%v", lo, hi)
	}
	huge := Latency{Median: wire.Duration(time.Minute), P99: wire.Duration(time.Minute)}
	if d := huge.Sample(rng); d > MaxLatency {
		t.Errorf("latency %v above MaxLatency", d)
	}
}
