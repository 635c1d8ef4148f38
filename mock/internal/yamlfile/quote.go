package yamlfile

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/replymock/replymock/mock/internal/wire"
	"gopkg.in/yaml.v3"
)

// quotable is the part of scalar n's value a problem may quote: no more
// than the line it starts on holds, clipped. A scalar may go on over
// further lines (a file of KEY=secret lines pasted in), and those should
// not reach a message.
func (f *File) quotable(n *yaml.Node) string {
	v, line := n.Value, f.line(n.Line)
	if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		// The indicator (| or >) is on n's line; the text begins below.
		line = strings.TrimSpace(f.line(n.Line + 1))
	}
	if strings.Contains(line, v) {
		return wire.Clip(v) // all of it is on the line
	}
	// The value goes on below, or is written with escapes: quote as much
	// of its start as the line shows, from n's column on.
	rest := ""
	if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		rest = line
	} else if n.Column >= 1 && n.Column-1 <= utf8.RuneCountInString(line) {
		rest = string([]rune(line)[n.Column-1:])
		if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 && rest != "" {
			if closesOnLine(rest) {
				return wire.Clip(v) // escapes aside, the value is this line's
			}
			rest = rest[1:] // the opening quote
		}
	}
	k := 0
	for k < len(v) && k < len(rest) && v[k] == rest[k] {
		k++
	}
	for k < len(v) && k > 0 && !utf8.RuneStart(v[k]) {
		k-- // not half a character
	}
	return wire.Clipped(v[:k], true)
}

// closesOnLine reports whether the quoted scalar at the start of line
// ends on it.
func closesOnLine(line string) bool {
	q := line[0]
	for i := 1; i < len(line); i++ {
		switch {
		case q == '"' && line[i] == '\\':
			i++ // an escaped character
		case line[i] == q && q == '\'' && i+1 < len(line) && line[i+1] == '\'':
			i++ // '' is a quote inside single quotes
		case line[i] == q:
			return true
		}
	}
	return false
}

// requote replaces, in a message about scalar n, its value quoted whole
// with the part that may be quoted.
func (f *File) requote(msg string, n *yaml.Node) string {
	if n.Kind != yaml.ScalarNode || n.Value == "" {
		return msg
	}
	if q := f.quotable(n); q != n.Value {
		msg = strings.ReplaceAll(msg, strconv.Quote(n.Value), strconv.Quote(q))
	}
	return msg
}

// line is the text of line n (from 1) of the file; "" past the end.
func (f *File) line(n int) string {
	if f.lines == nil {
		f.lines = strings.Split(string(f.src), "\n")
	}
	n = max(n, 1)
	if n > len(f.lines) {
		return ""
	}
	return strings.TrimSuffix(f.lines[n-1], "\r")
}
