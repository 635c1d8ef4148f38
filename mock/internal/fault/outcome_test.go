package fault

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/replymock/replymock/mock/internal/wire"
)

// meet runs a request through faults with fresh counters, and returns the
// outcome and the counters.
func meet(req Request, faults ...*Fault) (Outcome, map[*Fault]*Counter) {
	counters := map[*Fault]*Counter{}
	counter := func(f *Fault) *Counter {
		if counters[f] == nil {
			counters[f] = &Counter{}
		}
		return counters[f]
	}
	var o Outcome
	for _, f := range faults {
		f.Prepare()
		o.Meet(f, req, counter)
	}
	return o, counters
}

// Latencies add up to MaxLatency; the first fault that acts decides the
// answer, and the later ones that would act are not reached, nor
// counted; a fault that does not match is not counted either.
func TestOutcomeMeet(t *testing.T) {
	ms := func(n int) *Latency { return &Latency{Fixed: wire.Duration(time.Duration(n) * time.Millisecond)} }
	slow := &Fault{Name: "slow", Latency: ms(250)}
	other := &Fault{Method: "POST", Error: &ErrorAnswer{Status: 500}}
	cut := &Fault{Latency: ms(50), Truncate: true}
	shadowed := &Fault{Error: &ErrorAnswer{Status: 503}}
	wait := &Fault{Latency: ms(100)}
	o, counters := meet(Request{Method: "GET", Path: "/feedbacks", Seed: 1}, slow, other, cut, shadowed, wait)
	if o.Delay() != 400*time.Millisecond || o.Acting != cut || o.Replaces() {
		t.Errorf("delay %v, acting %v (replaces %v): want 400ms, the truncate fault, not replacing", o.Delay(), o.Acting, o.Replaces())
	}
	if got := strings.Join(o.Labels, ", "); got != "slow: latency, latency truncate, latency" {
		t.Errorf("labels %q", got)
	}
	if counters[other] != nil || counters[shadowed] != nil || *counters[wait] != (Counter{1, 1}) {
		t.Errorf("counters: other %v, shadowed %v, wait %v: want none, none, 1 of 1", counters[other], counters[shadowed], counters[wait])
	}
	var metrics []string
	for m := range o.Metrics() {
		metrics = append(metrics, m)
	}
	if strings.Join(metrics, " ") != "latency truncate" {
		t.Errorf("metrics %v", metrics)
	}

	var faults []*Fault
	for range 3 {
		faults = append(faults, &Fault{Latency: ms(30_000)})
	}
	if o, _ := meet(Request{}, faults...); o.Delay() != MaxLatency || o.Acting != nil {
		t.Errorf("three 30s latencies: %v, acting %v; want MaxLatency, none", o.Delay(), o.Acting)
	}
	if o, _ := meet(Request{}, &Fault{Drop: true}); !o.Replaces() || o.Delay() != 0 {
		t.Errorf("drop: replaces %v, delay %v", o.Replaces(), o.Delay())
	} else {
		for m := range o.Metrics() {
			if m != "drop" {
				t.Errorf("drop's metrics: %q", m)
			}
		}
	}
}

// serve answers as the pipeline does, the API writing a 200 JSON body,
// and returns what the client got, whether the handler aborted and
// whether the API's answer was written.
func serve(o Outcome) (rec *httptest.ResponseRecorder, aborted, apiRan bool) {
	rec = httptest.NewRecorder()
	defer func() {
		if v := recover(); v != nil {
			if v != http.ErrAbortHandler {
				panic(v)
			}
			aborted = true
		}
	}()
	if o.Answer(rec) {
		return rec, false, false
	}
	w, end := o.Through(rec)
	apiRan = true
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, `{"success":true}`)
	if end != nil {
		end()
	}
	return rec, false, apiRan
}

// Each kind that acts serves as it says: an error in place of the
// API's answer, no answer, half the API's answer; with none, the API's.
func TestOutcomeServe(t *testing.T) {
	body := "nope"
	tests := []struct {
		name    string
		f       *Fault
		status  int
		body    string
		header  string // name=value of a header the answer must have
		aborted bool
		apiRuns bool
	}{
		{"none", nil, 200, `{"success":true}`, "Content-Type=application/json", false, true},
		{"error", &Fault{Error: &ErrorAnswer{Status: 503}}, 503,
			`{"success":false,"data":null,"error":{"code":"service_unavailable","message":"` + wire.StatusMessage(503) + `"}}`, "", false, false},
		{"error 429", &Fault{Error: &ErrorAnswer{Status: 429, Body: &body, Headers: map[string]string{"X-A": "b"}}}, 429, "nope", "Retry-After=1", false, false},
		{"error 401", &Fault{Error: &ErrorAnswer{Status: 401}}, 401, "", `WWW-Authenticate=Bearer realm="replymock"`, false, false},
		{"drop", &Fault{Drop: true}, 200, "", "", true, false},
		{"truncate", &Fault{Truncate: true}, 200, `{"succes`, "Content-Length=16", true, true},
	}
	for _, tc := range tests {
		o := Outcome{Acting: tc.f}
		rec, aborted, apiRan := serve(o)
		if aborted != tc.aborted || apiRan != tc.apiRuns || o.Replaces() == tc.apiRuns {
			t.Errorf("%s: aborted %v, the API answered %v (replaces %v); want %v, %v", tc.name, aborted, apiRan, o.Replaces(), tc.aborted, tc.apiRuns)
		}
		if tc.aborted && tc.f.Drop {
			if rec.Body.Len() != 0 || len(rec.Header()) != 0 {
				t.Errorf("%s: wrote %d %q", tc.name, rec.Code, rec.Body)
			}
			continue
		}
		if rec.Code != tc.status || tc.body != "" && rec.Body.String() != tc.body {
			t.Errorf("%s: %d %s, want %d %s", tc.name, rec.Code, rec.Body, tc.status, tc.body)
		}
		if name, value, ok := strings.Cut(tc.header, "="); ok && rec.Header().Get(name) != value {
			t.Errorf("%s: %s = %q, want %q", tc.name, name, rec.Header().Get(name), value)
		}
	}
}
