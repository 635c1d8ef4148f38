package journal

import (
	"bytes"
	"cmp"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/replymock/replymock/mock/internal/wire"
)

// Patterns over the journal: one matcher for listings, verifications
// and waits, in Go and over HTTP alike.

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
	secret bool // a credential header or query parameter: compared as the journal shows it
}

// Pattern is a Filter made ready to match: its scope, its since and its
// parts (its Limit is the caller's to apply).
type Pattern struct {
	scope string // a session id, or AllSessions
	since int64
	parts []part // method and path first: the cheap ones
	cheap int    // how many parts are method and path
}

// Compile checks f's parts and makes a Pattern of them, whose headers and
// query parameters that carry credentials (j's Redactor says which) are
// matched as the journal lists them, redacted. A problem is a 400
// invalid_parameter *wire.APIError naming the part as GET
// /__mock/requests would.
func (j *Journals) Compile(f Filter) (*Pattern, error) { return compile(f, j.Redactor()) }

// compile is Compile with rd telling which headers and query parameters
// are credentials.
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
			return nil, wire.InvalidParameter("path", "must be a path from the root such as /api/v1/feedbacks, or a prefix of one ending in *, got %q", f.Path)
		}
		p.parts = append(p.parts, part{kind: partPath, field: "path", want: f.Path})
	}
	p.cheap = len(p.parts)
	more, err := moreParts(f, rd)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(more, func(a, b part) int { return cmp.Compare(a.field, b.field) })
	p.parts = append(p.parts, more...)
	return p, nil
}

// moreParts checks and makes the parts of f beyond method and path:
// query parameters, headers and body paths.
func moreParts(f Filter, rd *Redactor) ([]part, error) {
	var more []part
	for _, name := range sortedKeys(f.Query) {
		field, want := "query."+name, f.Query[name]
		if name == "" {
			return nil, wire.InvalidParameter(field, "must name a query parameter: query.NAME=VALUE")
		}
		p := part{kind: partQuery, field: field, name: name, want: want, secret: rd.Secret(name)}
		if p.secret && want != Redacted {
			return nil, wire.InvalidParameter(field, "%s is journaled redacted, so it cannot be matched by value: give %s, as journaled, to match it by name", name, Redacted)
		}
		more = append(more, p)
	}
	seen := map[string]string{}
	for _, name := range sortedKeys(f.Header) {
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
			return nil, wire.InvalidParameter(field, "%s is journaled redacted, so it cannot be matched by value: give its scheme alone (Bearer) or as journaled (Bearer %s)", canon, Redacted)
		}
		more = append(more, p)
	}
	for _, path := range sortedKeys(f.Body) {
		field := "body." + path
		segs := strings.Split(path, ".")
		if slices.Contains(segs, "") {
			return nil, wire.InvalidParameter(field, "must be a dotted path into the JSON body, such as body.feedback.0.tone")
		}
		more = append(more, part{kind: partBody, field: field, segs: segs, want: f.Body[path]})
	}
	return more, nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// check reports whether r has the part, and what r has there (nil:
// nothing).
func (p *part) check(r *Record) (bool, *string) {
	switch p.kind {
	case partMethod:
		return strings.EqualFold(p.want, r.Method), &r.Method
	case partPath:
		if prefix, ok := strings.CutSuffix(p.want, "*"); ok {
			return strings.HasPrefix(r.Path, prefix), &r.Path
		}
		return p.want == r.Path, &r.Path
	case partQuery:
		vals := queryValues(r.Query, p.name)
		if vals == nil {
			return false, nil
		}
		if p.secret {
			vals = slices.Repeat([]string{Redacted}, len(vals))
		}
		got := strings.Join(vals, ", ")
		return slices.Contains(vals, p.want), &got
	case partHeader:
		return p.checkHeader(r)
	case partBody:
		got, ok := bodyValue(r.Body, p.segs)
		if !ok {
			return false, nil
		}
		return got == p.want, &got
	}
	return false, nil
}

// checkHeader is check for a header part: a credential header is
// compared as the journal shows it, by scheme or whole.
func (p *part) checkHeader(r *Record) (bool, *string) {
	vals := headerValues(r.Header, p.name)
	if vals == nil {
		return false, nil
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

// queryValues returns the values of the query parameter name in the raw
// query, decoded; nil if it is not there. Only & separates parameters, as
// the API reads them.
func queryValues(raw, name string) []string {
	var out []string
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		k, v, _ := strings.Cut(pair, "=")
		if dk, err := url.QueryUnescape(k); err == nil {
			k = dk
		}
		if k != name {
			continue
		}
		if dv, err := url.QueryUnescape(v); err == nil {
			v = dv
		}
		out = append(out, v)
	}
	return out
}

// headerValues returns the values of header name (canonical), matched
// case-insensitively; nil if it is not there.
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

// bodyValue returns the value at path in a JSON body: a string as it
// is, anything else as its JSON text (numbers as written; objects and
// arrays compacted). An array takes an index; false when the path is not
// there or the body is not JSON.
func bodyValue(body string, path []string) (string, bool) {
	raw := json.RawMessage(body)
	for _, seg := range path {
		var ok bool
		if raw, ok = member(raw, seg); !ok {
			return "", false
		}
	}
	if raw = bytes.TrimSpace(raw); len(raw) > 0 && raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return s, true
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return "", false
	}
	return b.String(), true
}

// member returns the value seg names in a JSON object (by key) or array
// (by index); false when there is none.
func member(raw json.RawMessage, seg string) (json.RawMessage, bool) {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return nil, false
	}
	switch raw[0] {
	case '{':
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return nil, false
		}
		v, ok := obj[seg]
		return v, ok
	case '[':
		i, err := wire.ParseDigits(seg)
		if err != nil {
			return nil, false
		}
		var arr []json.RawMessage
		if json.Unmarshal(raw, &arr) != nil || i >= int64(len(arr)) {
			return nil, false
		}
		return arr[i], true
	}
	return nil, false
}

// matches reports whether r is after since and has every part.
func (p *Pattern) matches(r *Record) bool {
	if r.Seq <= p.since {
		return false
	}
	for i := range p.parts {
		if ok, _ := p.parts[i].check(r); !ok {
			return false
		}
	}
	return true
}

// matchesCheap is matches on method and path alone.
func (p *Pattern) matchesCheap(r *Record) bool {
	for i := range p.parts[:p.cheap] {
		if ok, _ := p.parts[i].check(r); !ok {
			return false
		}
	}
	return true
}

// differs counts the parts r does not have.
func (p *Pattern) differs(r *Record) int {
	n := 0
	for i := range p.parts {
		if ok, _ := p.parts[i].check(r); !ok {
			n++
		}
	}
	return n
}
