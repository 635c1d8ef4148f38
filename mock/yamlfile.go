package mock

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

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
	root     *yaml.Node // the document's top value; nil for an empty file
	problems []error
}

// decodeYAML decodes data into v strictly: unknown keys, duplicate keys
// and values of the wrong type are problems, each placed in the file.
// The returned file collects further problems through problemf.
func decodeYAML(name string, data []byte, v any) *yamlFile {
	f := &yamlFile{name: name}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		f.addSyntax(err)
		return f
	}
	if len(doc.Content) == 0 {
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
)

func (f *yamlFile) addSyntax(err error) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := lineRE.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	col := 0
	if line > 0 {
		col = 1
	}
	f.problems = append(f.problems, &Problem{File: f.name, Line: line, Col: col, Message: "YAML syntax: " + msg})
}

// addTypeError places one of yaml.v3's decoding messages ("line 4: field
// x not found in type ...") at its node and rewrites it without Go types.
func (f *yamlFile) addTypeError(msg string) {
	m := lineRE.FindStringSubmatch(msg)
	if m == nil {
		f.problems = append(f.problems, &Problem{File: f.name, Message: msg})
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
	case mismatchRE.MatchString(text):
		sm := mismatchRE.FindStringSubmatch(text)
		tag, goType := sm[1], sm[3]
		if n, path := f.find(func(n *yaml.Node, isKey bool) bool { return !isKey && n.Line == line && n.ShortTag() == tag }); n != nil {
			p.Col, p.Field = n.Column, path
			if n.Kind == yaml.ScalarNode {
				p.Message = fmt.Sprintf("must be %s, got %q", describeGoType(goType), n.Value)
				break
			}
		}
		p.Message = fmt.Sprintf("must be %s, got %s", describeGoType(goType), describeTag(tag))
	default:
		// A custom unmarshaler's message: place it at the line's value.
		if n, path := f.find(func(n *yaml.Node, isKey bool) bool { return !isKey && n.Line == line && n.Kind == yaml.ScalarNode }); n != nil {
			p.Col, p.Field = n.Column, path
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
				p := joinPath(path, k.Value)
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

// problemf records a problem with the field at path.
func (f *yamlFile) problemf(path, format string, args ...any) {
	p := &Problem{File: f.name, Field: path, Message: fmt.Sprintf(format, args...)}
	if n := f.nodeAt(path); n != nil {
		p.Line, p.Col = n.Line, n.Column
	}
	f.problems = append(f.problems, p)
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
