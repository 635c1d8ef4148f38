package fault

import (
	"cmp"
	"math"
	"path"
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
			p.add("path", "must start with / (it is relative to /api/v1), got %q", f.Path)
		} else if rest, ok := strings.CutPrefix(f.Path, "/api/v1"); ok && (rest == "" || rest[0] == '/') {
			// It would match only /api/v1/api/v1/...: a mistake, not a wish.
			p.add("path", "is relative to /api/v1: did you mean %q? got %q", cmp.Or(rest, "/**"), f.Path)
		} else if _, err := path.Match(f.Path, "/"); err != nil {
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
