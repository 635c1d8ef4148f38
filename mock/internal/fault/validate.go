package fault

import (
	"math"
	"path"
	"slices"
	"strings"

	"github.com/replymock/replymock/mock/internal/wire"
)

// Validate lists the fault's problems, with field paths relative to the
// fault.
func (f *Fault) Validate() []wire.FieldProblem {
	var p problems
	f.checkPick(&p)
	asked, acting := 0, 0
	for _, k := range kinds {
		if !k.in(f) {
			continue
		}
		asked++
		if k.Acts() {
			acting++
		}
		if k.check != nil {
			k.check(f, &p)
		}
	}
	waits, acts := kindNames()
	if acting > 1 {
		p.add("", "give at most one of %s", wire.JoinWords(acts, "and"))
	}
	if asked == 0 {
		p.add("", "does nothing: give %s", wire.JoinWords(append(waits, acts...), "or"))
	}
	return p
}

// checkPick checks the fields that pick the requests a fault hits.
func (f *Fault) checkPick(p *problems) {
	if f.Method != "" && f.Method != "*" && !wire.IsToken(f.Method) {
		p.add("method", "must be an HTTP method such as GET, or * for any; got %q", f.Method)
	}
	if f.Path != "" {
		if !strings.HasPrefix(f.Path, "/") && f.Path != "*" {
			p.add("path", "must start with /, got %q", f.Path)
		} else if _, err := path.Match(apiPath(f.Path), "/"); err != nil {
			p.add("path", "bad glob %q: %v", f.Path, err)
		}
	}
	if pr := f.Probability; pr != nil && !(*pr >= 0 && *pr <= 1) {
		p.add("probability", "must be from 0 to 1, got %v", *pr)
	}
	if f.After < 0 {
		p.add("after", "must be >= 0, got %d", f.After)
	}
	if f.Times < 0 {
		p.add("times", "must be >= 0 (0 means no limit), got %d", f.Times)
	}
	if f.Seed < 0 {
		p.add("seed", "must be from 0 to %d, got %d", int64(math.MaxInt64), f.Seed)
	}
}

// Operation is one of the API's operations: its path after /api/v1 and
// its methods. The API's table sets them (SetOperations), so that a
// fault that can match none is refused.
type Operation struct {
	Path    string
	Methods []string
}

var operations []Operation

// SetOperations tells the package the API's operations. Call it once,
// at start; without it, any method and path is taken.
func SetOperations(ops []Operation) { operations = ops }

// CanFire lists the problems of a fault Validate took that can match no
// operation of the API, each naming the nearest. A server that passes
// other paths to a real service (a proxy) does not ask.
func (f *Fault) CanFire() []wire.FieldProblem {
	var p problems
	if len(operations) > 0 {
		glob := apiPath(f.Path)
		checkOperation(f.Method, glob, func(op string) bool { return MatchPath(glob, op) }, f.Method == "" || f.Method == "*", &p)
	}
	return p
}

// NoOperation says why no operation of the API takes a request of
// method ("" for any) to path (after /api/v1), or to any path that
// starts with it when prefix is set; "" when one does.
func NoOperation(method, path string, prefix bool) string {
	var p problems
	if len(operations) > 0 {
		takes := func(op string) bool { return op == path || prefix && strings.HasPrefix(op, path) }
		checkOperation(method, path, takes, method == "", &p)
	}
	if len(p) == 0 {
		return ""
	}
	return p[0].Msg
}

// checkOperation refuses a method and path glob that match no
// operation, naming the nearest one. matches says which operation paths
// the glob takes.
func checkOperation(method, glob string, matches func(opPath string) bool, anyMethod bool, p *problems) {
	var paths, methods []string // methods: of the paths glob matches
	for _, op := range operations {
		paths = append(paths, op.Path)
		if !matches(op.Path) {
			continue
		}
		if anyMethod || slices.ContainsFunc(op.Methods, func(m string) bool { return strings.EqualFold(m, method) }) {
			return // it can fire
		}
		for _, m := range op.Methods {
			if !slices.Contains(methods, m) {
				methods = append(methods, m)
			}
		}
	}
	switch {
	case len(methods) == 0:
		msg := "matches no operation of the API (" + strings.Join(slices.Compact(slices.Sorted(slices.Values(paths))), ", ") + ")"
		if near := wire.Nearest(glob, paths); near != "" {
			msg += ": did you mean " + near + "?"
		}
		p.add("path", "%s; got %q", msg, glob)
	default:
		of := ""
		if !matches("/no/such/path") {
			of = " of path " + glob
		}
		msg := "no operation" + of + " takes " + method + " (they take " + strings.Join(methods, ", ") + ")"
		if near := wire.Nearest(method, methods); near != "" {
			msg += ": did you mean " + near + "?"
		}
		p.add("method", "%s", msg)
	}
}
