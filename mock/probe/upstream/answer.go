package upstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Exchange is one request sent and what came back.
type Exchange struct {
	Method string
	Path   string // relative to the target, with the raw query: /feedbacks?limit=101
	Body   []byte // the request's body, for PATCH
	Status int
	Header http.Header
	Answer []byte
}

// Request is the exchange's request as a person reads it, the query
// unescaped (search=ЁЛКА, not %D0%81...).
func (ex *Exchange) Request() string {
	p := ex.Path
	if i := strings.IndexByte(p, '?'); i >= 0 {
		if q, err := url.QueryUnescape(p[i+1:]); err == nil && utf8.ValidString(q) {
			p = p[:i+1] + q
		}
	}
	return ex.Method + " " + p
}

// ContentType is the answer's media type, lower-case, without parameters.
func (ex *Exchange) ContentType() string {
	mt, _, err := mime.ParseMediaType(ex.Header.Get("Content-Type"))
	if err != nil {
		return strings.ToLower(strings.TrimSpace(ex.Header.Get("Content-Type")))
	}
	return mt
}

// AnswerError is an answer other than the one due: the target breaks the
// contract. Detail is one line that names the request; Evidence holds
// the exchanges that show it.
type AnswerError struct {
	Detail   string
	Evidence []*Exchange
}

func (e *AnswerError) Error() string { return e.Detail }

// On adds the exchanges that are not nil to the evidence.
func (e *AnswerError) On(exs ...*Exchange) *AnswerError {
	for _, ex := range exs {
		if ex != nil {
			e.Evidence = append(e.Evidence, ex)
		}
	}
	return e
}

func wrong(ex *Exchange, format string, args ...any) error {
	return (&AnswerError{Detail: fmt.Sprintf(format, args...)}).On(ex)
}

// Data is the data of a 200 success envelope. A server error (5xx) is
// a *RequestError, any other answer an *AnswerError.
func Data(ex *Exchange) (any, error) {
	switch {
	case ex.Status >= 500:
		return nil, failed("%s: answered %s", ex.Request(), StatusLine(ex))
	case ex.Status >= 300 && ex.Status < 400:
		_, problem := DecodeObject(ex)
		return nil, wrong(ex, "%s: %s", ex.Request(), problem)
	case ex.Status != http.StatusOK:
		return nil, wrong(ex, "%s: answered %s, want 200", ex.Request(), StatusLine(ex))
	}
	top, problem := DecodeObject(ex)
	if problem != "" {
		return nil, wrong(ex, "%s: %s", ex.Request(), problem)
	}
	if top["success"] != true {
		return nil, wrong(ex, "%s: success is %s, want true", ex.Request(), Show(top["success"]))
	}
	data, ok := top["data"]
	if !ok {
		return nil, wrong(ex, "%s: the envelope has no data", ex.Request())
	}
	return data, nil
}

// DecodeObject decodes an answer that should be a JSON object, or says
// in a few words what it is instead.
func DecodeObject(ex *Exchange) (map[string]any, string) {
	if ex.Status >= 300 && ex.Status < 400 {
		return nil, fmt.Sprintf("redirected (%d) to %q; the probe follows no redirects (is --target the API's base, up to /api/v1?)", ex.Status, ex.Header.Get("Location"))
	}
	ct := ex.ContentType()
	trimmed := bytes.TrimSpace(ex.Answer)
	if strings.Contains(ct, "html") || bytes.HasPrefix(trimmed, []byte("<")) {
		if ct == "" {
			ct = "no Content-Type"
		}
		return nil, fmt.Sprintf("answered HTML (%s), not JSON: is --target the API's base, up to /api/v1?", ct)
	}
	if len(trimmed) == 0 {
		return nil, fmt.Sprintf("answered %d with an empty body, not JSON", ex.Status)
	}
	v, err := decodeJSON(ex.Answer)
	if err != nil {
		return nil, fmt.Sprintf("the answer is not valid JSON (%v)", err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Sprintf("the answer is %s, not a JSON object", Kind(v))
	}
	return obj, ""
}

// decodeJSON decodes one JSON value with nothing after it. Numbers are
// json.Number.
func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("it ends after %d bytes, in the middle of a value", len(b))
		}
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON value")
	}
	return v, nil
}

// StatusLine is an answer's status with its error code and field when
// it is an error envelope: `400 invalid_parameter (field limit)`.
func StatusLine(ex *Exchange) string {
	s := strconv.Itoa(ex.Status)
	if ex.Status >= 300 && ex.Status < 400 {
		return s + " redirect to " + strconv.Quote(ex.Header.Get("Location"))
	}
	top, problem := DecodeObject(ex)
	if problem != "" {
		if strings.HasPrefix(problem, "answered HTML") {
			return s + " with HTML"
		}
		return s
	}
	if e, ok := top["error"].(map[string]any); ok {
		if code, ok := e["code"].(string); ok {
			s += " " + code
		}
		if f, ok := e["field"].(string); ok && f != "" {
			s += " (field " + f + ")"
		}
	}
	return s
}

// Kind names a decoded JSON value's type as the messages do: "null",
// "a string", "an integer" and so on.
func Kind(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case json.Number:
		if _, ok := AsInt(v); ok {
			return "an integer"
		}
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// Show is a decoded value as JSON, short.
func Show(v any) string {
	if v == nil {
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return Trim(b, 60)
}

// AsInt is v as an integer, if it is a JSON integer that fits in 64 bits.
func AsInt(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	return i, err == nil
}

// Trim is an answer as evidence: at most n bytes, on one line.
func Trim(b []byte, n int) string {
	s := string(b)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes in all)", s[:cut], len(b))
}
