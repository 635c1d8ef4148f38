package yamlfile

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

type doc struct {
	Name  string `yaml:"name"`
	Count int    `yaml:"count"`
	Items []struct {
		Size int `yaml:"size"`
	} `yaml:"items"`
}

func lines(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Decoding problems are placed at their key or value, without Go's
// types; problems found afterwards at the field, or the nearest part of
// it the file has; a problem about a field that did not decode is not
// reported again; other files' problems come after the file's own.
func TestProblemsArePlaced(t *testing.T) {
	src := "name: x\ncount: many\nitems:\n  - size: 1\n  - colour: red\nextra: 1\n"
	var d doc
	f := Decode("f.yaml", []byte(src), &d)
	if !f.Checkable() {
		t.Fatal("not checkable")
	}
	f.Problemf("count", "must be small") // did not decode: dropped
	f.Problemf("items[0].size", "must be 2")
	f.Problemf("items[1].size", "required")
	f.Add(errors.New("other.yaml: broken"))
	want := strings.Join([]string{
		`f.yaml:2:8: count: must be an integer, got "many"`,
		`f.yaml:4:11: items[0].size: must be 2`,
		`f.yaml:5:5: items[1].colour: unknown field`,
		`f.yaml:5:5: items[1].size: required`,
		`f.yaml:6:1: extra: unknown field`,
		`other.yaml: broken`,
	}, "\n")
	if got := lines(f.Err()); got != want {
		t.Errorf("problems:\n%s\nwant:\n%s", got, want)
	}
	if !f.HasProblem("items") || !f.HasProblem("count") || f.HasProblem("name") {
		t.Error("HasProblem")
	}
	if !f.Has("extra") || f.Has("colour") {
		t.Error("Has")
	}
}

// Keep drops the problems of fields it does not keep.
func TestKeep(t *testing.T) {
	var d doc
	f := Decode("f.yaml", []byte("name: x\ncount: 1\n"), &d)
	f.Keep = func(field string) bool { return field == "name" }
	f.Problemf("count", "dropped")
	f.Problemf("name", "kept")
	if got := lines(f.Err()); got != "f.yaml:1:7: name: kept" {
		t.Errorf("got %q", got)
	}
}

// A file that is not YAML, or empty, is not checkable, with one
// problem; a value of the wrong kind is placed at it.
func TestBrokenFiles(t *testing.T) {
	for _, c := range []struct {
		src, want string
		checkable bool
	}{
		{"", "f.yaml:1:1: file is empty", false},
		{"name: [x\n", "f.yaml:1:1: YAML syntax: did not find expected ',' or ']'", false},
		{"name: a\nname: b\n", "f.yaml:2:1: name: duplicate key (first at line 1)", false},
		{"count: 1\nname: {a: 1}\n", "f.yaml:2:7: name: must be a string, got a mapping", true},
	} {
		var d doc
		f := Decode("f.yaml", []byte(c.src), &d)
		if f.Checkable() != c.checkable {
			t.Errorf("%q: checkable %v, want %v", c.src, f.Checkable(), c.checkable)
		}
		if got := lines(f.Err()); got != c.want {
			t.Errorf("%q: got %q, want %q", c.src, got, c.want)
		}
	}
}

// A value that goes on over further lines is quoted only as far as its
// first line shows it.
func TestQuotesOneLine(t *testing.T) {
	var d doc
	f := Decode("f.yaml", []byte("name: x\ncount: \"12 secret\n  more secret\"\n"), &d)
	got := lines(f.Err())
	if strings.Contains(got, "more") || !strings.Contains(got, `"12 secret…"`) {
		t.Errorf("got %q", got)
	}
}

// A mapping of MaxKeys keys is decoded; one more key, and the file is
// refused with one problem at the mapping, before yaml.v3 compares every
// key with every other.
func TestMaxKeys(t *testing.T) {
	file := func(n int) []byte {
		var b strings.Builder
		b.WriteString("name: x\nitems:\n  - size: 1\n")
		for i := range n {
			fmt.Fprintf(&b, "    k%d: 1\n", i)
		}
		return []byte(b.String())
	}
	var d doc
	f := Decode("f.yaml", file(MaxKeys-1), &d) // size and MaxKeys-1 others
	if !f.Checkable() || !strings.Contains(lines(f.Err()), "f.yaml:4:5: items[0].k0: unknown field") {
		t.Errorf("a mapping of MaxKeys keys: checkable %v, %.200s", f.Checkable(), lines(f.Err()))
	}
	f = Decode("f.yaml", file(MaxKeys), &d)
	want := fmt.Sprintf("f.yaml:3:5: items[0]: a mapping of %d keys, more than the %d any scenario or fixture may have: not read further", MaxKeys+1, MaxKeys)
	if f.Checkable() || lines(f.Err()) != want {
		t.Errorf("a mapping of MaxKeys+1 keys: checkable %v,\n%s\nwant\n%s", f.Checkable(), lines(f.Err()), want)
	}
}

// Err lists a file's first MaxProblems problems in file order, then how
// many more there are; other files' problems after them, as they are.
func TestErrCapsProblems(t *testing.T) {
	var b strings.Builder
	b.WriteString("items:\n")
	for i := range MaxProblems + 5 {
		fmt.Fprintf(&b, "  - {x%d: 1}\n", i)
	}
	var d doc
	f := Decode("f.yaml", []byte(b.String()), &d)
	f.Add(errors.New("other.yaml: broken"))
	got := strings.Split(lines(f.Err()), "\n")
	if len(got) != MaxProblems+2 {
		t.Fatalf("%d lines, want %d", len(got), MaxProblems+2)
	}
	if got[0] != "f.yaml:2:6: items[0].x0: unknown field" || got[MaxProblems-1] != fmt.Sprintf("f.yaml:%d:6: items[%d].x%[2]d: unknown field", MaxProblems+1, MaxProblems-1) {
		t.Errorf("first and last listed: %q, %q", got[0], got[MaxProblems-1])
	}
	if got[MaxProblems] != "f.yaml: and 5 more problems, not listed" || got[MaxProblems+1] != "other.yaml: broken" {
		t.Errorf("the tail: %q", got[MaxProblems:])
	}
	// Every problem is still known to the checks that follow.
	if !f.HasProblem(fmt.Sprintf("items[%d]", MaxProblems+4)) {
		t.Error("HasProblem forgets a problem left out of the report")
	}
}

// Cap keeps the first n problems and counts the others, those a More
// stood for among them; the More names a file when they are all its.
func TestCap(t *testing.T) {
	p := func(file string, line int) error { return &Problem{File: file, Line: line, Col: 1, Message: "bad"} }
	cases := []struct {
		name string
		err  error
		n    int
		want string
	}{
		{"nothing", nil, 3, ""},
		{"under", errors.Join(p("a.yaml", 1), p("a.yaml", 2)), 3, "a.yaml:1:1: bad\na.yaml:2:1: bad"},
		{"one file", errors.Join(p("a.yaml", 1), p("a.yaml", 2), p("a.yaml", 3)), 1, "a.yaml:1:1: bad\na.yaml: and 2 more problems, not listed"},
		{"a More counted", errors.Join(p("a.yaml", 1), p("a.yaml", 2), &More{File: "a.yaml", Count: 98}), 1, "a.yaml:1:1: bad\na.yaml: and 99 more problems, not listed"},
		{"nested", errors.Join(errors.Join(p("a.yaml", 1), &More{File: "a.yaml", Count: 1}), p("b.yaml", 1)), 1, "a.yaml:1:1: bad\nand 2 more problems, not listed"},
		{"not a problem", errors.Join(p("a.yaml", 1), errors.New("x")), 1, "a.yaml:1:1: bad\nand 1 more problem, not listed"},
	}
	for _, c := range cases {
		if got := lines(Cap(c.err, c.n)); got != c.want {
			t.Errorf("%s: got\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
}

// A field set answers as the definition does: the same field, or one
// holding the other at a . or a [.
func TestFieldSetRelated(t *testing.T) {
	var s fieldSet
	for _, f := range []string{"faults[0].latency", "name", ""} {
		s.add(f)
	}
	for field, want := range map[string]bool{
		"faults[0].latency": true, "faults[0].latency.min": true, "faults[0]": true, "faults": true,
		"faults[1]": false, "faults[0].lat": false, "fault": false, "faults[0].latencyx": false,
		"name": true, "name.first": true, "names": false, "": true, "other": false,
	} {
		if got := s.related(field); got != want {
			t.Errorf("related(%q) = %v, want %v", field, got, want)
		}
	}
	var empty fieldSet
	if empty.related("") || empty.related("x") {
		t.Error("an empty set relates to something")
	}
}

// Top reads a top-level scalar without decoding the document.
func TestTop(t *testing.T) {
	for src, want := range map[string]string{
		"kind: reviews\nx: 1\n":     "reviews",
		"x: 1\n":                    "",
		"kind: {a: 1}\n":            "",
		"kind: ~\n":                 "",
		"a: &k phrases\nkind: *k\n": "phrases",
		"- kind: reviews\n":         "",
		"kind: [x\n":                "",
		"kind: 5\n":                 "5",
		"":                          "",
	} {
		if got := Top([]byte(src), "kind"); got != want {
			t.Errorf("Top(%q) = %q, want %q", src, got, want)
		}
	}
}
