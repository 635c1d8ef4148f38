package journal

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/replymock/replymock/mock/internal/wire"
)

// bodyValue returns the value at path in a JSON body: a string as it
// is, anything else as its JSON text, compacted. A key given twice means
// its last value, as decoding would. False when the path is not there
// or the body is not JSON.
//
// The body is read once as tokens, and only the value asked for is
// decoded, so a body part costs the body's size whatever its path.
func bodyValue(body string, path []string, sc *scan) (string, bool) {
	sc.charge(len(body))
	// From a bytes.Buffer, the decoder reads the body in place.
	dec := jsontext.NewDecoder(bytes.NewBuffer(asBytes(body)),
		jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	v, ok := find(dec, path)
	if _, err := dec.ReadToken(); err != io.EOF {
		return "", false // not JSON, or more than one value
	}
	if !ok {
		return "", false
	}
	sc.charge(len(v))
	if v.Kind() == '"' {
		var s string
		if json.Unmarshal(v, &s) != nil {
			return "", false
		}
		return s, true
	}
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return "", false
	}
	return b.String(), true
}

// find reads the next value from dec and returns what it holds at path.
func find(dec *jsontext.Decoder, path []string) (jsontext.Value, bool) {
	if len(path) == 0 {
		v, err := dec.ReadValue()
		return bytes.Clone(v), err == nil
	}
	var found jsontext.Value
	ok := false
	switch dec.PeekKind() {
	case '{':
		if _, err := dec.ReadToken(); err != nil {
			return nil, false
		}
		for dec.PeekKind() == '"' {
			name, err := dec.ReadToken()
			if err != nil {
				return nil, false
			}
			if name.String() == path[0] {
				// A key given again replaces what its earlier value held.
				found, ok = find(dec, path[1:])
			} else if dec.SkipValue() != nil {
				return nil, false
			}
		}
	case '[':
		if _, err := dec.ReadToken(); err != nil {
			return nil, false
		}
		want, err := wire.ParseDigits(path[0])
		if err != nil {
			want = -1
		}
		for i := int64(0); dec.PeekKind() != ']' && dec.PeekKind() != 0; i++ {
			if i == want {
				found, ok = find(dec, path[1:])
			} else if dec.SkipValue() != nil {
				return nil, false
			}
		}
	default: // a scalar: no member at path[0]
		dec.SkipValue()
		return nil, false
	}
	if _, err := dec.ReadToken(); err != nil { // the closing brace or bracket
		return nil, false
	}
	return found, ok
}
