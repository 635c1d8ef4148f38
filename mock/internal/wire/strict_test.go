package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

// decodeLikeDecoder is DecodeStrict as it was, all through encoding/json's
// Decoder: the reference the one that reads in place must agree with.
func decodeLikeDecoder(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) && ute.Field != "" {
			return InvalidBody(ute.Field, "must be %s, got %s", jsonWant(ute.Type), ute.Value)
		}
		return InvalidBody("", "%s", JSONProblem(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return InvalidBody("", "unexpected data after the JSON value")
	}
	return nil
}

type strictInner struct {
	Name  string            `json:"name"`
	Tags  []string          `json:"tags,omitempty"`
	Extra map[string]string `json:"extra"`
	skip  int
}

type strictBase struct {
	ID   string `json:"id"`
	Kind string `json:"kind,omitempty"`
}

type strictDoc struct {
	strictBase
	Items   []strictInner          `json:"items"`
	ByName  map[string]strictInner `json:"by_name"`
	When    time.Time              `json:"when"`
	Raw     json.RawMessage        `json:"raw"`
	Any     any                    `json:"any"`
	Ptr     *strictInner           `json:"ptr"`
	Fixed   [2]strictInner         `json:"fixed"`
	Ignored string                 `json:"-"`
	Dash    string                 `json:"-,"`
	Plain   int
}

// DecodeStrict answers every body as the Decoder does, value and
// refusal alike, whether it takes the way in place or not.
func TestDecodeStrictAgrees(t *testing.T) {
	for _, body := range []string{
		`{}`, `{"id":"a","kind":"k"}`, `{"ID":"a","KIND":"k"}`, `{"Id":"a"}`,
		`{"items":[{"name":"x","tags":["a","b"]},{"name":"y","extra":{"any":"thing"}}]}`,
		`{"items":[{"name":"x","nope":1}]}`, `{"items":[{"name":"x"}],"nope":[1,2]}`,
		`{"by_name":{"a":{"name":"x"},"b":{"name":"y","what":1}}}`, `{"by_name":{"a":{"name":"x"}}}`,
		`{"when":"2026-01-02T03:04:05Z","raw":{"anything":[1,{"x":2}]},"any":{"free":{"form":1}}}`,
		`{"ptr":{"name":"p"}}`, `{"ptr":{"name":"p","bad":true}}`, `{"ptr":null}`,
		`{"fixed":[{"name":"a"},{"name":"b"},{"name":"c","z":1}]}`, `{"fixed":[{"name":"a","z":1}]}`,
		`{"Ignored":"x"}`, `{"-":"dash"}`, `{"Plain":1}`, `{"plain":2}`, `{"skip":1}`,
		`{"id":"a"} {"id":"b"}`, `{"id":"a"}x`, `{"id":1}`, `{"items":{}}`, `[]`, `"x"`, ``, `{"id":"a",}`,
		`{"\u0069d":"escaped"}`, `{"i\u0064":"escaped","nope":1}`, `{"id":"a","id":"b"}`, `{"ſd":"fold"}`,
		`{"items":[{"name":"x"}],"items":[{"name":"y","q":1}]}`, `{"raw":[1,2`, `{"items":[null,{"name":null}]}`,
		`{"id":1,"nope":2}`, `{"nope":2,"id":1}`, `{"id":1,"kind":2}`, `{"items":[{"name":1}],"Plain":"x"}`, `{"Plain":"x"}`,
		`{"items":[{"name":{}}]}`, `{"fixed":[{"name":1},{"tags":"x"}]}`, `{"by_name":{"a":{"name":[]}},"q":1}`, `1`, `{"when":5}`,
	} {
		var got, want strictDoc
		errGot, errWant := DecodeStrict([]byte(body), &got), decodeLikeDecoder([]byte(body), &want)
		if fmt.Sprint(errGot) != fmt.Sprint(errWant) || !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %+v, %v\nwant %+v, %v", body, got, errGot, want, errWant)
		}
	}
}

// A valid body is decoded from where it is: a large one costs what it
// holds, without the Decoder's copies of it (the body again, in buffers
// that double as they fill).
func TestDecodeStrictInPlace(t *testing.T) {
	body := []byte(`{"items":[` + strings.Repeat(`{"name":"x","tags":["a"]},`, 50_000) + `{"name":"y"}]}`)
	inPlace := allocated(func() {
		var doc strictDoc
		if err := DecodeStrict(body, &doc); err != nil {
			t.Fatal(err)
		}
	})
	copied := allocated(func() {
		var doc strictDoc
		if err := decodeLikeDecoder(body, &doc); err != nil {
			t.Fatal(err)
		}
	})
	if inPlace+uint64(len(body)) > copied {
		t.Errorf("%d bytes of body: %d allocated in place, %d by the Decoder", len(body), inPlace, copied)
	}
}

// allocated is how many bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
