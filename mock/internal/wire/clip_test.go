package wire

import (
	"strings"
	"testing"
)

// A quoted value is its first line, at most MaxQuoted characters (not
// bytes), with a cut marked.
func TestClip(t *testing.T) {
	long := strings.Repeat("ж", MaxQuoted)
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"short", "short"},
		{long, long},
		{long + "x", long + "…"},
		{"one\ntwo", "one…"},
		{"one\r\ntwo", "one…"},
		{"\nsecret", "…"},
	} {
		if got := Clip(tc.in); got != tc.want {
			t.Errorf("Clip(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := Clipped("part", true); got != "part…" {
		t.Errorf("Clipped(part, true) = %q", got)
	}
}
