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
	f.add(&Problem{File: f.name, Line: line, Col: col, Message: "YAML syntax: " + msg})
}

// msgKind is what a decoding message of yaml.v3 says, which tells which
// node on its line it is about. All messages of one decode are placed in
// one walk of the tree, not one walk a problem.
type msgKind uint8

const (
	msgUnknown  msgKind = iota // an unknown key: the key
	msgDup                     // a duplicate key: the key
	msgMismatch                // a value of the wrong type: the value, by its tag
	msgCustom                  // a custom unmarshaler's message: the line's scalar value
	msgAt                      // "line L, column C: ...": the key there, else the value
	msgLost                    // no line: placed nowhere
)

// pending is one decoding message being placed, with the first node
// found that it names (for msgAt, the first key and value at its place).
type pending struct {
	kind      msgKind
	line, col int
	key       string // msgUnknown, msgDup: the key; msgMismatch: the tag
	text      string // the message, without its line
	arg, arg2 string // msgDup: the first line; msgMismatch: the Go type

	node, val       *yaml.Node
	nodePath, vPath string
}

// matches reports whether n (a key when isKey) is what m is about.
func (m *pending) matches(n *yaml.Node, isKey bool) bool {
	if n.Line != m.line {
		return false
	}
	switch m.kind {
	case msgUnknown, msgDup:
		return isKey && n.Value == m.key
	case msgMismatch:
		return !isKey && n.ShortTag() == m.key
	case msgCustom:
		return !isKey && n.Kind == yaml.ScalarNode
	case msgAt:
		return n.Column == m.col
	}
	return false
}

// parseMessage reads one of yaml.v3's decoding messages.
func parseMessage(msg string) *pending {
	if m := atRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		col, _ := strconv.Atoi(m[2])
		return &pending{kind: msgAt, line: line, col: col, text: m[3]}
	}
	m := lineRE.FindStringSubmatch(msg)
	if m == nil {
		return &pending{kind: msgLost, text: msg}
	}
	line, _ := strconv.Atoi(m[1])
	pm := &pending{kind: msgCustom, line: line, text: m[2]}
	if sm := unknownRE.FindStringSubmatch(pm.text); sm != nil {
		pm.kind, pm.key = msgUnknown, sm[1]
	} else if sm := dupRE.FindStringSubmatch(pm.text); sm != nil {
		pm.kind, pm.key, pm.arg = msgDup, sm[1], sm[2]
	} else if sm := mismatchRE.FindStringSubmatch(pm.text); sm != nil {
		pm.kind, pm.key, pm.arg2 = msgMismatch, sm[1], sm[3]
	}
	return pm
}

// addTypeErrors places yaml.v3's decoding messages ("line 4: field x
// not found in type ...") at their nodes and words them without Go
// types, in their order.
func (f *File) addTypeErrors(msgs []string) {
	ms := make([]*pending, len(msgs))
	byLine := make(map[int][]*pending)
	for i, msg := range msgs {
		ms[i] = parseMessage(msg)
		if ms[i].kind != msgLost {
			byLine[ms[i].line] = append(byLine[ms[i].line], ms[i])
		}
	}
	f.walk(func(n *yaml.Node, isKey bool, path string) {
		for _, m := range byLine[n.Line] {
			if !m.matches(n, isKey) {
				continue
			}
			if isKey || m.kind != msgAt {
				if m.node == nil {
					m.node, m.nodePath = n, path
				}
			} else if m.val == nil {
				m.val, m.vPath = n, path
			}
		}
	})
	for _, m := range ms {
		f.addMessage(m)
	}
}

// addMessage records the problem m says.
func (f *File) addMessage(m *pending) {
	if m.kind == msgLost {
		f.add(&Problem{File: f.name, Message: wire.Clip(m.text)})
		return
	}
	if m.kind == msgAt {
		p := &Problem{File: f.name, Line: m.line, Col: m.col, Message: wire.Clip(m.text)}
		n, path := m.node, m.nodePath
		if n == nil {
			n, path = m.val, m.vPath
		}
		if n != nil {
			p.Field, p.Message = path, f.requote(m.text, n)
		}
		f.add(p)
		return
	}
	p := &Problem{File: f.name, Line: m.line, Col: 1, Message: m.text}
	n := m.node
	if n != nil {
		p.Col, p.Field = n.Column, m.nodePath
	}
	switch m.kind {
	case msgUnknown:
		p.Message = "unknown field"
	case msgDup:
		p.Message = "duplicate key (first at line " + m.arg + ")"
		f.broken = true // the mapping holding it was not decoded at all
	case msgMismatch:
		if n != nil && n.Kind == yaml.ScalarNode {
			p.Message = fmt.Sprintf("must be %s, got %q", describeGoType(m.arg2), f.quotable(n))
		} else {
			p.Message = fmt.Sprintf("must be %s, got %s", describeGoType(m.arg2), DescribeTag(m.key))
		}
	default:
		if n != nil {
			p.Message = f.requote(p.Message, n)
		} else {
			p.Message = wire.Clip(p.Message)
		}
	}
	if p.Field != "" {
		f.undecoded.add(p.Field)
	} else {
		f.broken = true // a value gone astray somewhere unknown: further checks could only guess
	}
	f.add(p)
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

// DescribeTag names a YAML tag in a problem: "a list", "a mapping", "str".
func DescribeTag(tag string) string {
	switch tag {
	case "!!seq":
		return "a list"
	case "!!map":
		return "a mapping"
	}
	return strings.TrimPrefix(tag, "!!")
}

// walk visits every node of the tree in document order (a mapping's
// key before its value), a key with isKey, with its field path. Aliases
// are not followed.
func (f *File) walk(visit func(n *yaml.Node, isKey bool, path string)) {
	var rec func(n *yaml.Node, path string)
	rec = func(n *yaml.Node, path string) {
		visit(n, false, path)
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				p := wire.JoinPath(path, wire.Clip(k.Value))
				visit(k, true, p)
				rec(v, p)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				rec(c, fmt.Sprintf("%s[%d]", path, i))
			}
		}
	}
	if f.root != nil {
		rec(f.root, "")
	}
}
