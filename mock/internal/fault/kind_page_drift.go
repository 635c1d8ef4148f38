package fault

import (
	"fmt"
	"strconv"
	"strings"
)

// pageDriftKind plays a list that moves while a client pages through it:
// at each hit, Arrive reviews arrive on top (and Answer get answered)
// before the request is served, and every later read of the list shows
// them, so an offset walk sees reviews twice or never.
var pageDriftKind = Kind{
	Name:  "page_drift",
	in:    func(f *Fault) bool { return f.PageDrift != nil },
	check: func(f *Fault, p *problems) { f.PageDrift.check(p) },
	label: func(f *Fault) string { return fmt.Sprintf("page_drift +%d", f.PageDrift.Arrive) },
	live: func(f *Fault, hits int, _ bool, l Live) string {
		d := f.PageDrift
		n, m := min(d.Arrive*hits, MaxDrift), min(d.Answer*hits, MaxDrift)
		if n+m == 0 {
			return ""
		}
		ids := l.Arrive(n, m)
		if len(ids) == 0 {
			return ""
		}
		return fmt.Sprintf("page_drift: %d arrived so far (ids %s), %d answered", len(ids), idWords(ids), m)
	},
}

// PageDrift is how much a list moves at each hit.
type PageDrift struct {
	Arrive int `json:"arrive,omitempty" yaml:"arrive"` // new reviews on top
	Answer int `json:"answer,omitempty" yaml:"answer"` // of the newest unanswered, answered
}

// idWords is ids as the journal's words for them: "3 7 12".
func idWords(ids []int64) string {
	words := make([]string, len(ids))
	for i, id := range ids {
		words[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(words, " ")
}

// MaxDrift bounds the reviews page_drift adds, and those it answers, in
// one session: past it the list stops moving.
const MaxDrift = 500

// maxDriftStep bounds each hit's arrivals and answers.
const maxDriftStep = 100

func (d *PageDrift) check(p *problems) {
	if d.Arrive < 0 || d.Arrive > maxDriftStep {
		p.add("page_drift.arrive", "must be from 0 to %d, got %d", maxDriftStep, d.Arrive)
	}
	if d.Answer < 0 || d.Answer > maxDriftStep {
		p.add("page_drift.answer", "must be from 0 to %d, got %d", maxDriftStep, d.Answer)
	}
	if d.Arrive == 0 && d.Answer == 0 {
		p.add("page_drift", "does nothing: give arrive, answer or both above 0")
	}
}
