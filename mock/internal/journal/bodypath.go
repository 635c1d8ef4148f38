package journal

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/replymock/replymock/mock/internal/wire"
)

// Values at a path in a JSON body, found in one pass over its bytes:
// only the members on the path are looked into, every other value is
// stepped over once, and only the value asked for is decoded. So a body
// part costs the body's size whatever its path (at most
// MaxBodyPathDepth steps), and scan is charged that.

// bodyValue returns the value at path in a JSON body: a string as it
// is, anything else as its JSON text (numbers as written; objects and
// arrays compacted). An array takes an index; an object's key given
// twice means its last value, as decoding the body would. False when
// the path is not there or the body is not JSON.
func bodyValue(body string, path []string, sc *scan) (string, bool) {
	if !sc.validJSON(body) {
		return "", false
	}
	sc.charge(len(body))
	w := walker{v: body, path: path}
	w.value(skipSpace(body, 0), 0)
	if !w.ok {
		return "", false
	}
	sc.charge(len(w.found))
	if w.found[0] == '"' {
		var s string
		if json.Unmarshal(asBytes(w.found), &s) != nil {
			return "", false
		}
		return s, true
	}
	var b bytes.Buffer
	if json.Compact(&b, asBytes(w.found)) != nil {
		return "", false
	}
	return b.String(), true
}

// walker looks for the value at path in v, valid JSON.
type walker struct {
	v     string
	path  []string
	found string // the value at path, when ok
	ok    bool
}

// value steps over the JSON value at v[i] (no space before it), which is
// at path[:d], looking into the members at path[d], and returns the
// index just past it.
func (w *walker) value(i, d int) int {
	v := w.v
	if i >= len(v) {
		return i
	}
	if d == len(w.path) { // the value asked for
		end := skipValue(v, i)
		w.found, w.ok = v[i:end], true
		return end
	}
	switch v[i] {
	case '{':
		for i = skipSpace(v, i+1); i < len(v) && v[i] == '"'; i = skipComma(v, i) {
			end := skipString(v, i)
			key := v[i+1 : end-1]
			i = skipSpace(v, skipSpace(v, end)+1) // past the colon
			if keyIs(key, w.path[d]) {
				// A key given again replaces what its earlier value held.
				w.found, w.ok = "", false
				i = w.value(i, d+1)
			} else {
				i = skipValue(v, i)
			}
		}
		return i + 1 // past the brace
	case '[':
		want, err := wire.ParseDigits(w.path[d])
		if err != nil {
			want = -1
		}
		k := int64(0)
		for i = skipSpace(v, i+1); i < len(v) && v[i] != ']'; i = skipComma(v, i) {
			if k == want {
				i = w.value(i, d+1)
			} else {
				i = skipValue(v, i)
			}
			k++
		}
		return i + 1 // past the bracket
	}
	return skipValue(v, i) // a scalar: no member at path[d]
}

// skipComma steps over the space and the comma after a member or an
// element, and the space after it.
func skipComma(v string, i int) int {
	if i = skipSpace(v, i); i < len(v) && v[i] == ',' {
		i = skipSpace(v, i+1)
	}
	return i
}

// keyIs reports whether the raw JSON string key (without its quotes)
// decodes to name.
func keyIs(key, name string) bool {
	if strings.IndexByte(key, '\\') < 0 && utf8.ValidString(key) {
		return key == name
	}
	var s string
	return json.Unmarshal(asBytes(`"`+key+`"`), &s) == nil && s == name
}

// skipValue returns the index just past the JSON value at v[i] (valid
// JSON, no space before it).
func skipValue(v string, i int) int {
	if i >= len(v) {
		return i
	}
	switch v[i] {
	case '"':
		return skipString(v, i)
	case '{', '[':
		depth := 0
		for ; i < len(v); i++ {
			switch v[i] {
			case '"':
				i = skipString(v, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for i < len(v) { // a number, true, false or null
		switch v[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
		i++
	}
	return i
}

// skipString returns the index just past the JSON string at v[i].
func skipString(v string, i int) int {
	for i++; i < len(v); {
		j := strings.IndexAny(v[i:], `"\`)
		if j < 0 {
			return len(v)
		}
		if i += j; v[i] == '"' {
			return i + 1
		}
		i += 2 // a backslash and the byte it escapes
	}
	return len(v)
}

// skipSpace returns the index of the first byte from i that is not JSON
// white space.
func skipSpace(v string, i int) int {
	for i < len(v) && (v[i] == ' ' || v[i] == '\t' || v[i] == '\r' || v[i] == '\n') {
		i++
	}
	return i
}

// asBytes is s as bytes, without a copy: for reading only.
func asBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
