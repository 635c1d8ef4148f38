package wire

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestStatusError(t *testing.T) {
	for _, tc := range []struct {
		status int
		code   string
	}{
		{400, CodeInvalidParameter}, {404, CodeNotFound}, {429, CodeRateLimited},
		{418, "i_m_a_teapot"}, {599, "status_599"},
	} {
		if got := StatusError(tc.status); got.Code != tc.code || got.Status != tc.status {
			t.Errorf("StatusError(%d) = %d %s, want %s", tc.status, got.Status, got.Code, tc.code)
		}
	}
}

func TestDecoders(t *testing.T) {
	for _, tc := range []struct {
		name, raw, want string
		decode          func(raw []byte) error
	}{
		{"half a surrogate", `"a\ud800b"`, `\ud800 (character 2) is half of a surrogate pair`,
			func(raw []byte) error { _, err := DecodeString(raw, "x"); return err }},
		{"not UTF-8", "\"a\xffb\"", "byte 0xff (character 2) is not UTF-8",
			func(raw []byte) error { _, err := DecodeString(raw, "x"); return err }},
		{"a number for a string", `12`, "must be a string, got number",
			func(raw []byte) error { _, err := DecodeString(raw, "x"); return err }},
		{"a fraction for an integer", `1.5`, "must be an integer, got 1.5",
			func(raw []byte) error { _, err := DecodeInt(raw, "x"); return err }},
		{"duplicate key", `{"a":1,"a":2}`, "x.a: duplicate key",
			func(raw []byte) error {
				return EachMember(raw, "x", func(string, json.RawMessage) error { return nil })
			}},
		{"trailing data", `{"a":1} 2`, "after top-level value",
			func(raw []byte) error {
				return EachMember(raw, "x", func(string, json.RawMessage) error { return nil })
			}},
		{"an object for an array", `{}`, "must be an array, got object",
			func(raw []byte) error { return EachElement(raw, "x", func(int, json.RawMessage) error { return nil }) }},
		{"an unknown field", `{"b":1}`, "b: unknown field",
			func(raw []byte) error { var v struct{ A int }; return DecodeStrict(raw, &v) }},
		{"a wrong type", `{"A":"1"}`, "A: must be an integer, got string",
			func(raw []byte) error { var v struct{ A int }; return DecodeStrict(raw, &v) }},
	} {
		err := tc.decode([]byte(tc.raw))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %s: error %v, want one holding %q", tc.name, tc.raw, err, tc.want)
		}
		if e, ok := err.(*APIError); !ok || e.Code != CodeInvalidBody {
			t.Errorf("%s: error %#v, want an invalid_body APIError", tc.name, err)
		}
	}
	if s, err := DecodeString([]byte(`"\ud83d\ude00 ё"`), "x"); err != nil || s != "😀 ё" {
		t.Errorf("a surrogate pair: %q, %v", s, err)
	}
}

func TestPrefixed(t *testing.T) {
	got := Prefixed("faults[2]", []FieldProblem{{Field: "", Msg: "a"}, {Field: "latency.p99", Msg: "b"}})
	want := []FieldProblem{{Field: "faults[2]", Msg: "a"}, {Field: "faults[2].latency.p99", Msg: "b"}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("Prefixed = %v, want %v", got, want)
	}
}

func TestWriteErrorHidesInternals(t *testing.T) {
	rec := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, "/x", nil)
	var logged strings.Builder
	WriteError(rec, r, slogTo(&logged), errString("secret detail"))
	if rec.Code != 500 || strings.Contains(rec.Body.String(), "secret") || !strings.Contains(logged.String(), "secret") {
		t.Errorf("a plain error: %d %s (logged %q): want a 500 without it, logged", rec.Code, rec.Body, logged.String())
	}
	rec = httptest.NewRecorder()
	WriteError(rec, r, slogTo(&logged), &APIError{Status: 429, Code: CodeRateLimited, Message: "slow down", RetryAfter: 1500e6})
	if rec.Code != 429 || rec.Header().Get("Retry-After") != "2" ||
		rec.Body.String() != `{"success":false,"data":null,"error":{"code":"rate_limited","message":"slow down"}}` {
		t.Errorf("an APIError: %d Retry-After %q %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

func slogTo(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }
