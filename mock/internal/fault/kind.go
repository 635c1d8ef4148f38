package fault

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/replymock/replymock/mock/internal/wire"
)

// Kind is one thing a fault can do to a request, asked for by a field of
// Fault of the same name. A kind either waits before the answer (latency,
// with at most one other) or acts on the answer (error, drop, truncate:
// at most one of them per fault). Each is one self-contained piece, in a
// file of its own (kind_NAME.go): its field's checks, its journal label,
// its metric label value and how it serves.
//
// To add a kind: a field in Fault, its kind_NAME.go, a line in kinds,
// its word "kind-NAME" in each language of mock/ui/i18n.js, the field in
// the Fault schema of mock/admin-openapi.yaml (whose description says
// what a fault needs, as Needs does), a row of scenarios/README.md's
// Faults table and that sentence, the metric's values in
// mock/cli/README.md; then the golden
// problems that name the kinds (-update). TestKindsAreListedAlike fails
// until the table and those places agree (mock/README.md has the list).
type Kind struct {
	// Name is the Fault field that asks for the kind, in YAML and JSON.
	Name string
	// Metric is the kind's value of the kind label of
	// replymock_injected_faults_total.
	Metric string

	in    func(f *Fault) bool         // reports whether f asks for the kind
	check func(f *Fault, p *problems) // adds the problems of f's field (f asks for the kind)
	label func(f *Fault) string       // the journal's word for what the kind did
	size  func(f *Fault) int64        // what the kind's field keeps, beyond Fault's own; nil for nothing
	// A kind does one of three things: it waits (delay), answers in place
	// of the API (answer: auth and the rate limit are not checked, and no
	// handler reads the body), or changes the API's answer (wrap: it
	// returns the writer the API's answer goes to, and what then sends it
	// on to w as the kind changes it).
	delay  func(f *Fault, rng *rand.Rand) time.Duration
	answer func(w http.ResponseWriter, f *Fault)
	wrap   func(w http.ResponseWriter, f *Fault) (http.ResponseWriter, func())
}

// kinds is the kind table, in the order a fault's label names them.
var kinds = []*Kind{&latencyKind, &errorKind, &dropKind, &truncateKind}

// Kinds returns the kind table, in its order.
func Kinds() []*Kind { return append([]*Kind(nil), kinds...) }

// Acts reports whether the kind acts on the answer; else it waits.
func (k *Kind) Acts() bool { return k.answer != nil || k.wrap != nil }

// Replaces reports whether the kind answers in place of the API.
func (k *Kind) Replaces() bool { return k.answer != nil }

// Action is the kind that acts on the answer among those f asks for;
// nil for a fault that only waits.
func (f *Fault) Action() *Kind {
	for _, k := range kinds {
		if k.Acts() && k.in(f) {
			return k
		}
	}
	return nil
}

// Needs says in words what a fault must ask for, from the kind table:
// "latency, or one of error, drop and truncate (latency may come with
// one of them)", as the Fault schema of the admin OpenAPI document says.
func Needs() string {
	waits, acts := kindNames()
	return fmt.Sprintf("%s, or one of %s (%s may come with one of them)", joinWords(waits, "or"), joinWords(acts, "and"), joinWords(waits, "or"))
}

// kindNames lists the kinds that wait and those that act, by name.
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

// joinWords writes words as a list ending with conj: "a, b and c".
func joinWords(words []string, conj string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + conj + " " + words[len(words)-1]
}

// problems gathers a fault's problems as (field path relative to the
// fault, message) pairs.
type problems []wire.FieldProblem

func (p *problems) add(field, format string, args ...any) {
	*p = append(*p, wire.FieldProblem{Field: field, Msg: fmt.Sprintf(format, args...)})
}
