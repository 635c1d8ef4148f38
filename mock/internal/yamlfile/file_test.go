package yamlfile

import (
	"errors"
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
