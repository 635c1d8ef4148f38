package fault

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/replymock/replymock/mock/internal/wire"
)

// Kind is one thing a fault can do to a request, asked for by the Fault
// field of the same name. A kind either waits before the answer or acts
// on it, and a fault acts in at most one way.
//
// TestKindsAreListedAlike lists the places a new kind must be named
// (the control panel, the OpenAPI document, the READMEs).
type Kind struct {
	// Name is the Fault field that asks for the kind, and the kind's
	// label in replymock_injected_faults_total.
	Name string

	in    func(f *Fault) bool
	check func(f *Fault, p *problems)
	label func(f *Fault) string // the journal's word for the kind
	size  func(f *Fault) int64  // nil for none
	// A kind sets one of these. delay waits before the answer. answer
	// writes an answer in place of the API's. wrap returns the writer
	// the API's answer goes to, and a func that sends it on, changed.
	// live changes what a read of the session shows, as a live service
	// would, given how often f hit the session so far and whether it hit
	// this request; it returns the journal's words for what it did.
	delay  func(f *Fault, rng *rand.Rand) time.Duration
	answer func(w http.ResponseWriter, f *Fault)
	wrap   func(w http.ResponseWriter, f *Fault) (http.ResponseWriter, func())
	live   func(f *Fault, hits int, now bool, l Live) string
}

// kinds is the kind table, in the order a fault's label names them.
var kinds = []*Kind{&latencyKind, &errorKind, &dropKind, &truncateKind, &pageDriftKind, &staleReadKind, &countsLagKind, &replyRejectedKind}

func Kinds() []*Kind { return append([]*Kind(nil), kinds...) }

// Acts reports whether the kind acts on the answer; else it waits.
func (k *Kind) Acts() bool { return k.answer != nil || k.wrap != nil }

func (k *Kind) Replaces() bool { return k.answer != nil }

// Action is the kind of f that acts on the answer; nil if f only waits.
func (f *Fault) Action() *Kind {
	for _, k := range kinds {
		if k.Acts() && k.in(f) {
			return k
		}
	}
	return nil
}

// Live is what the kinds that play a live, eventually consistent service
// change in a read. The API gives one to each request; its methods are
// the service's own doings, so each kind stays small.
type Live interface {
	// Arrive shows n new reviews of the scenario's kind on top of the
	// list this request reads, and the m newest unanswered answered. It
	// returns the new reviews' ids; none for a read of no list.
	Arrive(n, m int) []int64
	// Stale makes this read answer the session's settings before their
	// last write, if that write is younger than within or this is one
	// of the first reads after it; it reports whether it did.
	Stale(within time.Duration, reads int) bool
	// Lag makes this read, if it asks for counts only, count the list
	// without its n newest reviews and those written within within of
	// its newest; it reports whether it did.
	Lag(n int, within time.Duration) bool
	// Reject takes the answer away from the n newest answered reviews of
	// the list this request reads, as moderation would; it returns
	// their ids.
	Reject(n int) []int64
}

// liveKind is the kind of f that plays a live service; nil for none.
func (f *Fault) liveKind() *Kind {
	for _, k := range kinds {
		if k.live != nil && k.in(f) {
			return k
		}
	}
	return nil
}

func kindNames() (waits, acts []string) {
	for _, k := range kinds {
		if k.Acts() {
			acts = append(acts, k.Name)
		} else {
			waits = append(waits, k.Name)
		}
	}
	return waits, acts
}

// problems gathers a fault's problems, with fields relative to it.
type problems []wire.FieldProblem

func (p *problems) add(field, format string, args ...any) {
	*p = append(*p, wire.FieldProblem{Field: field, Msg: fmt.Sprintf(format, args...)})
}
