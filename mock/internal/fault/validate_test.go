package fault

import (
	"strings"
	"testing"
	"time"

	"github.com/replymock/replymock/mock/internal/wire"
)

// Validate says what is wrong, each kind's problems in the table's
// order, and what a fault must ask for in the table's words.
func TestValidate(t *testing.T) {
	ms := wire.Duration(time.Millisecond)
	// The kinds in the table's order, as the messages name them (their
	// words today are in mock/testdata/invalid/faults-bad.err).
	var waits, acts []string
	for _, k := range Kinds() {
		if k.Acts() {
			acts = append(acts, k.Name)
		} else {
			waits = append(waits, k.Name)
		}
	}
	tests := []struct {
		f    Fault
		want string
	}{
		{Fault{}, `: does nothing: give ` + wire.JoinWords(append(waits, acts...), "or")},
		{Fault{Error: &ErrorAnswer{Status: 503}, Drop: true, Truncate: true}, `: give at most one of ` + wire.JoinWords(acts, "and")},
		{Fault{Latency: &Latency{}, Error: &ErrorAnswer{Status: 200}}, `latency: give fixed, min and max, or median and p99; error.status: must be an error status from 400 to 599, got 200`},
		{Fault{Method: "G T", Path: "x", Latency: &Latency{Fixed: ms, Min: ms, Max: ms}},
			`method: must be an HTTP method such as GET, or * for any; got "G T"; path: must start with /, got "x"; latency: give only one of fixed, min/max, median/p99`},
		{Fault{Latency: &Latency{Median: ms, P99: ms}, Drop: true}, ``},
	}
	for _, tc := range tests {
		var got []string
		for _, p := range tc.f.Validate() {
			got = append(got, p.Field+": "+p.Msg)
		}
		if strings.Join(got, "; ") != tc.want {
			t.Errorf("%s:\n%s\nwant\n%s", tc.f.Label(), strings.Join(got, "; "), tc.want)
		}
	}
}

// A fault that can match no operation of the API is refused, naming the
// nearest; a path with /api/v1 or without means the same.
func TestValidateAgainstOperations(t *testing.T) {
	defer SetOperations(operations)
	SetOperations([]Operation{
		{"/settings/ai", []string{"GET", "HEAD"}}, {"/settings/ai", []string{"PATCH"}}, {"/feedbacks", []string{"GET", "HEAD"}},
	})
	e := &ErrorAnswer{Status: 503}
	for _, tc := range []struct {
		method, path, want string
	}{
		{"", "", ""},
		{"GET", "/feedbacks", ""},
		{"get", "/api/v1/feedbacks", ""},
		{"PATCH", "/settings/*", ""},
		{"*", "/api/v1/**", ""},
		{"", "/api/v1", ""},
		{"GTE", "", `method: no operation takes GTE (they take GET, HEAD, PATCH): did you mean GET?`},
		{"", "/feedback", `path: matches no operation of the API (/feedbacks, /settings/ai): did you mean /feedbacks?; got "/feedback"`},
		{"", "/api/v1/feedback", `path: matches no operation of the API (/feedbacks, /settings/ai): did you mean /feedbacks?; got "/feedback"`},
		{"PATCH", "/feedbacks", `method: no operation of path /feedbacks takes PATCH (they take GET, HEAD)`},
		{"DELETE", "/settings/ai", `method: no operation of path /settings/ai takes DELETE (they take GET, HEAD, PATCH)`},
	} {
		f := Fault{Method: tc.method, Path: tc.path, Error: e}
		if got := problemText(f.CanFire()); got != tc.want {
			t.Errorf("%s %s: %q, want %q", tc.method, tc.path, got, tc.want)
		}
	}
	a, b := Fault{Path: "/feedbacks", Error: e}, Fault{Path: "/api/v1/feedbacks", Error: e}
	a.Prepare()
	b.Prepare()
	if a.Stream() != b.Stream() || b.Path != "/feedbacks" || !b.Matches("GET", "/feedbacks") {
		t.Errorf("/api/v1/feedbacks is not /feedbacks: %+v, %+v", a, b)
	}
}

// problemText joins problems as "field: message; ...".
func problemText(probs []wire.FieldProblem) string {
	var got []string
	for _, p := range probs {
		got = append(got, p.Field+": "+p.Msg)
	}
	return strings.Join(got, "; ")
}
