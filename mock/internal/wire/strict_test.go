package wire

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

type strictInner struct {
	Name  string            `json:"name"`
	Tags  []string          `json:"tags,omitempty"`
	Extra map[string]string `json:"extra"`
}

type strictBase struct {
	ID   string `json:"id"`
	Kind string `json:"kind,omitempty"`
}

type strictDoc struct {
	strictBase
	Items  []strictInner          `json:"items"`
	ByName map[string]strictInner `json:"by_name"`
	When   time.Time              `json:"when"`
	Raw    json.RawMessage        `json:"raw"`
	Any    any                    `json:"any"`
	Ptr    *strictInner           `json:"ptr"`
	Wait   Duration               `json:"wait"`
	N      uint8                  `json:"n"`
}

// DecodeStrict takes a body that names only known fields, each once,
// and refuses any other with the field it is about.
func TestDecodeStrict(t *testing.T) {
	for _, tc := range []struct {
		body, want string // want: the error, "" for none
	}{
		{`{}`, ""},
		{`{"id":"a","kind":"k","items":[{"name":"x","tags":["a"]},null]}`, ""},
		{`{"when":"2026-01-02T03:04:05Z","raw":{"x":[1,{"y":2}]},"any":{"free":1},"wait":"2s"}`, ""},
		{`{"\u0069d":"escaped"}`, ""},
		{`{"ID":"a"}`, "400 invalid_body: ID: unknown field"},
		{`{"items":[{"name":"x","nope":1}]}`, "400 invalid_body: items[0].nope: unknown field"},
		{`{"by_name":{"a":{"name":"y","what":1}}}`, "400 invalid_body: by_name.a.what: unknown field"},
		{`{"ptr":{"bad":true}}`, "400 invalid_body: ptr.bad: unknown field"},
		{`{"id":"a","id":"b"}`, "400 invalid_body: id: duplicate key"},
		{`{"id":1}`, "400 invalid_body: id: must be a string, got number"},
		{`{"items":[{"name":{}}]}`, "400 invalid_body: items[0].name: must be a string, got object"},
		{`{"n":1.5}`, "400 invalid_body: n: must be an integer, got 1.5"},
		{`{"n":300}`, "400 invalid_body: n: must be an integer, got 300"},
		{`{"wait":"5x"}`, `400 invalid_body: wait: must be a duration such as "250ms" or "2s", got "5x"`},
		{`[]`, "400 invalid_body: must be an object, got array"},
		{"{\"id\":\"\xff\"}", "400 invalid_body: malformed JSON: invalid UTF-8 (at byte 7)"},
		{`{"id":"a"} {}`, "400 invalid_body: malformed JSON: invalid character '{' after top-level value (at byte 11)"},
		{`{"id":"a",}`, "400 invalid_body: malformed JSON: invalid character ',' at start of value (at byte 9)"},
		{`{"id":"a"`, "400 invalid_body: malformed JSON: unexpected end of input"},
		{``, "400 invalid_body: malformed JSON: unexpected end of input"},
		{`{"any":` + strings.Repeat("[", 10_001), "400 invalid_body: malformed JSON: exceeded max depth (at byte 10006)"},
	} {
		var doc strictDoc
		err := DecodeStrict([]byte(tc.body), &doc)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%.60s: error %q, want %q", tc.body, got, tc.want)
		}
	}
}
