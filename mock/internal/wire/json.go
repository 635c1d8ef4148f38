package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// MaxBodyBytes is the largest request body the API accepts (413 above it).
const MaxBodyBytes = 1 << 20

const (
	ContentTypeJSON = "application/json; charset=utf-8"
	ContentTypeYAML = "application/yaml; charset=utf-8"
)

// MarshalJSON encodes v without HTML escaping, so review texts such as
// "<b>" stay readable in raw responses, and without a trailing newline.
func MarshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// WriteJSON writes v as the whole response body with the contract's
// Content-Type. Values written here are built by the server itself, so an
// encoding failure is a programming error: it is answered as a bare 500.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	body, err := MarshalJSON(v)
	if err != nil {
		status = http.StatusInternalServerError
		body = []byte(`{"success":false,"data":null,"error":{"code":"internal_error","message":"response encoding failed"}}`)
	}
	WriteBody(w, status, body)
}

// WriteBody writes an already encoded JSON body.
func WriteBody(w http.ResponseWriter, status int, body []byte) {
	// Both values in one allocation, each capped so that an Add to one
	// cannot write into the other.
	vs := []string{ContentTypeJSON, strconv.Itoa(len(body))}
	h := w.Header()
	h["Content-Type"], h["Content-Length"] = vs[0:1:1], vs[1:2:2]
	w.WriteHeader(status)
	w.Write(body)
}

// ReadJSONBody checks the Content-Type, reads at most MaxBodyBytes and
// checks the body against shape before it is decoded.
func ReadJSONBody(w http.ResponseWriter, r *http.Request, shape *Shape) ([]byte, error) {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		return nil, &APIError{Status: http.StatusUnsupportedMediaType, Code: CodeUnsupportedMediaType,
			Message: fmt.Sprintf("Content-Type must be application/json, got %q%s", ct, formHint(mt))}
	}
	body, err := readBody(w, r, MaxBodyBytes, "")
	if err != nil {
		return nil, err
	}
	if err := shape.Check(body); err != nil {
		return nil, err
	}
	return body, nil
}

// jsonWant says, without Go's names, what JSON a value of type t takes.
func jsonWant(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Pointer:
		return jsonWant(t.Elem())
	}
	return "an object"
}

// EachMember calls fn for every member of the JSON object raw, in document
// order, each value the part of raw that holds it. It rejects anything
// but an object, duplicate keys and trailing data; path names raw in
// error messages.
func EachMember(raw []byte, path string, fn func(key string, value json.RawMessage) error) error {
	if !json.Valid(raw) {
		var v any
		return InvalidBody(path, "malformed JSON: %s", JSONProblem(json.Unmarshal(raw, &v)))
	}
	if JSONKind(raw) != "object" {
		return InvalidBody(path, "must be a JSON object, got %s", JSONKind(raw))
	}
	dec, done := reader(raw)
	defer done()
	if _, err := dec.ReadToken(); err != nil {
		return InvalidBody(path, "malformed JSON: %s", err)
	}
	var seenKeys [32]string // on the stack, for an object of few members
	seen := seenKeys[:0]
	for dec.PeekKind() != '}' {
		name, err := readIn(dec, raw)
		if err != nil {
			return InvalidBody(path, "malformed JSON: %s", err)
		}
		value, err := readIn(dec, raw)
		if err != nil {
			return InvalidBody(path, "malformed JSON: %s", err)
		}
		key, _ := stringOf(name) // a name read whole: valid
		if slices.Contains(seen, key) {
			return InvalidBody(JoinPath(path, key), "duplicate key")
		}
		seen = append(seen, key)
		if err := fn(key, value); err != nil {
			return err
		}
	}
	return nil
}

// inPlace is a jsontext decoder of a body in memory, read where it is.
type inPlace struct {
	buf bytes.Buffer
	dec jsontext.Decoder
}

// readers are decoders kept for the next body: a body's objects are many.
var readers = sync.Pool{New: func() any { return new(inPlace) }}

// reader is a decoder of raw, read in place, any JSON taken (the callers
// say what is wrong); done gives it back.
func reader(raw []byte) (dec *jsontext.Decoder, done func()) {
	r := readers.Get().(*inPlace)
	r.buf = *bytes.NewBuffer(raw)
	r.dec.Reset(&r.buf, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	return &r.dec, func() {
		r.buf = bytes.Buffer{}
		r.dec.Reset(&r.buf) // forget raw
		readers.Put(r)
	}
}

// readIn reads the next value (or name) of dec, which reads raw, and
// returns the part of raw that holds it.
func readIn(dec *jsontext.Decoder, raw []byte) (json.RawMessage, error) {
	start := dec.InputOffset()
	if _, err := dec.ReadValue(); err != nil {
		return nil, err
	}
	end := dec.InputOffset()
	return bytes.TrimLeft(raw[start:end:end], " \t\r\n:,"), nil // without what parts it from the token before
}

// stringOf is the string a JSON string literal stands for.
func stringOf(lit []byte) (string, error) {
	if plainString(lit) {
		return string(lit[1 : len(lit)-1]), nil
	}
	var s string
	err := json.Unmarshal(lit, &s)
	return s, err
}

// plainString reports whether lit is a JSON string literal whose text is
// its bytes as they are: no escapes, nothing encoding/json would replace.
func plainString(lit []byte) bool {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return false
	}
	s := lit[1 : len(lit)-1]
	for _, c := range s {
		if c < 0x20 || c == '"' || c == '\\' {
			return false
		}
	}
	return utf8.Valid(s)
}

// EachElement is EachMember for the elements of an array.
func EachElement(raw []byte, path string, fn func(i int, value json.RawMessage) error) error {
	if JSONKind(raw) != "array" {
		return InvalidBody(path, "must be an array, got %s", JSONKind(raw))
	}
	if !json.Valid(raw) {
		var elems []json.RawMessage
		return InvalidBody(path, "malformed JSON: %s", JSONProblem(json.Unmarshal(raw, &elems)))
	}
	dec, done := reader(raw)
	defer done()
	if _, err := dec.ReadToken(); err != nil {
		return InvalidBody(path, "malformed JSON: %s", err)
	}
	for i := 0; dec.PeekKind() != ']'; i++ {
		e, err := readIn(dec, raw)
		if err != nil {
			return InvalidBody(path, "malformed JSON: %s", err)
		}
		if err := fn(i, e); err != nil {
			return err
		}
	}
	return nil
}

// JoinPath is path.key, or key alone at the top.
func JoinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// JSONKind names the JSON type of a valid value by its first byte.
func JSONKind(raw []byte) string {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	default:
		return "number"
	}
}

// DecodeString decodes a JSON string; null, other types and text that
// encoding/json would silently change are errors.
func DecodeString(raw []byte, path string) (string, error) {
	if k := JSONKind(raw); k != "string" {
		return "", InvalidBody(path, "must be a string, got %s", k)
	}
	lit := bytes.TrimSpace(raw)
	if msg := StringProblem(lit); msg != "" {
		return "", InvalidBody(path, "%s", msg)
	}
	s, err := stringOf(lit)
	if err != nil {
		return "", InvalidBody(path, "malformed JSON: %s", JSONProblem(err))
	}
	return s, nil
}

// StringProblem says what is wrong in a JSON string literal that
// encoding/json would replace with U+FFFD without a word: bytes that are
// not UTF-8, and half a surrogate pair. "" means the text is sound.
func StringProblem(lit []byte) string {
	if len(lit) < 2 {
		return ""
	}
	s := lit[1 : len(lit)-1]
	for i, char := 0, 1; i < len(s); char++ {
		switch c := s[i]; {
		case c == '\\' && i+6 <= len(s) && s[i+1] == 'u':
			r := hex4(s[i+2 : i+6])
			i += 6
			if !utf16.IsSurrogate(r) {
				break
			}
			if r < 0xdc00 && i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
				if lo := hex4(s[i+2 : i+6]); lo >= 0xdc00 && lo <= 0xdfff {
					i += 6 // a pair: one character
					break
				}
			}
			return fmt.Sprintf("must be valid Unicode text: \\u%04x (character %d) is half of a surrogate pair", r, char)
		case c == '\\':
			i += 2
		case c < utf8.RuneSelf:
			i++
		default:
			r, n := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && n == 1 {
				return fmt.Sprintf("must be valid UTF-8 text: byte 0x%02x (character %d) is not UTF-8", c, char)
			}
			i += n
		}
	}
	return ""
}

// hex4 is the value of four hexadecimal digits, or -1.
func hex4(b []byte) rune {
	n, err := strconv.ParseUint(string(b), 16, 16)
	if err != nil {
		return -1
	}
	return rune(n)
}

// DecodeInt decodes a JSON integer (no fraction or exponent).
func DecodeInt(raw []byte, path string) (int64, error) {
	if k := JSONKind(raw); k != "number" {
		return 0, InvalidBody(path, "must be an integer, got %s", k)
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64)
	if err != nil {
		return 0, InvalidBody(path, "must be an integer, got %s", bytes.TrimSpace(raw))
	}
	return n, nil
}

// JSONProblem turns a decoder error into a message without Go type names.
func JSONProblem(err error) string {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Sprintf("%s (at byte %d)", syn.Error(), syn.Offset)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "unexpected end of input"
	}
	return err.Error()
}

// Stream writes JSON through a buffer a piece at a time, each value
// encoded as WriteJSON would. After the first error, everything is a
// no-op; Flush returns it.
type Stream struct {
	w        *bufio.Writer
	buf      bytes.Buffer
	enc      *json.Encoder
	err      error
	encoding bool // err came from encoding a value, not from writing
}

func NewStream(w io.Writer) *Stream {
	js := &Stream{w: bufio.NewWriterSize(w, 32<<10)}
	js.enc = json.NewEncoder(&js.buf)
	js.enc.SetEscapeHTML(false)
	return js
}

// Raw writes s, which is JSON already.
func (js *Stream) Raw(s string) {
	if js.err == nil {
		_, js.err = js.w.WriteString(s)
	}
}

// Value writes v encoded.
func (js *Stream) Value(v any) {
	if js.err != nil {
		return
	}
	js.buf.Reset()
	if err := js.enc.Encode(v); err != nil {
		js.err, js.encoding = err, true
		return
	}
	_, js.err = js.w.Write(bytes.TrimSuffix(js.buf.Bytes(), []byte("\n")))
}

func (js *Stream) Flush() error {
	if js.err == nil {
		js.err = js.w.Flush()
	}
	return js.err
}

func StreamArray[T any](js *Stream, items []T) {
	js.Raw("[")
	for i := range items {
		if i > 0 {
			js.Raw(",")
		}
		js.Value(&items[i])
	}
	js.Raw("]")
}

func (js *Stream) Err() error { return js.err }

// EncodingFailed reports whether the first error came from encoding a
// value (a programming error) rather than from writing (a client gone).
func (js *Stream) EncodingFailed() bool { return js.encoding }

// formHint is what to say of a body sent as a form: curl -d sends one.
func formHint(mediaType string) string {
	if mediaType == "application/x-www-form-urlencoded" {
		return " (curl -d sends a form: add -H 'Content-Type: application/json')"
	}
	return ""
}
