package mock

import (
	"fmt"
	"math"
	"math/rand/v2"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/replymock/replymock/mock/internal/wire"
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
		got := ""
		for range 6 {
			if hit, _ := tc.f.decide(&c, 1); hit {
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
		f.prepare()
		var c faultCounter
		s := ""
		for range 40 {
			if hit, _ := f.decide(&c, 42); hit {
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
	f.prepare()
	var c faultCounter
	b := make([]byte, n)
	for i := range b {
		b[i] = '.'
		if hit, _ := f.decide(&c, seed); hit {
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
			{20261115, Fault{Method: "GET", Path: "/feedbacks", Error: &FaultError{Status: 503}}},
			{1, Fault{Drop: true}},
			{math.MaxInt64, Fault{Truncate: true, Seed: 7}},
			{12345, Fault{Latency: &Latency{Fixed: Duration(time.Millisecond)}, Seed: math.MaxInt64}},
		} {
			tc.f.Probability = &p
			seq := hits(tc.f, tc.seed, n)
			got := strings.Count(seq, "x")
			sd := math.Sqrt(n * p * (1 - p))
			if math.Abs(float64(got)-n*p) > 4.5*sd {
				t.Errorf("p=%v seed %d fault %s: %d hits of %d, want %v ± %.0f", p, tc.seed, tc.f.label(), got, n, n*p, 4.5*sd)
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
	base := Fault{Path: "/feedbacks", Probability: &half, Error: &FaultError{Status: 503}}
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
	other.Error = &FaultError{Status: 502}
	differ("another fault", want, hits(other, 7, n))
	named := base
	named.Name = "x"
	differ("another name", want, hits(named, 7, n))
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

// GET /__mock/faults is written fault by fault, in the bytes wire.WriteJSON
// would have written for the whole answer.
func TestFaultsListStreamed(t *testing.T) {
	s, err := New(Options{Scenario: "first-calls-fail"})
	if err != nil {
		t.Fatal(err)
	}
	body := `<html>"é"</html>`
	for i := range 5 {
		sid := AllSessions
		if i%2 == 1 {
			sid = "s1"
		}
		if _, err := s.AddFault(sid, Fault{Name: fmt.Sprintf("f<%d>", i), Path: "/feedbacks", Error: &FaultError{Status: 502, Body: &body}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ target, sid string }{{"/__mock/faults", AllSessions}, {"/__mock/faults?session=s1", "s1"}, {"/__mock/faults?session=none", "none"}} {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest("GET", tc.target, nil))
		faults := s.Faults(tc.sid)
		if faults == nil {
			faults = []Fault{}
		}
		sc := s.scenarios["first-calls-fail"]
		want, err := wire.MarshalJSON(wire.Envelope{Success: true, Data: struct {
			Faults         []Fault    `json:"faults"`
			Scenario       string     `json:"scenario"`
			ScenarioFaults []Fault    `json:"scenario_faults"`
			ScenarioAuth   string     `json:"scenario_auth"`
			ScenarioRate   *RateLimit `json:"scenario_rate_limit"`
		}{faults, sc.Name, sc.faults, "none", nil}})
		if err != nil {
			t.Fatal(err)
		}
		if rec.Code != 200 || rec.Body.String() != string(want) {
			t.Errorf("GET %s: %d\n%s\nwant\n%s", tc.target, rec.Code, rec.Body, want)
		}
	}
	empty, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	empty.ServeHTTP(rec, httptest.NewRequest("GET", "/__mock/faults", nil))
	if want := `{"success":true,"data":{"faults":[],"scenario":"default","scenario_faults":[],"scenario_auth":"none","scenario_rate_limit":null}}`; rec.Body.String() != want {
		t.Errorf("no faults: %s, want %s", rec.Body, want)
	}
}
