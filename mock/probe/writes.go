package probe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/replymock/replymock/mock/probe/upstream"
)

type obj = map[string]any

// settingsDoc is the settings as an answer showed them.
type settingsDoc struct {
	feedback [5]map[string]any // by rating
	question map[string]any
}

// parseSettings reads the data of a settings answer, which must have the
// shape shape.settings checks.
func parseSettings(data any) (*settingsDoc, error) {
	if p := settingsProblems(data); len(p) > 0 {
		return nil, errors.New(someProblems(p))
	}
	obj := data.(map[string]any)
	d := &settingsDoc{question: obj["question"].(map[string]any)}
	for i, el := range obj["feedback"].([]any) {
		d.feedback[i] = el.(map[string]any)
	}
	return d, nil
}

func (d *settingsDoc) clone() *settingsDoc {
	c := &settingsDoc{question: maps.Clone(d.question)}
	for i, el := range d.feedback {
		c.feedback[i] = maps.Clone(el)
	}
	return c
}

func (d *settingsDoc) unified() bool {
	return upstream.Show(d.feedback[0]["use_unified_settings"]) == "1"
}

// body is the PATCH that sets every field of the spec to d's values.
func (d *settingsDoc) body() []byte {
	pick := func(m map[string]any, fields []field) obj {
		out := obj{}
		for _, f := range fields {
			if v, ok := m[f.name]; ok {
				out[f.name] = v
			}
		}
		return out
	}
	fb := make([]obj, 5)
	for i, el := range d.feedback {
		fb[i] = pick(el, feedbackFields)
	}
	b, _ := json.Marshal(obj{"feedback": fb, "question": pick(d.question, questionFields)})
	return b
}

// diffSettings lists where got differs from want, field by field.
func diffSettings(got, want *settingsDoc) []string {
	var out []string
	for i := range want.feedback {
		for _, f := range feedbackFields {
			if a, b := upstream.Show(got.feedback[i][f.name]), upstream.Show(want.feedback[i][f.name]); a != b {
				out = append(out, fmt.Sprintf("feedback[%d].%s is %s, want %s", i, f.name, a, b))
			}
		}
	}
	for _, f := range questionFields {
		if a, b := upstream.Show(got.question[f.name]), upstream.Show(want.question[f.name]); a != b {
			out = append(out, fmt.Sprintf("question.%s is %s, want %s", f.name, a, b))
		}
	}
	return out
}

// settingsFrom reads a settings answer of status 200.
func settingsFrom(ex *upstream.Exchange) (*settingsDoc, error) {
	data, err := upstream.Data(ex)
	if err != nil {
		return nil, err
	}
	doc, err := parseSettings(data)
	if err != nil {
		return nil, differs("%s: the answer is not the full settings: %v", ex.Request(), err).On(ex)
	}
	return doc, nil
}

// getSettings reads the settings afresh.
func (r *run) getSettings(ctx context.Context) (*upstream.Exchange, *settingsDoc, error) {
	ex, err := r.c.Do(ctx, http.MethodGet, "/settings/ai", nil)
	if err != nil {
		return ex, nil, err
	}
	doc, err := settingsFrom(ex)
	return ex, doc, err
}

// begin keeps the settings as they are before the first write.
func (r *run) begin(ctx context.Context) error {
	if r.original != nil {
		return nil
	}
	_, doc, err := r.getSettings(ctx)
	if err != nil {
		return err
	}
	r.original, r.current = doc, doc
	return nil
}

// patch sends a PATCH; from then on, restore is due.
func (r *run) patch(ctx context.Context, body obj) (*upstream.Exchange, error) {
	b, _ := json.Marshal(body) // a map of strings and numbers
	wrote := r.wrote
	r.wrote = true // before it is sent: a PATCH that times out may have landed
	ex, err := r.c.Do(ctx, http.MethodPatch, "/settings/ai", b)
	if err == nil && ex.Status == http.StatusForbidden {
		r.wrote = wrote // refused outright: nothing changed
		return ex, unchecked("%s: answered %s: the token may not change the settings", ex.Request(), upstream.StatusLine(ex))
	}
	return ex, err
}

// patchOK sends a PATCH that must be accepted and answered with the full
// settings, which become the current ones.
func (r *run) patchOK(ctx context.Context, body obj) (*upstream.Exchange, *settingsDoc, error) {
	ex, err := r.patch(ctx, body)
	if err != nil {
		return ex, nil, err
	}
	doc, err := settingsFrom(ex)
	if err != nil {
		return ex, nil, err
	}
	r.current = doc
	return ex, doc, nil
}

// probeText is a value the probe writes, different from old.
func probeText(what string, old any) string {
	s := "replymock probe: " + what
	if upstream.Show(old) == upstream.Show(s) {
		s += " (2)"
	}
	return s
}

func checkRoundTrip(ctx context.Context, r *run) (string, error) {
	if err := r.begin(ctx); err != nil {
		return "", err
	}
	cur := r.current
	ex, got, err := r.patchOK(ctx, obj{})
	if err != nil {
		return "", err
	}
	if d := diffSettings(got, cur); len(d) > 0 {
		return "", differs("PATCH {} changed the settings: %s", someProblems(d)).On(ex)
	}
	ai := probeText("round trip", cur.feedback[2]["ai_instructions"])
	sig := probeText("signature", cur.question["signature"])
	want := cur.clone()
	for i := range want.feedback {
		if i == 2 || cur.unified() {
			want.feedback[i]["ai_instructions"] = ai
		}
	}
	want.question["signature"] = sig
	ex, got, err = r.patchOK(ctx, obj{"feedback": []obj{{"rating": 3, "ai_instructions": ai}}, "question": obj{"signature": sig}})
	if err != nil {
		return "", err
	}
	if d := diffSettings(got, want); len(d) > 0 {
		return "", differs("the PATCH's answer is not the settings with the change: %s", someProblems(d)).On(ex)
	}
	gex, again, err := r.getSettings(ctx)
	if err != nil {
		return "", err
	}
	if d := diffSettings(again, got); len(d) > 0 {
		return "", differs("GET after the PATCH shows other settings than its answer: %s", someProblems(d)).On(ex, gex)
	}
	return "PATCH {}: unchanged; feedback[rating 3].ai_instructions and question.signature changed, answered in full, and GET shows them", nil
}

// unifiedStep is one PATCH of writes.unified, and change makes of a copy
// of the settings what the contract says the PATCH makes of them.
type unifiedStep struct {
	what   string
	body   obj
	change func(w *settingsDoc)
}

// switchOn sets use_unified_settings to 1 on rating, with a signature.
// All five get the flag and that element's shared fields.
func switchOn(rating int, sig string) unifiedStep {
	return unifiedStep{fmt.Sprintf("switch on from rating %d", rating),
		obj{"feedback": []obj{{"rating": rating, "use_unified_settings": 1, "signature": sig}}},
		func(w *settingsDoc) {
			src := maps.Clone(w.feedback[rating-1])
			src["signature"] = sig
			for _, el := range w.feedback {
				el["use_unified_settings"] = json.Number("1")
				for _, f := range sharedFields {
					el[f] = src[f]
				}
			}
		}}
}

// switchOff sets use_unified_settings to 0 on rating. All five get it,
// and every value stays.
func switchOff(rating int) unifiedStep {
	return unifiedStep{fmt.Sprintf("switch off from rating %d", rating),
		obj{"feedback": []obj{{"rating": rating, "use_unified_settings": 0}}},
		func(w *settingsDoc) {
			for _, el := range w.feedback {
				el["use_unified_settings"] = json.Number("0")
			}
		}}
}

// setShared changes a shared field on one rating, or on all five while
// unified.
func setShared(rating int, field, value string) unifiedStep {
	return unifiedStep{fmt.Sprintf("set %s on rating %d", field, rating),
		obj{"feedback": []obj{{"rating": rating, field: value}}},
		func(w *settingsDoc) {
			unified := w.unified()
			for i, el := range w.feedback {
				if i == rating-1 || unified {
					el[field] = value
				}
			}
		}}
}

func checkUnified(ctx context.Context, r *run) (string, error) {
	if err := r.begin(ctx); err != nil {
		return "", err
	}
	steps := []unifiedStep{
		switchOn(2, probeText("unified signature", nil)),
		setShared(4, "excluded_words", probeText("unified words", r.current.feedback[3]["excluded_words"])),
		switchOff(1),
		setShared(5, "signature", probeText("own signature", r.current.feedback[4]["signature"])),
	}
	if r.current.unified() {
		// Already on: see a change spread first, then switch off and on.
		steps = append(steps[1:], steps[0])
	}
	var done []string
	for _, st := range steps {
		want := r.current.clone()
		st.change(want)
		ex, got, err := r.patchOK(ctx, st.body)
		if err != nil {
			return "", err
		}
		if d := diffSettings(got, want); len(d) > 0 {
			return "", differs("%s: %s", st.what, someProblems(d)).On(ex)
		}
		done = append(done, st.what)
	}
	gex, again, err := r.getSettings(ctx)
	if err != nil {
		return "", err
	}
	if d := diffSettings(again, r.current); len(d) > 0 {
		return "", differs("GET after the PATCHes shows other settings than the last answer: %s", someProblems(d)).On(gex)
	}
	return "as the contract says after each PATCH (" + strings.Join(done, ", ") + "); reply_mode and tone stayed per rating", nil
}

func checkAtomic(ctx context.Context, r *run) (string, error) {
	if err := r.begin(ctx); err != nil {
		return "", err
	}
	before := r.current
	var named error // a field misnamed: reported after what matters more
	for _, c := range []struct {
		body  obj
		field string
	}{
		{obj{"feedback": []obj{{"rating": 3, "ai_instructions": "replymock probe: must not be saved"}}, "question": obj{"reply_mode": "replymock-probe-invalid"}}, "question.reply_mode"},
		{obj{"feedback": []obj{{"rating": 2, "signature": "replymock probe: must not be saved"}, {"rating": 4, "replymock_probe_unknown": 1}}}, "feedback[1].replymock_probe_unknown"},
	} {
		ex, err := r.patch(ctx, c.body)
		if err != nil {
			return "", err
		}
		if doc, err := settingsFrom(ex); err == nil { // accepted after all
			r.current = doc
		}
		if err := expectError(ex, 400, "invalid_body", ""); err != nil {
			return "", err
		}
		if err := expectError(ex, 400, "invalid_body", c.field); err != nil && named == nil {
			named = err
		}
	}
	gex, after, err := r.getSettings(ctx)
	if err != nil {
		return "", err
	}
	if d := diffSettings(after, before); len(d) > 0 {
		return "", differs("a refused PATCH changed the settings: %s", someProblems(d)).On(gex)
	}
	if named != nil {
		return "", named
	}
	return "a bad enum and an unknown field, each beside a valid change: 400 invalid_body naming the field; GET shows nothing changed", nil
}

// restore puts the original settings back, even after ctx was
// cancelled. It may spend the budget's reserve: it is the last rule.
func (r *run) restore(ctx context.Context, ru rule) Result {
	res := Result{Rule: ru.id, Title: ru.title}
	sent, start := r.c.Sent(), r.c.Now()
	defer func() {
		res.Requests = r.c.Sent() - sent
		res.Duration = r.c.Now().Sub(start)
	}()
	if !r.wrote {
		res.Status, res.Detail = Holds, "nothing to restore: no write was sent"
		return res
	}
	r.c.Release()
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*r.c.Timeout()+10*time.Second)
	defer cancel()
	body := r.original.body()
	failed := func(err error, exs ...*upstream.Exchange) Result {
		res.Status = NotChecked
		var de *upstream.AnswerError
		if errors.As(err, &de) {
			res.Status = Differs
		}
		res.Detail = "THE ORIGINAL SETTINGS MAY NOT BE BACK: " + err.Error() + "; to restore them, send the PATCH shown"
		if !slices.ContainsFunc(exs, func(ex *upstream.Exchange) bool { return ex != nil && ex.Method == http.MethodPatch }) {
			exs = append([]*upstream.Exchange{{Method: http.MethodPatch, Path: "/settings/ai", Body: body, Header: http.Header{}}}, exs...)
		}
		for _, ex := range exs {
			if ex != nil {
				res.Evidence = append(res.Evidence, evidence(ex))
			}
		}
		return res
	}
	ex, err := r.c.Do(rctx, http.MethodPatch, "/settings/ai", body)
	if err != nil {
		return failed(err, ex)
	}
	if _, err := settingsFrom(ex); err != nil {
		return failed(err, ex)
	}
	gex, now, err := r.getSettings(rctx)
	if err != nil {
		return failed(err, ex, gex)
	}
	if d := diffSettings(now, r.original); len(d) > 0 {
		return failed(differs("after the PATCH with the original settings, %s", someProblems(d)), ex, gex)
	}
	res.Status, res.Detail = Holds, "PATCH with every original field; GET shows the settings as they were"
	return res
}
