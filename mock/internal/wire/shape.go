package wire

import (
	"bytes"
	"cmp"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// Shape bounds how many values a JSON body may hold, checked token by
// token before anything is decoded of it: the elements of each array, the
// members of each object, and the values in all. Decoding turns a value
// of two or three bytes ({} or "") into a Go value of tens or hundreds of
// bytes: without these bounds, a body at its byte limit costs up to 570
// times its size to decode (a seed body of 8 MiB of empty photos, 4.8 GB);
// with them, at most JSONCost times. Nesting needs no bound here: the
// decoders refuse a body nested more than 10,000 deep, and such a body
// costs at most twice its size.
//
// A body that is not JSON is left to the decoder, which says why in its
// own words.
type Shape struct {
	What string // for messages: "a snapshot", "a seed body"
	// Items bounds the elements of arrays and the members of objects in
	// all, the insides of Raw paths aside.
	Items int
	// Array bounds the elements of an array that Arrays does not name,
	// Members the members of any object.
	Array, Members int
	Arrays         []Bound
	// Raw are the paths whose values the decoder keeps as bytes: the
	// values there count as items, what is inside them does not (their
	// depth, arrays and objects are still bounded).
	Raw []string

	once sync.Once
	root *pathNode
}

// Bound is the most elements an array at Path may hold. Path names the
// keys from the body's value down, joined by dots, with [] for any
// element of an array: "scenarios[].seeded.reviews". Msg words the
// refusal, a format given Max and the count ("" for "at most %d, got %d").
type Bound struct {
	Path string
	Max  int
	Msg  string
}

// pathNode is a step of the shape's paths; "[]" keys an array's
// elements.
type pathNode struct {
	children map[string]*pathNode
	bound    *Bound
	raw      bool
}

func (s *Shape) compile() {
	s.once.Do(func() {
		s.root = &pathNode{}
		for i := range s.Arrays {
			s.root.at(s.Arrays[i].Path).bound = &s.Arrays[i]
		}
		for _, p := range s.Raw {
			s.root.at(p).raw = true
		}
	})
}

// at is the node at path under n, made as needed.
func (n *pathNode) at(path string) *pathNode {
	for _, step := range pathSteps(path) {
		c := n.children[step]
		if c == nil {
			c = &pathNode{}
			if n.children == nil {
				n.children = make(map[string]*pathNode)
			}
			n.children[step] = c
		}
		n = c
	}
	return n
}

// pathSteps splits "a[].b" into "a", "[]", "b".
func pathSteps(path string) []string {
	var steps []string
	for _, part := range strings.Split(path, ".") {
		name, _, _ := strings.Cut(part, "[")
		if name != "" {
			steps = append(steps, name)
		}
		for range strings.Count(part, "[]") {
			steps = append(steps, "[]")
		}
	}
	return steps
}

// frame is an array or object being read.
type frame struct {
	node  *pathNode
	bound int    // the most elements or members
	named *Bound // of Arrays, if any
	raw   bool   // inside a raw value: its items are not counted
}

// Check reads body, a JSON document, against the shape: nil when it is
// within every bound (or is not JSON), else the refusal.
func (s *Shape) Check(body []byte) error {
	if s == nil {
		return nil
	}
	s.compile()
	dec := jsontext.NewDecoder(bytes.NewBuffer(body), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	frames := make([]frame, 1, 16)
	var name []byte // the member name last read, unquoted
	items := 0
	for {
		kind := dec.PeekKind()
		if kind == 0 {
			return nil // the end, or not JSON: the decoder says so
		}
		depth := dec.StackDepth()
		top := &frames[depth]
		k, n := dec.StackIndex(depth)
		switch {
		case kind == ']' || kind == '}':
			if _, err := dec.ReadToken(); err != nil || depth == 1 {
				return nil // the body's value is read: what follows is the decoder's to refuse
			}
			frames = frames[:depth]
			continue
		case k == '{' && n%2 == 0: // a member's name
			if int(n/2) >= top.bound {
				return InvalidBody(containerPath(dec, depth), "an object of more than %d members, more than %s ever holds", top.bound, s.What)
			}
			raw, err := dec.ReadValue()
			if err == nil {
				name, err = jsontext.AppendUnquote(name[:0], raw)
			}
			if err != nil {
				return nil
			}
			continue
		case k == '[' && int(n) >= top.bound:
			return s.tooMany(dec, depth, top)
		}
		if depth > 0 && !top.raw {
			if items++; items > s.Items {
				return &APIError{Status: http.StatusRequestEntityTooLarge, Code: CodePayloadTooLarge,
					Message: fmt.Sprintf("the body holds more than %d values (elements of arrays and members of objects), more than %s ever holds", s.Items, s.What)}
			}
		}
		if kind != '{' && kind != '[' {
			if dec.SkipValue() != nil || depth == 0 {
				return nil // a scalar body, or not JSON
			}
			continue
		}
		node := s.root
		switch {
		case depth > 0 && k == '{':
			node = top.node.child(name)
		case depth > 0:
			node = top.node.child(elements)
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil
		}
		f := frame{node: node, raw: top.raw || node != nil && node.raw, bound: s.Array}
		switch {
		case kind == '{':
			f.bound = s.Members
		case node != nil && node.bound != nil:
			f.bound, f.named = node.bound.Max, node.bound
		}
		frames = append(frames[:depth+1], f)
	}
}

// elements is the key of an array's elements.
var elements = []byte("[]")

// child is the node of n's member key; nil where the shape names none.
func (n *pathNode) child(key []byte) *pathNode {
	if n == nil {
		return nil
	}
	return n.children[string(key)] // a lookup by []byte: no allocation
}

// tooMany counts the rest of the array on top, past its bound, and says
// how many it holds ("more than" its bound if it is cut short).
func (s *Shape) tooMany(dec *jsontext.Decoder, depth int, top *frame) error {
	path := containerPath(dec, depth)
	got := -1
	for dec.StackDepth() >= depth {
		if dec.PeekKind() == ']' && dec.StackDepth() == depth {
			_, n := dec.StackIndex(depth)
			got = int(n)
			break
		}
		if dec.SkipValue() != nil {
			break
		}
	}
	msg := "at most %d elements, got %d: more than " + s.What + " ever holds"
	if top.named != nil {
		msg = cmp.Or(top.named.Msg, "at most %d, got %d")
	}
	if got < 0 {
		return InvalidBody(path, "%s", strings.Replace(fmt.Sprintf(msg, top.bound, 0), " 0", " more", 1))
	}
	return InvalidBody(path, msg, top.bound, got)
}

// containerPath names the array or object at depth as problems name
// fields: "scenarios[3].seeded.reviews".
func containerPath(dec *jsontext.Decoder, depth int) string {
	return pathOf(dec.StackPointer(), depth-1, func(i int, _ string) bool {
		k, _ := dec.StackIndex(i)
		return k == '['
	})
}
