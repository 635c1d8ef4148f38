package yamlfile

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/replymock/replymock/mock/internal/wire"
	"gopkg.in/yaml.v3"
)

var (
	lineRE     = regexp.MustCompile(`(?s)^(?:yaml: )?line (\d+): (.*)$`)
	unknownRE  = regexp.MustCompile(`^field (.+) not found in type`)
	mismatchRE = regexp.MustCompile("(?s)^cannot unmarshal (!!\\w+)(?: `(.*)`)? into (.+)$")
	dupRE      = regexp.MustCompile(`^mapping key "(.*)" already defined at line (\d+)$`)
	// atRE is a custom unmarshaler's message that names its node exactly.
	atRE = regexp.MustCompile(`(?s)^line (\d+), column (\d+): (.*)$`)
)

func (f *File) addSyntax(err error) {
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
	msg = wire.Clip(msg)
	col := 0
	if line > 0 {
		col = 1
	}
	f.problems = append(f.problems, &Problem{File: f.name, Line: line, Col: col, Message: "YAML syntax: " + msg})
}

// addTypeError places one of yaml.v3's decoding messages ("line 4: field
// x not found in type ...") at its node and rewrites it without Go types.
func (f *File) addTypeError(msg string) {
	if m := atRE.FindStringSubmatch(msg); m != nil {
		f.addAt(m)
		return
	}
	m := lineRE.FindStringSubmatch(msg)
	if m == nil {
		f.problems = append(f.problems, &Problem{File: f.name, Message: wire.Clip(msg)})
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
		p.Message = fmt.Sprintf("must be %s, got %s", describeGoType(goType), DescribeTag(tag))
	default:
		// A custom unmarshaler's message: place it at the line's value.
		if n, path := f.find(func(n *yaml.Node, isKey bool) bool { return !isKey && n.Line == line && n.Kind == yaml.ScalarNode }); n != nil {
			p.Col, p.Field = n.Column, path
			p.Message = f.requote(p.Message, n)
		} else {
			p.Message = wire.Clip(p.Message)
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
func (f *File) addAt(m []string) {
	line, _ := strconv.Atoi(m[1])
	col, _ := strconv.Atoi(m[2])
	p := &Problem{File: f.name, Line: line, Col: col, Message: wire.Clip(m[3])}
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

// DescribeTag names a YAML tag in a problem: "a list", "a mapping",
// "str".
func DescribeTag(tag string) string {
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
func (f *File) find(match func(n *yaml.Node, isKey bool) bool) (*yaml.Node, string) {
	var walk func(n *yaml.Node, path string) (*yaml.Node, string)
	walk = func(n *yaml.Node, path string) (*yaml.Node, string) {
		if match(n, false) {
			return n, path
		}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				p := wire.JoinPath(path, wire.Clip(k.Value))
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
