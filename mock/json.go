package mock

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
)

// MaxBodyBytes is the largest request body the API accepts (413 above it).
const MaxBodyBytes = 1 << 20

const contentTypeJSON = "application/json; charset=utf-8"

// marshalJSON encodes v without HTML escaping, so review texts such as
// "<b>" stay readable in raw responses, and without a trailing newline.
func marshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// writeJSON writes v as the whole response body with the contract's
// Content-Type. Values written here are built by the server itself, so an
// encoding failure is a programming error: it is answered as a bare 500.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := marshalJSON(v)
	if err != nil {
		status = http.StatusInternalServerError
		body = []byte(`{"success":false,"data":null,"error":{"code":"internal_error","message":"response encoding failed"}}`)
	}
	writeBody(w, status, body)
}

// writeBody writes an already encoded JSON body.
func writeBody(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentTypeJSON)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

// readJSONBody checks the Content-Type and reads at most MaxBodyBytes.
func readJSONBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		return nil, &APIError{Status: http.StatusUnsupportedMediaType, Code: CodeUnsupportedMediaType,
			Message: fmt.Sprintf("Content-Type must be application/json, got %q", ct)}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, &APIError{Status: http.StatusRequestEntityTooLarge, Code: CodePayloadTooLarge,
			Message: fmt.Sprintf("request body is larger than %d bytes", MaxBodyBytes)}
	case err != nil:
		return nil, invalidBody("", "reading request body: %v", err)
	}
	return body, nil
}

// decodeStrict decodes a JSON body into v: unknown fields, trailing data
// and wrong types are invalid_body errors.
func decodeStrict(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return invalidBody("", "%s", jsonProblem(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return invalidBody("", "unexpected data after the JSON value")
	}
	return nil
}

// eachMember calls fn for every member of the JSON object raw, in document
// order. It rejects anything but an object, duplicate keys and trailing
// data; path names raw in error messages ("" is the body itself).
func eachMember(raw []byte, path string, fn func(key string, value json.RawMessage) error) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return invalidBody(path, "malformed JSON: %s", jsonProblem(err))
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return invalidBody(path, "must be a JSON object, got %s", jsonKind(raw))
	}
	seen := make(map[string]bool)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return invalidBody(path, "malformed JSON: %s", jsonProblem(err))
		}
		key := tok.(string) // object keys are always strings
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return invalidBody(joinPath(path, key), "malformed JSON: %s", jsonProblem(err))
		}
		if seen[key] {
			return invalidBody(joinPath(path, key), "duplicate key")
		}
		seen[key] = true
		if err := fn(key, value); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return invalidBody(path, "malformed JSON: %s", jsonProblem(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return invalidBody(path, "unexpected data after the JSON value")
	}
	return nil
}

// eachElement calls fn for every element of the JSON array raw.
func eachElement(raw []byte, path string, fn func(i int, value json.RawMessage) error) error {
	if jsonKind(raw) != "array" {
		return invalidBody(path, "must be an array, got %s", jsonKind(raw))
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return invalidBody(path, "malformed JSON: %s", jsonProblem(err))
	}
	for i, e := range elems {
		if err := fn(i, e); err != nil {
			return err
		}
	}
	return nil
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// jsonKind names the JSON type of a valid value by its first byte.
func jsonKind(raw []byte) string {
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

// decodeString decodes a JSON string; null and other types are errors.
func decodeString(raw []byte, path string) (string, error) {
	if k := jsonKind(raw); k != "string" {
		return "", invalidBody(path, "must be a string, got %s", k)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", invalidBody(path, "malformed JSON: %s", jsonProblem(err))
	}
	return s, nil
}

// decodeInt decodes a JSON integer (no fraction or exponent).
func decodeInt(raw []byte, path string) (int64, error) {
	if k := jsonKind(raw); k != "number" {
		return 0, invalidBody(path, "must be an integer, got %s", k)
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(raw)), 10, 64)
	if err != nil {
		return 0, invalidBody(path, "must be an integer, got %s", bytes.TrimSpace(raw))
	}
	return n, nil
}

// jsonProblem turns a decoder error into a message without Go type names.
func jsonProblem(err error) string {
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return fmt.Sprintf("%s (at byte %d)", syn.Error(), syn.Offset)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return "unexpected end of input"
	}
	return err.Error()
}
