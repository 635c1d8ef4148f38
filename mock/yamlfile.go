package mock

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/replymock/replymock/mock/internal/wire"
	"gopkg.in/yaml.v3"
)

// Problem is one thing wrong in a scenario or fixture file, located as
// file:line:col and named by its field path ("data.generate.count").
type Problem struct {
	File    string
	Line    int
	Col     int
	Field   string
	Message string
}

func (p *Problem) Error() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", p.Line, p.Col)
	}
	b.WriteString(": ")
	if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	// One problem, one line: values quoted into messages may hold line breaks.
	b.WriteString(strings.ReplaceAll(p.Message, "\n", `\n`))
	return b.String()
}

// yamlFile is a YAML document kept with its node tree, so that problems
// found after decoding can still be placed at a line and column.
type yamlFile struct {
	name     string
	src      []byte     // the file's bytes, to quote no more of a value than its line
	root     *yaml.Node // the document's top value; nil for an empty file
	problems []error
	// broken is a file that is not YAML (or is empty): nothing further
	// can be checked in it.
	broken bool
	// undecoded are the fields that could not be decoded (an unknown key,
	// a value of the wrong type): their values were left out, so what
	// checks find about them, their parts or their parents is not
	// reported again.
	undecoded []string
	// keep, when set, says which fields' problems to report (see
	// problemf); the others are dropped.
	keep func(field string) bool
}

// checkable reports whether the decoded value may be checked further:
// the file is YAML, though some fields may not have decoded.
func (f *yamlFile) checkable() bool { return f.root != nil && !f.broken }

// related reports whether fields a and b are the same, or one holds the
// other ("faults[0]" holds "faults[0].latency.min").
func related(a, b string) bool {
	holds := func(outer, inner string) bool {
		rest, ok := strings.CutPrefix(inner, outer)
		return ok && (rest == "" || rest[0] == '.' || rest[0] == '[')
	}
	return a == b || a != "" && b != "" && (holds(a, b) || holds(b, a))
}

// hasProblem reports whether a problem of this file is about field, a
// part of it or a field holding it.
func (f *yamlFile) hasProblem(field string) bool {
	for _, e := range f.problems {
		if p, ok := e.(*Problem); ok && p.File == f.name && related(p.Field, field) {
			return true
		}
	}
	return false
}

// decodeYAML decodes data into v strictly: unknown keys, duplicate keys
// and values of the wrong type are problems, each placed in the file.
// The returned file collects further problems through problemf.
func decodeYAML(name string, data []byte, v any) *yamlFile {
	f := &yamlFile{name: name, src: data}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		f.addSyntax(err)
		return f
	}
	if len(doc.Content) == 0 {
		f.broken = true
		f.problems = append(f.problems, &Problem{File: name, Line: 1, Col: 1, Message: "file is empty"})
		return f
	}
	f.root = doc.Content[0]
	// KnownFields only works on the decoder, not on a yaml.Node.
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	err := dec.Decode(v)
	var te *yaml.TypeError
	switch {
	case errors.As(err, &te):
		for _, msg := range te.Errors {
			f.addTypeError(msg)
		}
	case err != nil:
		f.addSyntax(err)
	}
	return f
}

var (
	lineRE     = regexp.MustCompile(`(?s)^(?:yaml: )?line (\d+): (.*)$`)
	unknownRE  = regexp.MustCompile(`^field (.+) not found in type`)
	mismatchRE = regexp.MustCompile("(?s)^cannot unmarshal (!!\\w+)(?: `(.*)`)? into (.+)$")
	dupRE      = regexp.MustCompile(`^mapping key "(.*)" already defined at line (\d+)$`)
	// atRE is a custom unmarshaler's message that names its node exactly.
	atRE = regexp.MustCompile(`(?s)^line (\d+), column (\d+): (.*)$`)
)

func (f *yamlFile) addSyntax(err error) {
	f.broken = true
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := lineRE.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	if strings.HasPrefix(msg, "invalid map key:") {
		msg = "invalid map key: a list or mapping used as a key" // yaml.v3 prints the whole key
	}
	msg = clip(msg)
	col := 0
	if line > 0 {
		col = 1
	}
	f.problems = append(f.problems, &Problem{File: f.name, Line: line, Col: col, Message: "YAML syntax: " + msg})
}

// addTypeError places one of yaml.v3's decoding messages ("line 4: field
// x not found in type ...") at its node and rewrites it without Go types.
func (f *yamlFile) addTypeError(msg string) {
	if m := atRE.FindStringSubmatch(msg); m != nil {
		f.addAt(m)
		return
	}
	m := lineRE.FindStringSubmatch(msg)
	if m == nil {
		f.problems = append(f.problems, &Problem{File: f.name, Message: clip(msg)})
		return
	}
	line, _ := strconv.Atoi(m[1])
	text := m[2]
	p := &Problem{File: f.name, Line: line, Col: 1, Message: text}
	switch {
	case unknownRE.MatchString(text):
		key := unknownRE.FindStringSubmatch(text)[1]
		if n, path := f.find(func(n *yaml.Node, isKey bool) bool { return isKey && n.Line == line && n.Value == key }); n != nil {
			p.Col, p.Field = n.Column, path
		}
		p.Message = "unknown field"
	case dupRE.MatchString(text):
		key := dupRE.FindStringSubmatch(text)[1]
		if n, path := f.find(func(n *yaml.Node, isKey bool) bool { return isKey && n.Line == line && n.Value == key }); n != nil {
			p.Col, p.Field = n.Column, path
		}
		p.Message = "duplicate key (first at line " + dupRE.FindStringSubmatch(text)[2] + ")"
		f.broken = true // the mapping holding it was not decoded at all
	case mismatchRE.MatchString(text):
		sm := mismatchRE.FindStringSubmatch(text)
		tag, goType := sm[1], sm[3]
		if n, path := f.find(func(n *yaml.Node, isKey bool) bool { return !isKey && n.Line == line && n.ShortTag() == tag }); n != nil {
			p.Col, p.Field = n.Column, path
			if n.Kind == yaml.ScalarNode {
				p.Message = fmt.Sprintf("must be %s, got %q", describeGoType(goType), f.quotable(n))
				break
			}
		}
		p.Message = fmt.Sprintf("must be %s, got %s", describeGoType(goType), describeTag(tag))
	default:
		// A custom unmarshaler's message: place it at the line's value.
		if n, path := f.find(func(n *yaml.Node, isKey bool) bool { return !isKey && n.Line == line && n.Kind == yaml.ScalarNode }); n != nil {
			p.Col, p.Field = n.Column, path
			p.Message = f.requote(p.Message, n)
		} else {
			p.Message = clip(p.Message)
		}
	}
	if p.Field != "" {
		f.undecoded = append(f.undecoded, p.Field)
	} else {
		f.broken = true // a value gone astray somewhere unknown: further checks could only guess
	}
	f.problems = append(f.problems, p)
}

// addAt places a message "line L, column C: ..." at the key there, or
// else at the value there.
func (f *yamlFile) addAt(m []string) {
	line, _ := strconv.Atoi(m[1])
	col, _ := strconv.Atoi(m[2])
	p := &Problem{File: f.name, Line: line, Col: col, Message: clip(m[3])}
	for _, keys := range []bool{true, false} {
		if n, path := f.find(func(n *yaml.Node, isKey bool) bool { return isKey == keys && n.Line == line && n.Column == col }); n != nil {
			p.Field, p.Message = path, f.requote(m[3], n)
			break
		}
	}
	f.problems = append(f.problems, p)
}

func describeGoType(t string) string {
	switch {
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map[") || strings.Contains(t, "."):
		return "a mapping"
	case strings.HasPrefix(t, "int") || strings.HasPrefix(t, "uint"):
		return "an integer"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case t == "bool":
		return "true or false"
	case t == "string":
		return "a string"
	}
	return t
}

func describeTag(tag string) string {
	switch tag {
	case "!!seq":
		return "a list"
	case "!!map":
		return "a mapping"
	}
	return strings.TrimPrefix(tag, "!!")
}

// find walks the tree in document order and returns the first node for
// which match is true, with its field path.
func (f *yamlFile) find(match func(n *yaml.Node, isKey bool) bool) (*yaml.Node, string) {
	var walk func(n *yaml.Node, path string) (*yaml.Node, string)
	walk = func(n *yaml.Node, path string) (*yaml.Node, string) {
		if match(n, false) {
			return n, path
		}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				p := wire.JoinPath(path, clip(k.Value))
				if match(k, true) {
					return k, p
				}
				if found, fp := walk(v, p); found != nil {
					return found, fp
				}
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				if found, fp := walk(c, fmt.Sprintf("%s[%d]", path, i)); found != nil {
					return found, fp
				}
			}
		case yaml.AliasNode:
			// Aliases point back into the tree: follow none, or walks loop.
		}
		return nil, ""
	}
	if f.root == nil {
		return nil, ""
	}
	return walk(f.root, "")
}

// nodeAt returns the node at a field path, or the nearest ancestor that
// exists (a missing field is placed at the mapping that lacks it).
func (f *yamlFile) nodeAt(path string) *yaml.Node {
	n := f.root
	if n == nil {
		return nil
	}
	for _, seg := range splitPath(path) {
		next := (*yaml.Node)(nil)
		switch {
		case seg.index >= 0 && n.Kind == yaml.SequenceNode && seg.index < len(n.Content):
			next = n.Content[seg.index]
		case seg.index < 0 && n.Kind == yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == seg.key {
					next = n.Content[i+1]
					break
				}
			}
		}
		if next == nil {
			return n
		}
		n = next
	}
	return n
}

type pathSeg struct {
	key   string
	index int // -1 for a key
}

// splitPath splits "faults[0].latency.p99" into faults, [0], latency, p99.
func splitPath(path string) []pathSeg {
	var segs []pathSeg
	for _, part := range strings.Split(path, ".") {
		if part == "" {
			continue
		}
		key, rest, _ := strings.Cut(part, "[")
		if key != "" {
			segs = append(segs, pathSeg{key: key, index: -1})
		}
		for rest != "" {
			num, after, _ := strings.Cut(rest, "]")
			i, err := strconv.Atoi(num)
			if err != nil {
				break
			}
			segs = append(segs, pathSeg{index: i})
			rest = strings.TrimPrefix(after, "[")
		}
	}
	return segs
}

// has reports whether the document's top-level mapping has key.
func (f *yamlFile) has(key string) bool {
	if f.root == nil || f.root.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(f.root.Content); i += 2 {
		if f.root.Content[i].Value == key {
			return true
		}
	}
	return false
}

// problemf records a problem with the field at path, unless the field
// is related to one that did not decode (its value was left out: the
// problem would only repeat that one), or keep drops it.
func (f *yamlFile) problemf(path, format string, args ...any) {
	for _, u := range f.undecoded {
		if related(u, path) {
			return
		}
	}
	if f.keep != nil && !f.keep(path) {
		return
	}
	p := &Problem{File: f.name, Field: path, Message: fmt.Sprintf(format, args...)}
	if n := f.nodeAt(path); n != nil {
		p.Line, p.Col = n.Line, n.Column
		p.Message = f.requote(p.Message, n)
	}
	f.problems = append(f.problems, p)
}

// clip shortens a value to quote; see wire.Clip.
func clip(s string) string { return wire.Clip(s) }

// clipped is wire.Clipped: clip, marked as cut also when cut is true.
func clipped(s string, cut bool) string { return wire.Clipped(s, cut) }

// quotable is the part of scalar n's value a problem may quote: no more
// than the line of the file it starts on holds, clipped. The value alone
// does not tell: a plain or quoted scalar may go on over further lines,
// folded into one line of value (a file of KEY=secret lines is one such
// scalar).
func (f *yamlFile) quotable(n *yaml.Node) string {
	v, line := n.Value, f.line(n.Line)
	if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		// The indicator (| or >) is on n's line; the text begins below.
		line = strings.TrimSpace(f.line(n.Line + 1))
	}
	if strings.Contains(line, v) {
		return clip(v) // all of it is on the line
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
				return clip(v) // escapes aside, the value is this line's
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
	return clipped(v[:k], true)
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
// with the part of it that may be quoted.
func (f *yamlFile) requote(msg string, n *yaml.Node) string {
	if n.Kind != yaml.ScalarNode || n.Value == "" {
		return msg
	}
	if q := f.quotable(n); q != n.Value {
		msg = strings.ReplaceAll(msg, strconv.Quote(n.Value), strconv.Quote(q))
	}
	return msg
}

// line is the text of line n (from 1) of the file, without its line break.
func (f *yamlFile) line(n int) string {
	rest := f.src
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(rest, '\n')
		if j < 0 {
			return ""
		}
		rest = rest[j+1:]
	}
	if j := bytes.IndexByte(rest, '\n'); j >= 0 {
		rest = rest[:j]
	}
	return strings.TrimSuffix(string(rest), "\r")
}

// err returns every problem found, joined, or nil.
func (f *yamlFile) err() error {
	// This file's problems in file order; problems of other files (the
	// fixtures a scenario uses) after them.
	var own, other []error
	for _, e := range f.problems {
		if p, ok := e.(*Problem); ok && p.File == f.name {
			own = append(own, p)
		} else {
			other = append(other, e)
		}
	}
	slices.SortStableFunc(own, func(a, b error) int {
		pa, pb := a.(*Problem), b.(*Problem)
		if pa.Line != pb.Line {
			return pa.Line - pb.Line
		}
		return pa.Col - pb.Col
	})
	return errors.Join(append(own, other...)...)
}
