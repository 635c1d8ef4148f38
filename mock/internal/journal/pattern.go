package journal

import (
	"cmp"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/replymock/replymock/mock/internal/wire"
)

// partKind is what part of an entry a pattern looks at.
type partKind uint8

const (
	partMethod partKind = iota
	partPath
	partQuery
	partHeader
	partBody
)

// part is one thing a pattern wants of an entry.
type part struct {
	kind   partKind
	field  string   // as patterns name it: "method", "query.answered", "header.X-Client", "body.a.0.b"
	name   string   // the query parameter, or the canonical header name
	segs   []string // the body path
	want   string
	secret bool // a credential: compared as the journal shows it
}

// Pattern is a Filter made ready to match (its Limit is the caller's).
type Pattern struct {
	scope string // a session id, or AllSessions
	since int64
	parts []part // method and path first: the cheap ones
	cheap int    // how many parts are method and path
}

// Compile checks f and makes a Pattern of it. A problem is a 400 naming
// the part as GET /__mock/requests would.
func (j *Journals) Compile(f Filter) (*Pattern, error) { return compile(f, j.Redactor()) }

// compile is Compile with rd telling which names are credentials.
func compile(f Filter, rd *Redactor) (*Pattern, error) {
	p := &Pattern{scope: cmp.Or(f.Session, AllSessions), since: f.Since}
	if f.Method != "" {
		if !wire.IsToken(f.Method) {
			return nil, wire.InvalidParameter("method", "must be an HTTP method such as GET, got %q", f.Method)
		}
		p.parts = append(p.parts, part{kind: partMethod, field: "method", want: f.Method})
	}
	if f.Path != "" {
		if !strings.HasPrefix(f.Path, "/") && f.Path != "*" {
			return nil, wire.InvalidParameter("path", "must be a path such as /api/v1/feedbacks (or /feedbacks, as a fault writes it), or a prefix of one ending in *, got %q", f.Path)
		}
		p.parts = append(p.parts, part{kind: partPath, field: "path", want: fullPath(f.Path)})
	}
	p.cheap = len(p.parts)
	more, err := moreParts(f, rd)
	if err != nil {
		return nil, err
	}
	if len(more) > MaxPatternParts {
		return nil, wire.InvalidParameter(wire.Clip(more[MaxPatternParts].field), "a pattern takes at most %d query, header and body parts, got %d", MaxPatternParts, len(more))
	}
	// The cheaper first: a query, then headers, then bodies.
	slices.SortFunc(more, func(a, b part) int { return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.field, b.field)) })
	p.parts = append(p.parts, more...)
	return p, nil
}

// Bounds of a pattern: each part is checked against every entry in its
// scope, and a body part walks its path in each entry's body.
const (
	MaxPatternParts  = 32 // query, header and body parts
	MaxBodyPathDepth = 32 // steps of a body path
)

// moreParts checks and makes the parts of f beyond method and path.
func moreParts(f Filter, rd *Redactor) ([]part, error) {
	var more []part
	for _, name := range slices.Sorted(maps.Keys(f.Query)) {
		field, want := "query."+name, f.Query[name]
		if name == "" {
			return nil, wire.InvalidParameter(field, "must name a query parameter: query.NAME=VALUE")
		}
		p := part{kind: partQuery, field: field, name: name, want: want, secret: rd.Secret(name)}
		if p.secret && want != wire.Redacted {
			return nil, wire.InvalidParameter(field, "%s is journaled redacted, so it cannot be matched by value: give %s, as journaled, to match it by name", name, wire.Redacted)
		}
		more = append(more, p)
	}
	seen := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(f.Header)) {
		field, want := "header."+name, f.Header[name]
		if !wire.IsToken(name) {
			return nil, wire.InvalidParameter(field, "must name a header: header.NAME=VALUE")
		}
		canon := http.CanonicalHeaderKey(name)
		if other, ok := seen[canon]; ok {
			return nil, wire.InvalidParameter(field, "names the same header as header.%s (names are case-insensitive)", other)
		}
		seen[canon] = name
		p := part{kind: partHeader, field: field, name: canon, want: want, secret: rd.Secret(canon)}
		if p.secret && !redactedForm(want) {
			return nil, wire.InvalidParameter(field, "%s is journaled redacted, so it cannot be matched by value: give its scheme alone (Bearer) or as journaled (Bearer %s)", canon, wire.Redacted)
		}
		more = append(more, p)
	}
	for _, path := range slices.Sorted(maps.Keys(f.Body)) {
		field := "body." + path
		segs := strings.Split(path, ".")
		if slices.Contains(segs, "") {
			return nil, wire.InvalidParameter(field, "must be a dotted path into the JSON body, such as body.feedback.0.tone")
		}
		if len(segs) > MaxBodyPathDepth {
			return nil, wire.InvalidParameter(wire.Clip(field), "a body path may have at most %d steps, got %d", MaxBodyPathDepth, len(segs))
		}
		more = append(more, part{kind: partBody, field: field, segs: segs, want: f.Body[path]})
	}
	return more, nil
}

// check reports whether r has the part, and what r has there (nil:
// nothing).
func (p *part) check(r *Record, sc *scan) (bool, *string) {
	sc.charge(scanPartCost)
	switch p.kind {
	case partMethod:
		return strings.EqualFold(p.want, r.Method), &r.Method
	case partPath:
		if prefix, ok := strings.CutSuffix(p.want, "*"); ok {
			return strings.HasPrefix(r.Path, prefix), &r.Path
		}
		return p.want == r.Path, &r.Path
	case partQuery:
		sc.charge(len(r.Query))
		vals := queryValues(r.Query, p.name)
		if vals == nil {
			return false, nil
		}
		if p.secret {
			vals = slices.Repeat([]string{wire.Redacted}, len(vals))
		}
		got := strings.Join(vals, ", ")
		return slices.Contains(vals, p.want), &got
	case partHeader:
		return p.checkHeader(r, sc)
	case partBody:
		got, ok := bodyValue(r.Body, p.segs, sc)
		if !ok {
			return false, nil
		}
		return got == p.want, &got
	}
	return false, nil
}

// checkHeader is check for a header part: a credential is compared as
// the journal shows it, by scheme or whole.
func (p *part) checkHeader(r *Record, sc *scan) (bool, *string) {
	sc.charge(len(r.Header)) // the names looked at, at worst
	vals := headerValues(r.Header, p.name)
	if vals == nil {
		return false, nil
	}
	for _, v := range vals {
		sc.charge(len(v))
	}
	if p.secret {
		vals = redactValues(vals)
	}
	got := strings.Join(vals, ", ")
	if p.secret {
		return slices.ContainsFunc(vals, func(v string) bool {
			scheme, _, _ := strings.Cut(v, " ")
			return strings.EqualFold(v, p.want) || strings.EqualFold(scheme, p.want)
		}), &got
	}
	return got == p.want || slices.Contains(vals, p.want), &got
}

// queryValues returns the decoded values of the query parameter name in
// the raw query. Only & separates parameters, as the API reads them.
func queryValues(raw, name string) []string {
	var out []string
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		k, v, _ := strings.Cut(pair, "=")
		if unescape(k) != name {
			continue
		}
		out = append(out, unescape(v))
	}
	return out
}

// headerValues returns the values of header name, in any case.
func headerValues(h http.Header, name string) []string {
	if vs, ok := h[name]; ok {
		return vs
	}
	for k, vs := range h { // a name net/http kept as sent
		if strings.EqualFold(k, name) {
			return vs
		}
	}
	return nil
}

// matches reports whether r is after since and has every part.
func (p *Pattern) matches(r *Record, sc *scan) bool {
	return r.Seq > p.since && differs(p.parts, r, 0, sc) == 0
}

// matchesCheap is matches on method and path alone.
func (p *Pattern) matchesCheap(r *Record) bool { return differs(p.parts[:p.cheap], r, 0, nil) == 0 }

// differs counts the parts r does not have, stopping at most+1. The
// cheap parts come first, so an entry on another path costs no body
// read once it cannot be a nearest miss.
func differs(parts []part, r *Record, most int, sc *scan) int {
	n := 0
	for i := range parts {
		if ok, _ := parts[i].check(r, sc); !ok {
			if n++; n > most {
				return n
			}
		}
	}
	return n
}

// fullPath is a pattern's path from the root: one written after /api/v1,
// as a fault's path is (/feedbacks), gets it, so both forms match alike.
func fullPath(p string) string {
	head := strings.TrimSuffix(p, "*")
	if p == "*" || strings.HasPrefix("/api/v1/", head) || strings.HasPrefix(head, "/api/") || strings.HasPrefix(head, "/__mock") {
		return p // from the root already, or a prefix of the API's
	}
	return "/api/v1" + p
}
