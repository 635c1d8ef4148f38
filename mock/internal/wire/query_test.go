package wire

import (
	"strings"
	"testing"
)

// Every refusal of ReadQuery and Query, worded one way for every route.
func TestReadQueryRefusals(t *testing.T) {
	api := &Params{Names: []string{"limit", "search"}, IgnoreUnknown: true}
	admin := &Params{Names: []string{"session", "since"}, Prefixes: []string{"query."},
		Shown: []string{"session", "since", "query.NAME"}}
	for _, tc := range []struct {
		raw         string
		p           *Params
		read        string // the parameter read after decoding; "" for none
		field, want string // the refusal; "" for none
	}{
		{"limit=5&limit=6", api, "limit", "limit", "given 2 times; give it at most once"},
		{"limit=%zz", api, "limit", "limit", `malformed percent-encoding in "%zz"`},
		{"%zz=1&limit=5", api, "limit", "", ""},     // an unknown name is not decoded
		{"other=%zz&limit=5", api, "limit", "", ""}, // nor an unknown value
		{"=1&&limit=5", api, "limit", "", ""},       // nameless and empty parts are skipped
		{"limit=x", api, "limit", "limit", `must be an integer from 1 to 100, got "x"`},
		{"limit=-1", api, "limit", "limit", `must be an integer from 1 to 100, got "-1"`},
		{"limit=%2B1", api, "limit", "limit", `must be an integer from 1 to 100, got "+1"`},
		{"limit=99999999999999999999", api, "limit", "limit", "must be an integer from 1 to 100"},
		{"sesion=a", admin, "", "sesion", "unknown parameter; this route takes session, since and query.NAME"},
		{"query.=a", admin, "", "query.", "unknown parameter"},
		{"query.x=a&query.x=b", admin, "query.x", "query.x", "given 2 times; give it at most once"},
		{"=1", admin, "", "=1", "a parameter without a name"},
		{"%zz=1", admin, "", "%zz", `malformed percent-encoding in "%zz"`},
		{"since=%2", admin, "", "since", `malformed percent-encoding in "%2"`},
		{strings.Repeat("x", 300) + "=1", admin, "", strings.Repeat("x", MaxQuoted) + "…", "unknown parameter"},
	} {
		q, err := ReadQuery(tc.raw, tc.p)
		if err == nil && tc.read != "" {
			_, _, err = q.Int(tc.read, 1, 100, "an integer from 1 to 100")
		}
		if tc.want == "" {
			if err != nil {
				t.Errorf("?%s: %v, want no error", tc.raw, err)
			}
			continue
		}
		e, ok := err.(*APIError)
		if !ok || e.Code != CodeInvalidParameter || e.Field != tc.field || !strings.Contains(e.Message, tc.want) {
			t.Errorf("?%s: %v, want invalid_parameter %s: %s", tc.raw, err, tc.field, tc.want)
		}
	}
}

func TestReadQueryValues(t *testing.T) {
	q, err := ReadQuery("b=2&a=%D1%91&b=3&query.x=+y&c", &Params{Names: []string{"a", "b", "c"}, Prefixes: []string{"query."}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(q.Names(), ","); got != "b,a,query.x,c" {
		t.Errorf("Names = %s", got)
	}
	if v, ok, err := q.Get("a"); v != "ё" || !ok || err != nil {
		t.Errorf("Get(a) = %q, %v, %v", v, ok, err)
	}
	if v, ok, err := q.Get("query.x"); v != " y" || !ok || err != nil {
		t.Errorf("Get(query.x) = %q, %v, %v", v, ok, err)
	}
	if v, ok, err := q.Get("c"); v != "" || !ok || err != nil {
		t.Errorf("Get(c) = %q, %v, %v: given without a value", v, ok, err)
	}
	if _, ok, err := q.Get("d"); ok || err != nil {
		t.Errorf("Get(d): given %v, %v", ok, err)
	}
	if n, ok, err := q.Int("e", 0, 5, "x"); n != 0 || ok || err != nil {
		t.Errorf("Int(e) of nothing: %d %v %v", n, ok, err)
	}
}

func TestIsToken(t *testing.T) {
	for s, want := range map[string]bool{"GET": true, "X-Mock-Session": true, "a.b~c": true,
		"": false, "GE T": false, "a:b": false, "ё": false, "a\x7f": false, "a\x00": false} {
		if IsToken(s) != want {
			t.Errorf("IsToken(%q) = %v, want %v", s, !want, want)
		}
	}
}
