package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Whether a GET may be answered from the run's cache of earlier answers:
// rules that only read share them; rules about repeated calls do not.
const (
	cached = true
	fresh  = false
)

// q builds a query string from name, value pairs, in the order given.
func q(kv ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(kv); i += 2 {
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString(url.QueryEscape(kv[i]))
		b.WriteByte('=')
		b.WriteString(url.QueryEscape(kv[i+1]))
	}
	return b.String()
}

// and joins query strings, skipping empty ones.
func and(qs ...string) string {
	var parts []string
	for _, s := range qs {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "&")
}

func withQuery(path, query string) string {
	if query == "" {
		return path
	}
	return path + "?" + query
}

// getData sends a GET and returns the data of its success envelope; an
// answer that is not a 200 success envelope is a *differsError (a 5xx,
// an *uncheckedError).
func (r *run) getData(ctx context.Context, path string, useCache bool) (*exchange, any, error) {
	ex, err := r.c.get(ctx, path, useCache)
	if err != nil {
		return ex, nil, err
	}
	data, err := okData(ex)
	return ex, data, err
}

// okData is the data of a 200 success envelope, or why ex is not one.
func okData(ex *exchange) (any, error) {
	switch {
	case ex.status >= 500:
		return nil, unchecked("%s: answered %s", ex.request(), statusLine(ex))
	case ex.status >= 300 && ex.status < 400:
		_, problem := decodeObject(ex)
		return nil, differs("%s: %s", ex.request(), problem).on(ex)
	case ex.status != http.StatusOK:
		return nil, differs("%s: answered %s, want 200", ex.request(), statusLine(ex)).on(ex)
	}
	top, problem := decodeObject(ex)
	if problem != "" {
		return nil, differs("%s: %s", ex.request(), problem).on(ex)
	}
	if top["success"] != true {
		return nil, differs("%s: success is %s, want true", ex.request(), show(top["success"])).on(ex)
	}
	data, ok := top["data"]
	if !ok {
		return nil, differs("%s: the envelope has no data", ex.request()).on(ex)
	}
	return data, nil
}

// decodeObject decodes an answer that should be a JSON object, or says
// in a few words what it is instead.
func decodeObject(ex *exchange) (map[string]any, string) {
	if ex.status >= 300 && ex.status < 400 {
		return nil, fmt.Sprintf("redirected (%d) to %q; the probe follows no redirects (is --target the API's base, up to /api/v1?)", ex.status, ex.header.Get("Location"))
	}
	ct := ex.contentType()
	trimmed := bytes.TrimSpace(ex.answer)
	if strings.Contains(ct, "html") || bytes.HasPrefix(trimmed, []byte("<")) {
		return nil, fmt.Sprintf("answered HTML (%s), not JSON: is --target the API's base, up to /api/v1?", orNone(ct))
	}
	if len(trimmed) == 0 {
		return nil, fmt.Sprintf("answered %d with an empty body, not JSON", ex.status)
	}
	v, err := decodeJSON(ex.answer)
	if err != nil {
		return nil, fmt.Sprintf("the answer is not valid JSON (%v)", err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Sprintf("the answer is %s, not a JSON object", Kind(v))
	}
	return obj, ""
}

// decodeJSON decodes one JSON value, numbers kept as json.Number, with
// nothing after it.
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

func orNone(ct string) string {
	if ct == "" {
		return "no Content-Type"
	}
	return ct
}

// statusLine is an answer's status with its error code and field when
// it is an error envelope: `400 invalid_parameter (field limit)`.
func statusLine(ex *exchange) string {
	s := strconv.Itoa(ex.status)
	if ex.status >= 300 && ex.status < 400 {
		return s + " redirect to " + strconv.Quote(ex.header.Get("Location"))
	}
	top, problem := decodeObject(ex)
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

// Kind names a decoded JSON value's type as the probe's messages do:
// "null", "a boolean", "a string", "an integer", "a number", "an array",
// "an object"; any other value, its Go type.
func Kind(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case json.Number:
		if _, ok := asInt(v); ok {
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

// show is a decoded value as JSON, short.
func show(v any) string {
	if v == nil {
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return trimAnswer(b, 60)
}

// asInt is v as an integer, if it is a JSON integer that fits in 64 bits.
func asInt(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	return i, err == nil
}

// record is a review record, read leniently: a field missing or of the
// wrong type is its zero value (shape.records reports those).
type record struct {
	raw        map[string]any
	id         int64
	feedbackID string
	nmID       int64
	rating     int64
	text       string
	pros       string
	cons       string
	article    string // supplier_article
	answer     string // answer_text
	created    string // created_date
}

func toRecord(m map[string]any) record {
	str := func(k string) string { s, _ := m[k].(string); return s }
	num := func(k string) int64 { n, _ := asInt(m[k]); return n }
	return record{raw: m, id: num("id"), feedbackID: str("feedback_id"), nmID: num("nm_id"),
		rating: num("product_valuation"), text: str("text"), pros: str("pros"), cons: str("cons"),
		article: str("supplier_article"), answer: str("answer_text"), created: str("created_date")}
}

// key tells records apart: id and feedback_id together.
func (rec record) key() string { return strconv.FormatInt(rec.id, 10) + "/" + rec.feedbackID }

// day is the date part of created_date.
func (rec record) day() string {
	if len(rec.created) < 10 {
		return rec.created
	}
	return rec.created[:10]
}

func (rec record) answered() bool { return rec.answer != "" }

// String names a record in a report line.
func (rec record) String() string {
	return fmt.Sprintf("id %d (%s)", rec.id, rec.created)
}

// page is one decoded answer of GET /feedbacks.
type page struct {
	ex      *exchange
	records []record
	total   int64
	limit   any // as answered
	offset  any
	null    bool // "feedbacks": null
}

// list sends GET /feedbacks?query and decodes the page.
func (r *run) list(ctx context.Context, query string, useCache ...bool) (*page, error) {
	ex, data, err := r.getData(ctx, withQuery("/feedbacks", query), len(useCache) == 0 || useCache[0])
	if err != nil {
		return nil, err
	}
	obj, ok := data.(map[string]any)
	if !ok {
		return nil, differs("%s: data is %s, not an object", ex.request(), Kind(data)).on(ex)
	}
	p := &page{ex: ex, limit: obj["limit"], offset: obj["offset"]}
	fb, ok := obj["feedbacks"]
	if !ok {
		return nil, differs("%s: data has no feedbacks", ex.request()).on(ex)
	}
	switch fb := fb.(type) {
	case nil:
		p.null = true
	case []any:
		for i, item := range fb {
			m, ok := item.(map[string]any)
			if !ok {
				return nil, differs("%s: data.feedbacks[%d] is %s, not an object", ex.request(), i, Kind(item)).on(ex)
			}
			p.records = append(p.records, toRecord(m))
		}
	default:
		return nil, differs("%s: data.feedbacks is %s, not an array", ex.request(), Kind(fb)).on(ex)
	}
	if p.total, ok = asInt(obj["total"]); !ok {
		return nil, differs("%s: data.total is %s, not an integer", ex.request(), Kind(obj["total"])).on(ex)
	}
	return p, nil
}

// keys are the page's record keys, in order.
func (p *page) keys() []string {
	out := make([]string, len(p.records))
	for i, rec := range p.records {
		out[i] = rec.key()
	}
	return out
}

// counts is one decoded answer of GET /feedbacks?counts_only=1.
type counts struct {
	ex                          *exchange
	total, unanswered, answered int64
}

func (c *counts) String() string {
	return fmt.Sprintf("{total %d, unanswered %d, answered %d}", c.total, c.unanswered, c.answered)
}

func (c *counts) equal(o *counts) bool {
	return c.total == o.total && c.unanswered == o.unanswered && c.answered == o.answered
}

// countsOf sends GET /feedbacks?counts_only=1&query and decodes it.
func (r *run) countsOf(ctx context.Context, query string) (*counts, error) {
	ex, data, err := r.getData(ctx, withQuery("/feedbacks", and("counts_only=1", query)), cached)
	if err != nil {
		return nil, err
	}
	obj, ok := data.(map[string]any)
	if !ok {
		return nil, differs("%s: data is %s, not an object", ex.request(), Kind(data)).on(ex)
	}
	c := &counts{ex: ex}
	for _, f := range []struct {
		name string
		to   *int64
	}{{"total", &c.total}, {"unanswered", &c.unanswered}, {"answered", &c.answered}} {
		if *f.to, ok = asInt(obj[f.name]); !ok {
			return nil, differs("%s: data.%s is %s, not an integer", ex.request(), f.name, Kind(obj[f.name])).on(ex)
		}
	}
	return c, nil
}
