package yamlfile

import (
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

// NodeProblem is a decoding problem at node n, for a custom unmarshaler
// to return: a yaml.TypeError whose message names n's line and column,
// so that decoding goes on and Decode places it at n.
func NodeProblem(n *yaml.Node, format string, args ...any) error {
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d, column %d: "+format, append([]any{n.Line, n.Column}, args...)...)}}
}
