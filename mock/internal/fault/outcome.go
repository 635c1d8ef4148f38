package fault

import (
	"iter"
	"math/rand/v2"
	"net/http"
	"time"
)

// Request is what of an API request the faults it meets look at.
type Request struct {
	Method string
	Path   string        // after /api/v1
	Seed   int64         // the request's X-Mock-Seed, else the scenario's
	Shared SharedCounter // counts limited faults across a fleet; nil for none
}

// Outcome is what the faults an API request meets do to it.
type Outcome struct {
	Acting *Fault   // nil for none
	Labels []string // for the journal, in order
	// Limited is set when the request counted for a fault with After or
	// Times, or one that plays a live service. A saved state must keep
	// that count before the answer, or the fault fires again after a
	// restart.
	Limited bool

	delay  time.Duration
	lives  []liveHit
	played []string // the names of the live kinds that changed the answer
}

// liveHit is a fault playing a live service that the request matched:
// how often it hit the session so far, and whether it hit this request.
type liveHit struct {
	f    *Fault
	hits int
	now  bool
}

// Meet decides whether f hits the request and adds what it does; counter
// gives the session's Counter of f. Faults are met in order: once one
// acts on the answer, later ones that would act are not counted.
func (o *Outcome) Meet(f *Fault, req Request, counter func(*Fault) *Counter) {
	act := f.Action()
	if act != nil && o.Acting != nil {
		return
	}
	if !f.Matches(req.Method, req.Path) {
		return
	}
	live := f.liveKind()
	// A live kind's effect follows its count of hits, so it is counted
	// as a limited fault's is: kept, and across a fleet.
	limited := f.After > 0 || f.Times > 0 || live != nil
	o.Limited = o.Limited || limited
	var hit bool
	var rng *rand.Rand
	c := counter(f)
	if limited && req.Shared != nil {
		hit, rng = f.decideShared(c, req)
	} else {
		hit, rng = f.Decide(c, req.Seed)
	}
	if live != nil {
		o.lives = append(o.lives, liveHit{f, f.hitsUpTo(req.Seed, c.Matched), hit})
	}
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

func (o *Outcome) Delay() time.Duration { return min(o.delay, MaxLatency) }

func (o *Outcome) Replaces() bool { return o.Acting != nil && o.Acting.Action().Replaces() }

// Answer writes the acting fault's answer if it replaces the API's, and
// reports whether it did. A drop does not return.
func (o *Outcome) Answer(w http.ResponseWriter) bool {
	if !o.Replaces() {
		return false
	}
	o.Acting.Action().answer(w, o.Acting)
	return true
}

// Through returns the writer the API's answer goes to. When the acting
// fault changes the answer, end sends it on to w; otherwise end is nil.
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

// Plays says whether a fault the request met plays a live service, so
// a handler builds what Play needs only then.
func (o *Outcome) Plays() bool { return o != nil && len(o.lives) > 0 }

// Play lets the faults the request met that play a live service change
// what the read shows, through l, and returns the journal's words for
// what they did.
func (o *Outcome) Play(l Live) []string {
	var notes []string
	for _, h := range o.lives {
		k := h.f.liveKind()
		if note := k.live(h.f, h.hits, h.now, l); note != "" {
			notes = append(notes, note)
			o.played = append(o.played, k.Name)
		}
	}
	return notes
}

func (o *Outcome) Metrics() iter.Seq[string] {
	return func(yield func(string) bool) {
		if o.Delay() > 0 && !yield(latencyKind.Name) {
			return
		}
		for _, name := range o.played {
			if !yield(name) {
				return
			}
		}
		if o.Acting != nil {
			yield(o.Acting.Action().Name)
		}
	}
}
