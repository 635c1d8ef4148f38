package probe

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/replymock/replymock/mock/probe/upstream"
)

// Whether a GET may be answered from the run's cache. Rules about
// repeated calls ask afresh.
const (
	cached = true
	fresh  = false
)

// q builds a query string from name, value pairs.
func q(kv ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return v.Encode()
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

// getData sends a GET and returns the data of its success envelope.
func (r *run) getData(ctx context.Context, path string, useCache bool) (*upstream.Exchange, any, error) {
	ex, err := r.c.Get(ctx, path, useCache)
	if err != nil {
		return ex, nil, err
	}
	data, err := upstream.Data(ex)
	return ex, data, err
}

// record is a review record, read leniently: a field missing or of the
// wrong type is its zero value. shape.records reports those.
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
	state      string // answer_state
	created    string // created_date
}

func toRecord(m map[string]any) record {
	str := func(k string) string { s, _ := m[k].(string); return s }
	num := func(k string) int64 { n, _ := upstream.AsInt(m[k]); return n }
	return record{raw: m, id: num("id"), feedbackID: str("feedback_id"), nmID: num("nm_id"),
		rating: num("product_valuation"), text: str("text"), pros: str("pros"), cons: str("cons"),
		article: str("supplier_article"), answer: str("answer_text"), state: str("answer_state"),
		created: str("created_date")}
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

// answered reports whether rec has an answer that moderation did not
// reject: a rejected answer keeps its text, and its review is
// unanswered again, as upstream (mock/API.md).
func (rec record) answered() bool { return rec.answer != "" && rec.state != "rejected" }

// String names a record in a report line.
func (rec record) String() string {
	return fmt.Sprintf("id %d (%s)", rec.id, rec.created)
}

// page is one decoded answer of GET /feedbacks.
type page struct {
	ex      *upstream.Exchange
	data    map[string]any
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
		return nil, differs("%s: data is %s, not an object", ex.Request(), upstream.Kind(data)).On(ex)
	}
	p := &page{ex: ex, data: obj, limit: obj["limit"], offset: obj["offset"]}
	fb, ok := obj["feedbacks"]
	if !ok {
		return nil, differs("%s: data has no feedbacks", ex.Request()).On(ex)
	}
	switch fb := fb.(type) {
	case nil:
		p.null = true
	case []any:
		for i, item := range fb {
			m, ok := item.(map[string]any)
			if !ok {
				return nil, differs("%s: data.feedbacks[%d] is %s, not an object", ex.Request(), i, upstream.Kind(item)).On(ex)
			}
			p.records = append(p.records, toRecord(m))
		}
	default:
		return nil, differs("%s: data.feedbacks is %s, not an array", ex.Request(), upstream.Kind(fb)).On(ex)
	}
	if p.total, ok = upstream.AsInt(obj["total"]); !ok {
		return nil, differs("%s: data.total is %s, not an integer", ex.Request(), upstream.Kind(obj["total"])).On(ex)
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
	ex                          *upstream.Exchange
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
		return nil, differs("%s: data is %s, not an object", ex.Request(), upstream.Kind(data)).On(ex)
	}
	c := &counts{ex: ex}
	for _, f := range []struct {
		name string
		to   *int64
	}{{"total", &c.total}, {"unanswered", &c.unanswered}, {"answered", &c.answered}} {
		if *f.to, ok = upstream.AsInt(obj[f.name]); !ok {
			return nil, differs("%s: data.%s is %s, not an integer", ex.Request(), f.name, upstream.Kind(obj[f.name])).On(ex)
		}
	}
	return c, nil
}
