package wire

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// Params is what a route takes in its query string, and what it does
// with the rest. Every route reads its query through ReadQuery, so a
// mistake is worded alike on every route.
type Params struct {
	Names []string
	// Prefixes are families of parameters the route takes ("query." for
	// query.NAME).
	Prefixes []string
	// Shown, when set, is how the refusal of an unknown parameter lists
	// what the route takes ("query.NAME" for the prefix "query.");
	// empty means Names then Prefixes as written.
	Shown []string
	// IgnoreUnknown skips other parameters, as the API does (its
	// warnings tell the client). Otherwise an unknown one is a 400.
	IgnoreUnknown bool
}

// Query holds a request's known query parameters, decoded, in order. A
// repeated parameter is an error only when it is read.
type Query struct {
	pairs []param
}

type param struct{ name, value string }

// ReadQuery decodes rawQuery's parameters that p knows. Only "&"
// separates parameters.
func ReadQuery(rawQuery string, p *Params) (Query, error) {
	var q Query
	if rawQuery != "" {
		q.pairs = make([]param, 0, strings.Count(rawQuery, "&")+1)
	}
	for part := range strings.SplitSeq(rawQuery, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		key, err := url.QueryUnescape(k)
		known := err == nil && p.knows(key)
		switch {
		case !known && p.IgnoreUnknown:
			continue
		case err != nil:
			return Query{}, InvalidParameter(Clip(k), "malformed percent-encoding in %q", Clip(k))
		case key == "":
			return Query{}, InvalidParameter(Clip(part), "a parameter without a name")
		case !known:
			return Query{}, InvalidParameter(Clip(key), "unknown parameter; this route takes %s", p.shown())
		}
		val, err := url.QueryUnescape(v)
		if err != nil {
			return Query{}, InvalidParameter(key, "malformed percent-encoding in %q", Clip(v))
		}
		q.pairs = append(q.pairs, param{key, val})
	}
	return q, nil
}

func (p *Params) knows(key string) bool {
	if slices.Contains(p.Names, key) {
		return true
	}
	for _, pre := range p.Prefixes {
		if len(key) > len(pre) && strings.HasPrefix(key, pre) {
			return true
		}
	}
	return false
}

// shown lists what the route takes: "a, b and c".
func (p *Params) shown() string {
	all := p.Shown
	if len(all) == 0 {
		all = append(slices.Clip(p.Names), p.Prefixes...)
	}
	if len(all) == 0 {
		return "no parameters"
	}
	return JoinWords(all, "and")
}

// Get returns the value of the parameter name, whether it was given,
// and an error if it was given more than once.
func (q Query) Get(name string) (string, bool, error) {
	var v string
	n := 0
	for _, p := range q.pairs {
		if p.name == name {
			v = p.value
			n++
		}
	}
	switch {
	case n == 0:
		return "", false, nil
	case n > 1:
		return "", false, InvalidParameter(name, "given %d times; give it at most once", n)
	}
	return v, true, nil
}

// Names are the names given, each once, in the order they first came.
func (q Query) Names() []string {
	var names []string
	for _, p := range q.pairs {
		if !slices.Contains(names, p.name) {
			names = append(names, p.name)
		}
	}
	return names
}

// Int reads the parameter name as plain decimal digits within [lo, hi];
// want says what it takes in the error ("an integer from 1 to 5").
func (q Query) Int(name string, lo, hi int64, want string) (int64, bool, error) {
	v, ok, err := q.Get(name)
	if err != nil || !ok {
		return 0, false, err
	}
	n, perr := ParseDigits(v)
	if perr != nil || n < lo || n > hi {
		return 0, false, InvalidParameter(name, "must be %s, got %q", want, Clip(v))
	}
	return n, true, nil
}

// ParseDigits parses a non-empty string of ASCII digits that fits in
// int64: no sign.
func ParseDigits(s string) (int64, error) {
	n, err := strconv.ParseUint(s, 10, 63)
	return int64(n), err
}

// IsToken reports whether s is an HTTP token (a method or header name).
func IsToken(s string) bool { return httpguts.ValidHeaderFieldName(s) }
