package yamlfile

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// File is a YAML document kept with its node tree, so that problems
// found after decoding can still be placed at a line and column.
type File struct {
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
	// Keep, when set, says which fields' problems to report (see
	// Problemf); the others are dropped.
	Keep func(field string) bool
}

// Checkable reports whether the decoded value may be checked further:
// the file is YAML, though some fields may not have decoded.
func (f *File) Checkable() bool { return f.root != nil && !f.broken }

// Decode decodes data into v strictly: unknown keys, duplicate keys
// and values of the wrong type are problems, each placed in the file.
// The returned file collects further problems through Problemf.
func Decode(name string, data []byte, v any) *File {
	f := &File{name: name, src: data}
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

// HasProblem reports whether a problem of this file is about field, a
// part of it or a field holding it.
func (f *File) HasProblem(field string) bool {
	for _, e := range f.problems {
		if p, ok := e.(*Problem); ok && p.File == f.name && related(p.Field, field) {
			return true
		}
	}
	return false
}

// related reports whether fields a and b are the same, or one holds the
// other ("faults[0]" holds "faults[0].latency.min").
func related(a, b string) bool {
	holds := func(outer, inner string) bool {
		rest, ok := strings.CutPrefix(inner, outer)
		return ok && (rest == "" || rest[0] == '.' || rest[0] == '[')
	}
	return a == b || a != "" && b != "" && (holds(a, b) || holds(b, a))
}

// Has reports whether the document's top-level mapping has key.
func (f *File) Has(key string) bool {
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

// Problemf records a problem with the field at path, unless the field
// is related to one that did not decode (its value was left out: the
// problem would only repeat that one), or Keep drops it.
func (f *File) Problemf(path, format string, args ...any) {
	for _, u := range f.undecoded {
		if related(u, path) {
			return
		}
	}
	if f.Keep != nil && !f.Keep(path) {
		return
	}
	p := &Problem{File: f.name, Field: path, Message: fmt.Sprintf(format, args...)}
	if n := f.nodeAt(path); n != nil {
		p.Line, p.Col = n.Line, n.Column
		p.Message = f.requote(p.Message, n)
	}
	f.problems = append(f.problems, p)
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
// scenario uses): it is reported after this file's own.
func (f *File) Add(err error) { f.problems = append(f.problems, err) }

// Err returns every problem found, joined, or nil.
func (f *File) Err() error {
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
