package wire

import (
	"strings"
	"unicode/utf8"
)

// MaxQuoted is how much of a value a problem quotes, in characters:
// enough to recognise it. Problems go to logs and terminals, where a
// file linked in by mistake (one holding secrets) must not end up.
const MaxQuoted = 120

// Clip shortens a value to quote: its first line, at most MaxQuoted
// characters; a cut is marked with "…".
func Clip(s string) string { return Clipped(s, false) }

// Clipped is Clip of s, marked as cut also when cut is true (s is
// already part of a longer value).
func Clipped(s string, cut bool) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s, cut = s[:i], true
	}
	if utf8.RuneCountInString(s) > MaxQuoted {
		s, cut = string([]rune(s)[:MaxQuoted]), true
	}
	if cut {
		s += "…"
	}
	return s
}
