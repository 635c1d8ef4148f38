package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/replymock/replymock/mock/probe/upstream"
)

// field is one field of a JSON object the spec describes. check says
// what is wrong with a value, or "".
type field struct {
	name  string
	check func(v any) string
}

func isString(v any) string {
	if _, ok := v.(string); !ok {
		return "is " + upstream.Kind(v) + ", want a string"
	}
	return ""
}

func isNonBlank(v any) string {
	if s, ok := v.(string); ok && strings.TrimSpace(s) == "" {
		return "is blank, want a non-blank string"
	}
	return isString(v)
}

func isIntIn(lo, hi int64) func(any) string {
	return func(v any) string {
		n, ok := upstream.AsInt(v)
		if !ok {
			return "is " + upstream.Kind(v) + ", want an integer"
		}
		if n < lo || n > hi {
			return fmt.Sprintf("is %d, want %d to %d", n, lo, hi)
		}
		return ""
	}
}

var isInt = isIntIn(math.MinInt64, math.MaxInt64)

func isOneOf(values ...string) func(any) string {
	return func(v any) string {
		if s, ok := v.(string); ok && !slices.Contains(values, s) {
			return fmt.Sprintf("is %q, want one of %s", s, strings.Join(values, ", "))
		}
		return isString(v)
	}
}

func isNullOrDate(v any) string {
	if v == nil {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		return "is " + upstream.Kind(v) + ", want null or a date YYYY-MM-DD"
	}
	if _, err := time.Parse(time.DateOnly, s); err != nil || len(s) != 10 {
		return fmt.Sprintf("is %q, want null or a date YYYY-MM-DD", s)
	}
	return ""
}

func isTimestamp(v any) string {
	s, ok := v.(string)
	if !ok {
		return "is " + upstream.Kind(v) + ", want a string YYYY-MM-DD HH:MM:SS"
	}
	if _, err := time.Parse(time.DateTime, s); err != nil || len(s) != 19 {
		return fmt.Sprintf("is %q, want YYYY-MM-DD HH:MM:SS", s)
	}
	return ""
}

// isListText checks a string holding a JSON list, which the upstream
// sends for valuation_tags and photos. want says what the string should
// hold; item says what is wrong with the list's item i, or "".
func isListText(want string, item func(i int, v any) string) func(any) string {
	return func(v any) string {
		s, ok := v.(string)
		if !ok {
			return "is " + upstream.Kind(v) + ", " + want
		}
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		var list []any
		if err := dec.Decode(&list); err != nil || list == nil || dec.More() {
			return fmt.Sprintf("is %s, %s", upstream.Show(s), want)
		}
		for i, it := range list {
			if p := item(i, it); p != "" {
				return p
			}
		}
		return ""
	}
}

// isTagsText checks valuation_tags: a JSON list of strings in a string.
var isTagsText = isListText("want a string holding a JSON list of strings", func(i int, v any) string {
	if t, ok := v.(string); !ok || t == "" {
		return fmt.Sprintf("holds [%d] %s, want a non-empty string", i, upstream.Show(v))
	}
	return ""
})

// isHTTPURL reports whether v is an absolute http or https URL.
func isHTTPURL(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// objectProblem is what is wrong with obj, an object of URL fields and
// integer fields above 0, or "". what names obj in the message.
func objectProblem(what string, obj map[string]any, urls, ints []string) string {
	for _, k := range urls {
		if v, ok := obj[k]; !ok {
			return what + " without " + k
		} else if !isHTTPURL(v) {
			return fmt.Sprintf("%s whose %s is %s, want an http(s) URL", what, k, upstream.Show(v))
		}
	}
	for _, k := range ints {
		if v, ok := obj[k]; !ok {
			return what + " without " + k
		} else if n, ok := upstream.AsInt(v); !ok || n < 1 {
			return fmt.Sprintf("%s whose %s is %s, want an integer above 0", what, k, upstream.Show(v))
		}
	}
	if x := extra(obj, slices.Concat(urls, ints)); len(x) > 0 {
		return fmt.Sprintf("%s with %s, a field the upstream's does not have", what, x[0])
	}
	return ""
}

// extra lists, sorted, the keys of obj that are not known.
func extra(obj map[string]any, known []string) []string {
	var out []string
	for k := range obj {
		if !slices.Contains(known, k) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// isPhotosText checks photos: a string holding a JSON list of
// {"fullSize": URL, "miniSize": URL}.
var isPhotosText = isListText("want a string holding a JSON list of {fullSize, miniSize}", func(i int, v any) string {
	obj, ok := v.(map[string]any)
	if !ok {
		return fmt.Sprintf("holds [%d] %s, want an object {fullSize, miniSize}", i, upstream.Show(v))
	}
	if p := objectProblem(fmt.Sprintf("[%d]", i), obj, []string{"fullSize", "miniSize"}, nil); p != "" {
		return "holds " + p
	}
	return ""
})

// isNullOrVideo checks video: null or
// {"previewImage": URL, "link": URL, "durationSec": N}.
func isNullOrVideo(v any) string {
	if v == nil {
		return ""
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return "is " + upstream.Kind(v) + ", want null or an object {previewImage, link, durationSec}"
	}
	if p := objectProblem("an object", obj, []string{"previewImage", "link"}, []string{"durationSec"}); p != "" {
		return "is " + p
	}
	return ""
}

var (
	replyModes = []string{"disabled", "auto", "semi_auto"}

	// feedbackFields are the spec's 2.1, in its order.
	feedbackFields = []field{
		{"rating", isIntIn(1, 5)},
		{"reply_mode", isOneOf(replyModes...)},
		{"signature", isString},
		{"tone", isNonBlank},
		{"excluded_words", isString},
		{"required_words", isString},
		{"empty_review_mode", isOneOf("skip", "template", "generate")},
		{"use_unified_settings", isIntIn(0, 1)},
		{"reply_from_date", isNullOrDate},
		{"ai_instructions", isString},
	}
	// questionFields are the spec's 2.2.
	questionFields = []field{
		{"reply_mode", isOneOf(replyModes...)},
		{"signature", isString},
		{"tone", isNonBlank},
		{"excluded_words", isString},
		{"required_words", isString},
		{"reply_from_date", isNullOrDate},
		{"ai_instructions", isString},
	}
	// sharedFields are equal in all five elements while
	// use_unified_settings is 1.
	sharedFields = []string{"signature", "excluded_words", "required_words", "empty_review_mode", "reply_from_date", "ai_instructions"}
	// recordFields are the spec's 2.3.
	recordFields = []field{
		{"id", isInt},
		{"feedback_id", isNonBlank},
		{"nm_id", isInt},
		{"imt_id", isInt},
		{"text", isString},
		{"pros", isString},
		{"cons", isString},
		{"product_valuation", isIntIn(1, 5)},
		{"valuation_tags", isTagsText},
		{"created_date", isTimestamp},
		{"answer_text", isString},
		{"answer_state", isString},
		{"product_name", isString},
		{"supplier_article", isString},
		{"brand_name", isString},
		{"photos", isPhotosText},
		{"video", isNullOrVideo},
		{"user_name", isString},
		{"was_viewed", isInt},
		{"state", isString},
		{"created_at", isTimestamp},
	}
)

// checkFields lists what is wrong with obj against fields, a field the
// spec does not have included.
func checkFields(path string, obj map[string]any, fields []field) []string {
	var problems, names []string
	for _, f := range fields {
		names = append(names, f.name)
		v, ok := obj[f.name]
		if !ok {
			problems = append(problems, path+"."+f.name+" is missing")
			continue
		}
		if p := f.check(v); p != "" {
			problems = append(problems, path+"."+f.name+" "+p)
		}
	}
	for _, k := range extra(obj, names) {
		problems = append(problems, path+" has "+k+", a field the spec does not have")
	}
	return problems
}

// someProblems is the first few problems on one line.
func someProblems(problems []string) string {
	const shown = 3
	if len(problems) <= shown {
		return strings.Join(problems, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(problems[:shown], "; "), len(problems)-shown)
}

// settingsProblems lists what is wrong with the data of a settings answer.
func settingsProblems(data any) []string {
	obj, ok := data.(map[string]any)
	if !ok {
		return []string{"data is " + upstream.Kind(data) + ", not an object"}
	}
	var problems []string
	fb, ok := obj["feedback"].([]any)
	switch {
	case !ok:
		problems = append(problems, "data.feedback is "+kindOf(obj, "feedback")+", want an array of 5")
	case len(fb) != 5:
		problems = append(problems, fmt.Sprintf("data.feedback has %d elements, want 5", len(fb)))
	}
	unified := map[string]bool{}
	for i, el := range fb {
		path := fmt.Sprintf("data.feedback[%d]", i)
		m, ok := el.(map[string]any)
		if !ok {
			problems = append(problems, path+" is "+upstream.Kind(el)+", not an object")
			continue
		}
		if n, ok := upstream.AsInt(m["rating"]); ok && n != int64(i+1) && len(fb) == 5 {
			problems = append(problems, fmt.Sprintf("%s.rating is %d: the elements are not ordered by rating 1..5", path, n))
		}
		problems = append(problems, checkFields(path, m, feedbackFields)...)
		unified[upstream.Show(m["use_unified_settings"])] = true
	}
	if len(unified) > 1 {
		problems = append(problems, "use_unified_settings differs between the elements: it is one flag for all ratings")
	}
	if len(fb) == 5 && len(unified) == 1 && unified["1"] {
		for _, f := range sharedFields {
			for i := 1; i < 5; i++ {
				a, _ := fb[0].(map[string]any)
				b, _ := fb[i].(map[string]any)
				if a != nil && b != nil && upstream.Show(a[f]) != upstream.Show(b[f]) {
					problems = append(problems, fmt.Sprintf("use_unified_settings is 1 but %s differs between ratings 1 and %d", f, i+1))
					break
				}
			}
		}
	}
	qm, ok := obj["question"].(map[string]any)
	if !ok {
		problems = append(problems, "data.question is "+kindOf(obj, "question")+", want an object")
	} else {
		problems = append(problems, checkFields("data.question", qm, questionFields)...)
	}
	for _, k := range extra(obj, []string{"feedback", "question"}) {
		problems = append(problems, "data has "+k+", a field the spec does not have")
	}
	return problems
}

// kindOf is the kind of obj[k], or "missing".
func kindOf(obj map[string]any, k string) string {
	v, ok := obj[k]
	if !ok {
		return "missing"
	}
	return upstream.Kind(v)
}

func checkSettingsShape(_ context.Context, r *run) (string, error) {
	if r.settingsErr != nil {
		return "", r.settingsErr
	}
	if p := settingsProblems(r.settings); len(p) > 0 {
		return "", differs("%s", someProblems(p)).On(r.settingsEx)
	}
	doc, _ := parseSettings(r.settings)
	modes := make([]string, 5)
	for i, el := range doc.feedback {
		modes[i] = fmt.Sprint(el["reply_mode"])
	}
	return fmt.Sprintf("ratings 1..5 (reply modes %s), use_unified_settings %s; question with its 7 fields",
		strings.Join(modes, ", "), upstream.Show(doc.feedback[0]["use_unified_settings"])), nil
}

// recordsProblems lists what is wrong with the page p.
func recordsProblems(p *page, wantLimit, wantOffset int64) []string {
	var problems []string
	for _, k := range extra(p.data, []string{"feedbacks", "total", "limit", "offset"}) {
		problems = append(problems, "data has "+k+", a field the spec does not have")
	}
	if p.null {
		problems = append(problems, "data.feedbacks is null, want an array")
	}
	if n, ok := upstream.AsInt(p.limit); !ok || n != wantLimit {
		problems = append(problems, fmt.Sprintf("data.limit is %s, want %d (the applied limit)", upstream.Show(p.limit), wantLimit))
	}
	if n, ok := upstream.AsInt(p.offset); !ok || n != wantOffset {
		problems = append(problems, fmt.Sprintf("data.offset is %s, want %d (the applied offset)", upstream.Show(p.offset), wantOffset))
	}
	for i, rec := range p.records {
		path := fmt.Sprintf("data.feedbacks[%d]", i)
		problems = append(problems, checkFields(path, rec.raw, recordFields)...)
		if at, ok := rec.raw["created_at"].(string); ok && isTimestamp(at) == "" && isTimestamp(rec.created) == "" && at < rec.created {
			problems = append(problems, fmt.Sprintf("%s.created_at %s is before its created_date %s", path, at, rec.created))
		}
	}
	return problems
}

func checkRecordsShape(ctx context.Context, r *run) (string, error) {
	if p := recordsProblems(r.first, 100, 0); len(p) > 0 {
		return "", differs("%s", someProblems(p)).On(r.first.ex)
	}
	seen := len(r.first.records)
	// The oldest records too: hand-written or imported ones tend to be there.
	if r.first.total > 100 {
		off := r.first.total - 100
		last, err := r.list(ctx, q("limit", "100", "offset", fmt.Sprint(off)))
		if err != nil {
			return "", err
		}
		if p := recordsProblems(last, 100, off); len(p) > 0 {
			return "", differs("%s", someProblems(p)).On(last.ex)
		}
		seen += len(last.records)
	}
	return fmt.Sprintf("%d records (newest and oldest) with the 21 fields and their types; data is {feedbacks, total, limit, offset}", seen), nil
}

func checkEnvelope(ctx context.Context, r *run) (string, error) {
	var seen []string
	exs := []*upstream.Exchange{r.settingsEx}
	if r.first != nil {
		exs = append(exs, r.first.ex)
	}
	for _, ex := range exs {
		if ex == nil || ex.Status != 200 {
			continue
		}
		top, problem := upstream.DecodeObject(ex)
		if problem != "" {
			return "", differs("%s: %s", ex.Request(), problem).On(ex)
		}
		if p := successProblems(ex, top); p != "" {
			return "", differs("%s: %s", ex.Request(), p).On(ex)
		}
		seen = append(seen, strings.TrimPrefix(ex.Request(), "GET "))
	}
	if len(seen) == 0 {
		return "", unchecked("no success answer to look at: %s", r.settingsErr)
	}
	ex, err := r.c.Get(ctx, "/feedbacks?limit=abc", cached)
	if err != nil {
		return "", err
	}
	if ex.Status >= 500 {
		return "", unchecked("%s: answered %s", ex.Request(), upstream.StatusLine(ex))
	}
	if ex.Status < 400 {
		return "", differs("%s: answered %d, want an error", ex.Request(), ex.Status).On(ex)
	}
	if p := errorEnvelopeProblem(ex); p != "" {
		return "", differs("%s: %s", ex.Request(), p).On(ex)
	}
	return fmt.Sprintf("success envelopes on %s; the error envelope on limit=abc: %s; all application/json", strings.Join(seen, " and "), upstream.StatusLine(ex)), nil
}

// successProblems is what is wrong with a success envelope, or "".
func successProblems(ex *upstream.Exchange, top map[string]any) string {
	if ct := ex.ContentType(); ct != "application/json" {
		return fmt.Sprintf("Content-Type is %q, want application/json", ex.Header.Get("Content-Type"))
	}
	if top["success"] != true {
		return "success is " + upstream.Show(top["success"]) + ", want true"
	}
	if _, ok := top["data"]; !ok {
		return "the envelope has no data"
	}
	if x := extra(top, []string{"success", "data"}); len(x) > 0 {
		return "the envelope has " + x[0] + ", beside success and data"
	}
	return ""
}

// errorEnvelopeProblem is what is wrong with an error envelope, or "".
func errorEnvelopeProblem(ex *upstream.Exchange) string {
	top, problem := upstream.DecodeObject(ex)
	if problem != "" {
		return problem
	}
	if ct := ex.ContentType(); ct != "application/json" {
		return fmt.Sprintf("Content-Type is %q, want application/json", ex.Header.Get("Content-Type"))
	}
	if top["success"] != false {
		return "success is " + kindOf(top, "success") + " " + upstream.Show(top["success"]) + ", want false"
	}
	if d, ok := top["data"]; !ok || d != nil {
		return "data is " + kindOf(top, "data") + ", want null"
	}
	e, ok := top["error"].(map[string]any)
	if !ok {
		return "error is " + kindOf(top, "error") + ", want an object {code, message[, field]}"
	}
	if x := extra(top, []string{"success", "data", "error"}); len(x) > 0 {
		return "the envelope has " + x[0] + ", beside success, data and error"
	}
	if code, ok := e["code"].(string); !ok || code == "" {
		return "error.code is " + kindOf(e, "code") + ", want a non-empty string"
	}
	if _, ok := e["message"].(string); !ok {
		return "error.message is " + kindOf(e, "message") + ", want a string"
	}
	if f, ok := e["field"]; ok {
		if _, ok := f.(string); !ok {
			return "error.field is " + upstream.Kind(f) + ", want a string"
		}
	}
	if x := extra(e, []string{"code", "message", "field"}); len(x) > 0 {
		return "error has " + x[0] + ", beside code, message and field"
	}
	return ""
}
