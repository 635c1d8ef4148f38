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
		{Fault{Method: "G T", Path: "/api/v1/x", Latency: &Latency{Fixed: ms, Min: ms, Max: ms}},
			`method: must be an HTTP method such as GET, or * for any; got "G T"; path: is relative to /api/v1: did you mean "/x"? got "/api/v1/x"; latency: give only one of fixed, min/max, median/p99`},
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
