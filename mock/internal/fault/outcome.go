package fault

import (
	"iter"
	"net/http"
	"time"
)

// Request is what of an API request the faults it meets look at.
type Request struct {
	Method string
	Path   string // after /api/v1
	Seed   int64  // of the draws: the request's X-Mock-Seed, else the scenario's
	// Tally, when set, counts the faults limited to some answers (after,
	// times) for the session across the processes that share it (a
	// fleet on Redis); nil counts in the session's Counter alone.
	Tally Tally
}

// Outcome is what the faults an API request meets do to it: the delays
// of those that wait, and the first that acts on the answer.
type Outcome struct {
	// Acting is the fault met that acts on the answer (its Action);
	// nil for none.
	Acting *Fault
	// Labels say in the journal what each fault met did, in order.
	Labels []string
	// Limited is set when the request moved the count of a fault that
	// fires a number of times (After, Times): a state kept outside the
	// process must keep that count before the answer, or the fault
	// fires again after a restart.
	Limited bool

	delay time.Duration // added up, before MaxLatency bounds it
}

// Meet decides whether f hits the request, with the session's counter of
// f that counter gives, and adds what it does. Faults are met in order:
// once one acts on the answer, later ones that would act are not
// reached, nor counted.
func (o *Outcome) Meet(f *Fault, req Request, counter func(*Fault) *Counter) {
	act := f.Action()
	if act != nil && o.Acting != nil {
		return
	}
	if !f.Matches(req.Method, req.Path) {
		return
	}
	var tally Tally
	if f.After > 0 || f.Times > 0 {
		o.Limited = true
		tally = req.Tally
	}
	hit, rng := f.Decide(counter(f), req.Seed, tally)
	if !hit {
		return
	}
	for _, k := range kinds {
		if k.delay != nil && k.in(f) {
			o.delay += k.delay(f, rng)
		}
	}
	if act != nil {
		o.Acting = f
	}
	o.Labels = append(o.Labels, f.Label())
}

// Delay is how long the request waits before its answer: the delays met,
// added up, at most MaxLatency.
func (o *Outcome) Delay() time.Duration { return min(o.delay, MaxLatency) }

// Replaces reports whether a fault answers in place of the API.
func (o *Outcome) Replaces() bool { return o.Acting != nil && o.Acting.Action().Replaces() }

// Answer writes the acting fault's answer when it answers in place of
// the API, and reports whether it did (a drop does not return).
func (o *Outcome) Answer(w http.ResponseWriter) bool {
	if !o.Replaces() {
		return false
	}
	o.Acting.Action().answer(w, o.Acting)
	return true
}

// Through returns the writer the API's answer goes to: w, or the acting
// fault's, which end then sends on to w as the fault changes it (a
// truncate does not return). end is nil for w itself.
func (o *Outcome) Through(w http.ResponseWriter) (_ http.ResponseWriter, end func()) {
	if o.Acting == nil {
		return w, nil
	}
	k := o.Acting.Action()
	if k.wrap == nil {
		return w, nil
	}
	return k.wrap(w, o.Acting)
}

// Metrics yields the metric label value of each kind the request met: a
// wait's (when the delay is above 0) and the acting fault's.
func (o *Outcome) Metrics() iter.Seq[string] {
	return func(yield func(string) bool) {
		if o.Delay() > 0 && !yield(latencyKind.Metric) {
			return
		}
		if o.Acting != nil {
			yield(o.Acting.Action().Metric)
		}
	}
}
