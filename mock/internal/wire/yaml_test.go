package wire

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// YAML is read as the JSON it stands for: keys in order, each scalar as
// the JSON value of its tag, strings as encoding/json writes them.
func TestYAMLToJSON(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"b: 1\na: [x, 2, true, ~, 1.5]\n", `{"b":1,"a":["x",2,true,null,1.5]}`},
		{"n: 0x10\nm: -7\nf: 1e3\no: 0o17\n", `{"n":16,"m":-7,"f":1000,"o":15}`},
		{"big: 99999999999999999999\n", `{"big":100000000000000000000}`}, // too big for 64 bits: YAML's float
		{"big: !!int 99999999999999999999\nneg: !!int -99999999999999999999\n", `{"big":99999999999999999999,"neg":-99999999999999999999}`},
		{"d: 2026-05-01 10:00:00\ns: '5'\nq: \"<b>&\"\n", `{"d":"2026-05-01 10:00:00","s":"5","q":"<b>&"}`},
		{"t: \"\\u2028\\xff\\t\\\\\\\"\"\n", `{"t":"\u2028ÿ\t\\\""}`},
		{"inf: .inf\n", `{"inf":".inf"}`}, // no JSON number: a string, which the decoder refuses where it wants one
		{"- {a: {b: [1]}}\n", `[{"a":{"b":[1]}}]`},
		{"", ``},
		{"# nothing\n", ``},
	} {
		got, err := YAMLToJSON([]byte(tc.yaml))
		if err != nil || string(got) != tc.want {
			t.Errorf("YAMLToJSON(%q) = %s, %v; want %s", tc.yaml, got, err, tc.want)
		}
		if len(got) > 0 && !json.Valid(got) {
			t.Errorf("YAMLToJSON(%q) = %s: not JSON", tc.yaml, got)
		}
	}
}

// What YAML has and JSON has not is refused, naming where.
func TestYAMLToJSONRefuses(t *testing.T) {
	for _, tc := range []struct{ yaml, field, msg string }{
		{"a: &x {b: 1}\nc: *x\n", "c", "YAML: anchors and aliases are not supported (line 2)"},
		{"r:\n  - {<<: {a: 1}}\n", "r[0]", "YAML: keys must be plain names, at line 2"},
		{"r: {[a]: 1}\n", "r", "YAML: keys must be plain names, at line 1"},
		{"a: [\n", "", "YAML: line 1: did not find expected node content"},
		{":\n- ]", "", "YAML: did not find expected key"},
	} {
		_, err := YAMLToJSON([]byte(tc.yaml))
		e, ok := err.(*APIError)
		if !ok || e.Code != CodeInvalidBody || e.Field != tc.field || !strings.HasPrefix(e.Message, tc.msg) {
			t.Errorf("YAMLToJSON(%q) = %v; want %s: %s", tc.yaml, err, tc.field, tc.msg)
		}
	}
}

// A document body is JSON or YAML by its Content-Type, each within its
// own limits, and the limit it passes is said; what the shape bounds, and
// YAML's values, are refused before the body is decoded.
func TestReadDocument(t *testing.T) {
	read := func(ct, body string, length int64) ([]byte, error) {
		r := httptest.NewRequest(http.MethodPut, "/", strings.NewReader(body))
		r.Header.Set("Content-Type", ct)
		if length >= 0 {
			r.ContentLength = length
		}
		return ReadDocument(r, &Body{Limit: 20, Bound: "json bound", YAMLLimit: 10, YAMLNodes: 12, YAMLBound: "yaml bound",
			Shape: &Shape{What: "a test body", Items: 10, Array: 3, Members: 3}})
	}
	for _, tc := range []struct {
		ct, body string
		length   int64
		want     string
		status   int
		msg      string
	}{
		{"application/json", `{"a":1}`, -1, `{"a":1}`, 0, ""},
		{"application/json; charset=utf-8", `{"a":"b"}`, -1, `{"a":"b"}`, 0, ""},
		{"application/yaml", "a: 1", -1, `{"a":1}`, 0, ""},
		{"application/x-yaml", "a: b", -1, `{"a":"b"}`, 0, ""},
		{"text/yaml; charset=utf-8", "[1]", -1, `[1]`, 0, ""},
		{"text/plain", "{}", -1, "", 415, `Content-Type must be application/json, or for YAML application/yaml, application/x-yaml or text/yaml; got "text/plain"`},
		{"", "{}", -1, "", 415, `Content-Type must be application/json, or for YAML application/yaml, application/x-yaml or text/yaml; got ""`},
		{"application/json", strings.Repeat(" ", 21), -1, "", 413, "request body is larger than 20 bytes (json bound)"},
		{"application/json", "{}", 21, "", 413, "request body is larger than 20 bytes (json bound)"}, // refused unread, by its length
		{"application/yaml", strings.Repeat(" ", 11), -1, "", 413, "request body is larger than 10 bytes (yaml bound)"},
		{"application/json", strings.Repeat(" ", 15), -1, strings.Repeat(" ", 15), 0, ""}, // over the YAML limit, within JSON's
		{"application/yaml", "a: *x", -1, "", 400, "YAML: "},
		{"application/json", "[1,2,3,4]", -1, "", 400, "at most 3 elements, got 4: more than a test body ever holds"},
		{"application/yaml", "[1,2,3,4]", -1, "", 400, "at most 3 elements, got 4"},
		{"application/yaml", "[1,2,3]", -1, `[1,2,3]`, 0, ""},
		{"application/yaml", "?\n?\n?\n?\n?\n", -1, "", 413, "the YAML body may hold more than 12 values (keys, values, lists and maps, counted by its lines and punctuation), and YAML costs many times its size to read (yaml bound)"},
	} {
		got, err := read(tc.ct, tc.body, tc.length)
		if tc.status == 0 {
			if err != nil || string(got) != tc.want {
				t.Errorf("%s %q: %s, %v; want %s", tc.ct, tc.body, got, err, tc.want)
			}
			continue
		}
		e, ok := err.(*APIError)
		if !ok || e.Status != tc.status || !strings.HasPrefix(e.Message, tc.msg) {
			t.Errorf("%s %q: %v; want %d %s", tc.ct, tc.body, err, tc.status, tc.msg)
		}
	}
}

// What a body may cost is JSONCost times its length (its limit without
// one); as YAML, YAMLCost times its length and YAMLValueCost for each
// value it may hold, no more than YAMLNodes counts in as many bytes.
func TestBodyCost(t *testing.T) {
	b := &Body{Limit: 1000, YAMLLimit: 100, YAMLNodes: 50}
	for _, tc := range []struct {
		ct     string
		length int64
		want   int64
	}{
		{"application/json", 10, JSONCost * 10},
		{"application/json", -1, JSONCost * 1000},
		{"application/json", 5000, JSONCost * 1000},
		{"application/yaml", 10, YAMLCost*10 + YAMLValueCost*32},
		{"text/yaml", 100, YAMLCost*100 + YAMLValueCost*50},
		{"application/x-yaml", -1, YAMLCost*100 + YAMLValueCost*50},
	} {
		r := httptest.NewRequest(http.MethodPut, "/", strings.NewReader(""))
		r.Header.Set("Content-Type", tc.ct)
		r.ContentLength = tc.length
		if got := b.Cost(r); got != tc.want {
			t.Errorf("%s of %d bytes: %d; want %d", tc.ct, tc.length, got, tc.want)
		}
	}
}

// A body announced big but sent a byte at a time holds the first chunk's
// buffer, not its announced length, until its bytes come.
func TestAnnouncedBodyCostsWhatCame(t *testing.T) {
	const announced = 8 << 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := readAnnounced(io.MultiReader(strings.NewReader("0123456789"), iotest.ErrReader(io.ErrUnexpectedEOF)), announced)
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("a body cut short was read")
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 2*firstChunk {
		t.Errorf("a body of 10 bytes announced as %d allocated %d bytes; want at most %d", announced, got, 2*firstChunk)
	}
	body, err := readAnnounced(strings.NewReader(strings.Repeat("x", firstChunk+10)), firstChunk+10)
	if err != nil || len(body) != firstChunk+10 {
		t.Fatalf("a whole body: %d bytes, %v", len(body), err)
	}
	if _, err := readAnnounced(strings.NewReader("0123456789"), 5); err == nil {
		t.Error("a body longer than announced was read")
	}
}
