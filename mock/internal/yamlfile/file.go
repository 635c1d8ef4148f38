package yamlfile

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/replymock/replymock/mock/internal/wire"
	"gopkg.in/yaml.v3"
)

// File is a YAML document kept with its node tree, so that problems
// found after decoding can still be placed at a line and column. Its
// cost grows with its size plus its problems, never their product.
type File struct {
	name      string
	src       []byte     // to quote no more of a value than its line
	lines     []string   // src split into lines, once a line was asked for
	root      *yaml.Node // nil for an empty file
	top       map[string]bool
	problems  []error
	own       fieldSet                // the fields this file's problems are about
	broken    bool                    // not YAML, or empty: nothing further can be checked
	undecoded fieldSet                // problems found later about these would repeat their decoding's
	Keep      func(field string) bool // when set, the fields whose problems are reported
}

// MaxKeys is the most keys a mapping of a scenario or fixture file may
// have. yaml.v3 compares each key with every other, so one mapping of
// 20,000 keys would cost seconds; none needs more than a few dozen.
const MaxKeys = 1000

// MaxProblems is how many problems of one file Err reports, the first
// in file order; a last line (More) says how many more there are.
const MaxProblems = 100

// Checkable reports whether the decoded value may be checked further,
// though some fields may not have decoded.
func (f *File) Checkable() bool { return f.root != nil && !f.broken }

// Decode decodes data into v strictly: unknown keys, duplicate keys and
// values of the wrong type are problems, each placed in the file.
func Decode(name string, data []byte, v any) *File {
	f := &File{name: name, src: data}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		f.addSyntax(err)
		return f
	}
	if len(doc.Content) == 0 {
		f.broken = true
		f.add(&Problem{File: name, Line: 1, Col: 1, Message: "file is empty"})
		return f
	}
	f.root = doc.Content[0]
	if f.root.Kind == yaml.MappingNode {
		f.top = make(map[string]bool, len(f.root.Content)/2)
		for i := 0; i+1 < len(f.root.Content); i += 2 {
			f.top[f.root.Content[i].Value] = true
		}
	}
	if f.tooLarge() {
		return f
	}
	// KnownFields only works on the decoder, not on a yaml.Node.
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	err := dec.Decode(v)
	var te *yaml.TypeError
	switch {
	case errors.As(err, &te):
		f.addTypeErrors(te.Errors)
	case err != nil:
		f.addSyntax(err)
	}
	return f
}

// HasProblem reports whether a problem of this file is about field, a
// part of it or a field holding it.
func (f *File) HasProblem(field string) bool { return f.own.related(field) }

func (f *File) add(p *Problem) {
	f.problems = append(f.problems, p)
	f.own.add(p.Field)
}

// fieldSet is a set of field paths that tells quickly whether it holds
// a field related to a given one: the same, or one holding the other
// ("faults[0]" holds "faults[0].latency.min").
type fieldSet struct {
	fields map[string]bool
	outer  map[string]bool // every field that holds one of them
}

func (s *fieldSet) add(field string) {
	if s.fields == nil {
		s.fields, s.outer = make(map[string]bool), make(map[string]bool)
	}
	s.fields[field] = true
	for _, o := range outerFields(field) {
		s.outer[o] = true
	}
}

// related reports whether the set has field, a field holding it, or a
// part of it. The empty field is related to itself only.
func (s *fieldSet) related(field string) bool {
	if s.fields[field] || field != "" && s.outer[field] {
		return true
	}
	return slices.ContainsFunc(outerFields(field), func(o string) bool { return s.fields[o] })
}

// outerFields are the fields that hold field: "a", "a.b" for "a.b[0]".
func outerFields(field string) []string {
	var out []string
	for i := 1; i < len(field); i++ {
		if field[i] == '.' || field[i] == '[' {
			out = append(out, field[:i])
		}
	}
	return out
}

// Has reports whether the document's top-level mapping has key.
func (f *File) Has(key string) bool { return f.top[key] }

// Problemf records a problem with the field at path, unless the field
// is related to one that did not decode, or Keep drops it.
func (f *File) Problemf(path, format string, args ...any) {
	if f.undecoded.related(path) {
		return
	}
	if f.Keep != nil && !f.Keep(path) {
		return
	}
	p := &Problem{File: f.name, Field: path, Message: fmt.Sprintf(format, args...)}
	if n := f.nodeAt(path); n != nil {
		p.Line, p.Col = n.Line, n.Column
		p.Message = f.requote(p.Message, n)
	}
	f.add(p)
}

// Problems records probs, the problems of the value at path (see
// wire.Prefixed), as Problemf does.
func (f *File) Problems(path string, probs []wire.FieldProblem) {
	for _, p := range wire.Prefixed(path, probs) {
		f.Problemf(p.Field, "%s", p.Msg)
	}
}

// nodeAt returns the node at a field path, or the nearest ancestor that
// exists (a missing field is placed at the mapping that lacks it).
func (f *File) nodeAt(path string) *yaml.Node {
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

// Add records err, a problem found in another file (a fixture the
// scenario uses), reported after this file's own.
func (f *File) Add(err error) {
	f.problems = append(f.problems, err)
	if p, ok := err.(*Problem); ok && p.File == f.name {
		f.own.add(p.Field)
	}
}

// Err returns the problems found, joined, or nil: this file's first
// MaxProblems in file order, a More for the rest, then other files'.
func (f *File) Err() error {
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
		return cmp.Or(pa.Line-pb.Line, pa.Col-pb.Col)
	})
	if len(own) > MaxProblems {
		own = append(own[:MaxProblems:MaxProblems], &More{File: f.name, Count: len(own) - MaxProblems})
	}
	return errors.Join(append(own, other...)...)
}

// tooLarge reports whether the document has mappings of more than
// MaxKeys keys, each then a problem: the file is not decoded further.
func (f *File) tooLarge() bool {
	large := map[*yaml.Node]bool{}
	var count func(n *yaml.Node)
	count = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode && len(n.Content)/2 > MaxKeys {
			large[n] = true
		}
		if n.Kind != yaml.AliasNode {
			for _, c := range n.Content {
				count(c)
			}
		}
	}
	count(f.root)
	if len(large) == 0 {
		return false
	}
	f.walk(func(n *yaml.Node, isKey bool, path string) {
		if !isKey && large[n] {
			f.add(&Problem{File: f.name, Line: n.Line, Col: n.Column, Field: path,
				Message: fmt.Sprintf("a mapping of %d keys, more than the %d any scenario or fixture may have: not read further", len(n.Content)/2, MaxKeys)})
		}
	})
	f.broken = true
	return true
}

// Top returns the scalar value of key in the top-level mapping of a
// document; "" when it has none, or is not YAML. It reads the node tree
// only, in the time of the file's size, whatever its mappings' sizes.
func Top(data []byte, key string) string {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return ""
	}
	m := doc.Content[0].Content
	for i := 0; i+1 < len(m); i += 2 {
		if v := m[i+1]; m[i].Value == key {
			if v.Kind == yaml.AliasNode && v.Alias != nil {
				v = v.Alias
			}
			if v.Kind != yaml.ScalarNode || v.ShortTag() == "!!null" {
				return ""
			}
			return v.Value
		}
	}
	return ""
}
