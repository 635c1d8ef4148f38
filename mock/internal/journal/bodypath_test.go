package journal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/replymock/replymock/mock/internal/wire"
)

// decodedValue is the obviously right body lookup, slow: decode each
// step with encoding/json. bodyValue must agree with it.
func decodedValue(body string, path []string) (string, bool) {
	raw := json.RawMessage(body)
	for _, seg := range path {
		raw = bytes.TrimLeft(raw, " \t\r\n")
		if len(raw) == 0 {
			return "", false
		}
		switch raw[0] {
		case '{':
			var obj map[string]json.RawMessage
			if json.Unmarshal(raw, &obj) != nil {
				return "", false
			}
			v, ok := obj[seg]
			if !ok {
				return "", false
			}
			raw = v
		case '[':
			i, err := wire.ParseDigits(seg)
			var arr []json.RawMessage
			if err != nil || json.Unmarshal(raw, &arr) != nil || i >= int64(len(arr)) {
				return "", false
			}
			raw = arr[i]
		default:
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

func TestBodyValue(t *testing.T) {
	for _, tc := range []struct {
		body, path, want string
		ok               bool
	}{
		{`{"feedback":[{"rating":5,"tone":"formal"}]}`, "feedback.0.tone", "formal", true},
		{`{"feedback":[{"rating":5,"tone":"formal"}]}`, "feedback.0.rating", "5", true},
		{`{"feedback":[{"rating":5},{"rating":4}]}`, "feedback.1", `{"rating":4}`, true},
		{`{"feedback":[{"rating":5}]}`, "feedback.1", "", false},
		{`{"feedback":[{"rating":5}]}`, "feedback.x", "", false},
		{`{"feedback":[{"rating":5}]}`, "feedback.007", "", false},
		{` { "a" : { "b" : [ 1 , 2.50 , null ] } } `, "a.b", "[1,2.50,null]", true},
		{`{"a":{"b":[1,2.50,null]}}`, "a.b.1", "2.50", true},
		{`{"a":{"b":[1,2.50,null]}}`, "a.b.2", "null", true},
		{`{"a":1,"a":2}`, "a", "2", true},               // the last of a key given twice
		{`{"a":{"b":1},"a":{"c":2}}`, "a.b", "", false}, // the last a has no b
		{`{"a":{"b":1},"a":{"c":2}}`, "a.c", "2", true},
		{`{"a":{"b":1},"a":5}`, "a.b", "", false},                // a scalar has no members
		{`{"a\u0062":"escaped key"}`, "ab", "escaped key", true}, // a key with an escape
		{`{"a":"say \"hi\"\n"}`, "a", "say \"hi\"\n", true},
		{`{"a":"}{][,:\\"}`, "a", `}{][,:\`, true},
		{`{"0":"key"}`, "0", "key", true},
		{`["x","y"]`, "1", "y", true},
		{`{"a":1}trailing`, "a", "", false}, // not JSON
		{`{"a":1,}`, "a", "", false},
		{`{"a":`, "a", "", false},
		{``, "a", "", false},
		{`"just a string"`, "a", "", false},
		{`{"a":{}}`, "a", "{}", true},
		{`{"a":[]}`, "a.0", "", false},
		{`{"a":true,"b":false}`, "b", "false", true},
		{`{"ключ":"значение"}`, "ключ", "значение", true},
	} {
		path := strings.Split(tc.path, ".")
		got, ok := bodyValue(tc.body, path, newScan())
		if got != tc.want || ok != tc.ok {
			t.Errorf("bodyValue(%s, %s) = %q, %v; want %q, %v", tc.body, tc.path, got, ok, tc.want, tc.ok)
		}
		if rg, rok := decodedValue(tc.body, path); rg != got || rok != ok {
			t.Errorf("bodyValue(%s, %s) = %q, %v; decoding says %q, %v", tc.body, tc.path, got, ok, rg, rok)
		}
	}
}

// bodyValue agrees with decoding on random bodies and paths: nested
// objects and arrays, keys given twice, escapes, spaces.
func TestBodyValueAgainstDecoding(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	keys := []string{"a", "b", "0", "1", `c\"d`, "é"}
	var gen func(depth int) string
	gen = func(depth int) string {
		sp := []string{"", " ", "\n\t"}[rng.IntN(3)]
		switch k := rng.IntN(8); {
		case depth > 3 || k < 3:
			return []string{`1`, `-2.5e3`, `"s"`, `"x\"y\\"`, `true`, `null`, `"\u00e9"`}[rng.IntN(7)]
		case k < 6:
			var b strings.Builder
			b.WriteString("{" + sp)
			for i := range rng.IntN(4) {
				if i > 0 {
					b.WriteString("," + sp)
				}
				fmt.Fprintf(&b, `"%s"%s:%s%s`, keys[rng.IntN(len(keys))], sp, sp, gen(depth+1))
			}
			return b.String() + sp + "}"
		default:
			var b strings.Builder
			b.WriteString("[" + sp)
			for i := range rng.IntN(4) {
				if i > 0 {
					b.WriteString("," + sp)
				}
				b.WriteString(gen(depth + 1))
			}
			return b.String() + sp + "]"
		}
	}
	segs := []string{"a", "b", "0", "1", "2", "00", "c\"d", "é", "x"}
	for range 20_000 {
		body := gen(0)
		path := make([]string, 1+rng.IntN(4))
		for i := range path {
			path[i] = segs[rng.IntN(len(segs))]
		}
		got, ok := bodyValue(body, path, newScan())
		if want, wok := decodedValue(body, path); got != want || ok != wok {
			t.Fatalf("bodyValue(%s, %q) = %q, %v; decoding says %q, %v", body, path, got, ok, want, wok)
		}
	}
}

func FuzzBodyValue(f *testing.F) {
	f.Add(`{"feedback":[{"rating":5,"tone":"formal"}]}`, "feedback.0.tone")
	f.Add(`{"a":{"b":1},"a":{"c":2}}`, "a.c")
	f.Add(`[1,[2,[3]]]`, "1.1.0")
	f.Fuzz(func(t *testing.T, body, path string) {
		segs := strings.Split(path, ".")
		got, ok := bodyValue(body, segs, newScan())
		if want, wok := decodedValue(body, segs); got != want || ok != wok {
			t.Errorf("bodyValue(%q, %q) = %q, %v; decoding says %q, %v", body, path, got, ok, want, wok)
		}
	})
}
