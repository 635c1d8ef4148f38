package yamlfile

import (
	"errors"
	"fmt"
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
	at := p.File
	if p.Line > 0 {
		at += fmt.Sprintf(":%d:%d", p.Line, p.Col)
	}
	if p.Field != "" {
		at += ": " + p.Field
	}
	// One problem, one line: values quoted into messages may hold line breaks.
	return at + ": " + strings.ReplaceAll(p.Message, "\n", `\n`)
}

// NodeProblem is a problem at node n for a custom unmarshaler to
// return: a yaml.TypeError, so that decoding goes on and Decode places
// it at n.
func NodeProblem(n *yaml.Node, format string, args ...any) error {
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d, column %d: "+format, append([]any{n.Line, n.Column}, args...)...)}}
}

// More stands for problems left out of a report: Count of them, all of
// File's when File is set.
type More struct {
	File  string
	Count int
}

func (m *More) Error() string {
	s := fmt.Sprintf("and %d more problems, not listed", m.Count)
	if m.Count == 1 {
		s = "and 1 more problem, not listed"
	}
	if m.File != "" {
		s = m.File + ": " + s
	}
	return s
}

// Cap returns the first n of err's joined problems and a More for the
// others, counting those a More already stood for. The More names a file
// when all it stands for are that file's.
func Cap(err error, n int) error {
	var kept []error
	more := &More{}
	files := make(map[string]bool) // of the problems left out
	var walk func(error)
	walk = func(err error) {
		switch e := err.(type) {
		case nil:
		case interface{ Unwrap() []error }:
			for _, c := range e.Unwrap() {
				walk(c)
			}
		case *More:
			more.Count += e.Count
			files[e.File] = true
		default:
			if len(kept) < n {
				kept = append(kept, err)
				return
			}
			more.Count++
			f := ""
			if p, ok := err.(*Problem); ok {
				f = p.File
			}
			files[f] = true
		}
	}
	walk(err)
	if more.Count > 0 {
		if len(files) == 1 {
			for f := range files {
				more.File = f
			}
		}
		kept = append(kept, more)
	}
	return errors.Join(kept...)
}
