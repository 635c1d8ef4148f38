package budget

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// Reserve never lets concurrent reservations past the most together,
// and frees always fit.
func TestReserveHoldsUnderContention(t *testing.T) {
	b := New("x_bytes", "x", 1000)
	var wg sync.WaitGroup
	var mu sync.Mutex
	granted := 0
	for range 8 {
		wg.Go(func() {
			for range 100 {
				if b.Reserve(7) {
					mu.Lock()
					granted++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if granted != 1000/7 || b.Used() != int64(granted*7) {
		t.Errorf("granted %d reservations, %d bytes used: want %d, %d", granted, b.Used(), 1000/7, 1000/7*7)
	}
	if b.Reserve(7) || !b.Reserve(-7) || b.Used() != int64(granted*7-7) {
		t.Errorf("full: a reservation went through, or a free did not (used %d)", b.Used())
	}
}

func TestChargeAndOver(t *testing.T) {
	b := New("x_bytes", "x", 100)
	b.Charge(150)
	if b.Over() != 50 || b.Fits(1) {
		t.Errorf("charged 150 of 100: over %d, fits 1 more %v", b.Over(), b.Fits(1))
	}
	b.Release(60)
	if b.Over() != 0 || !b.Fits(10) || b.Fits(11) {
		t.Errorf("at 90 of 100: over %d, fits 10 %v, fits 11 %v", b.Over(), b.Fits(10), b.Fits(11))
	}
}

func TestSet(t *testing.T) {
	var s Set
	a, b, none := New("a_bytes", "what a keeps", 100), New("b_bytes", "what b keeps", 50), New("c_bytes", "keeps nothing", -1)
	s.Add(a, b, none)
	if s.Max() != 150 {
		t.Errorf("Max = %d, want 150 (a budget below 0 counts as none)", s.Max())
	}
	a.Charge(42)
	reg := prometheus.NewRegistry()
	s.Register(reg)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, mf := range mfs {
		got = append(got, fmt.Sprintf("%s %q %g", mf.GetName(), mf.GetHelp(), mf.GetMetric()[0].GetGauge().GetValue()))
	}
	if want := `a_bytes "what a keeps" 42|b_bytes "what b keeps" 0|c_bytes "keeps nothing" 0`; strings.Join(got, "|") != want {
		t.Errorf("gauges %q, want %q", strings.Join(got, "|"), want)
	}
}
