package probe

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/replymock/replymock/mock/probe/upstream"
)

// expectError checks that ex is the contract's error envelope with
// status and code, naming field unless it is "".
func expectError(ex *upstream.Exchange, status int, code, field string) error {
	want := fmt.Sprintf("%d %s", status, code)
	if field != "" {
		want += " (field " + field + ")"
	}
	if ex.Status >= 500 && status < 500 {
		return unchecked("%s: answered %s", ex.Request(), upstream.StatusLine(ex))
	}
	if ex.Status != status {
		got := upstream.StatusLine(ex)
		if ex.Status == http.StatusOK {
			got = accepted(ex)
		}
		return differs("%s: answered %s, want %s", ex.Request(), got, want).On(ex)
	}
	if p := errorEnvelopeProblem(ex); p != "" {
		return differs("%s: answered %d but %s", ex.Request(), ex.Status, p).On(ex)
	}
	top, _ := upstream.DecodeObject(ex)
	e := top["error"].(map[string]any)
	if e["code"] != code {
		return differs("%s: error.code is %s, want %q", ex.Request(), upstream.Show(e["code"]), code).On(ex)
	}
	if field != "" && e["field"] != field {
		return differs("%s: error.field is %s, want %q", ex.Request(), upstream.Show(e["field"]), field).On(ex)
	}
	return nil
}

// invalidParam GETs path, which must be refused with 400
// invalid_parameter naming field.
func (r *run) invalidParam(ctx context.Context, path, field string) error {
	ex, err := r.c.Get(ctx, path, cached)
	if err != nil {
		return err
	}
	return expectError(ex, 400, "invalid_parameter", field)
}

// accepted describes a 200 answer to a request that should have failed.
func accepted(ex *upstream.Exchange) string {
	data, err := upstream.Data(ex)
	if err != nil {
		return upstream.StatusLine(ex)
	}
	if m, ok := data.(map[string]any); ok {
		if fb, ok := m["feedbacks"].([]any); ok {
			return fmt.Sprintf("200 with %d records (accepted)", len(fb))
		}
		if t, ok := upstream.AsInt(m["total"]); ok {
			return fmt.Sprintf("200 with total %d (accepted)", t)
		}
	}
	return "200 (accepted)"
}

// malformed are values the contract refuses, one parameter each.
var malformed = []struct{ param, value string }{
	{"limit", "abc"},
	{"limit", "-5"},
	{"offset", "-1"},
	{"offset", "x"},
	{"answered", "2"},
	{"rating", "6"},
	{"nm_id", "0"},
	{"nm_id", "abc"},
	{"date_from", "2026-02-30"},
	{"date_to", "15.11.2026"},
	{"counts_only", "2"},
	{"search", strings.Repeat("я", 201)},
}

func checkMalformed(ctx context.Context, r *run) (string, error) {
	var bad []*upstream.AnswerError
	for _, m := range malformed {
		err := r.invalidParam(ctx, withQuery("/feedbacks", q(m.param, m.value)), m.param)
		if de, ok := err.(*upstream.AnswerError); ok {
			bad = append(bad, de)
		} else if err != nil {
			return "", err
		}
	}
	if len(bad) == 0 {
		return fmt.Sprintf("%d malformed values (limit=abc, rating=6, date_from=2026-02-30, a 201-letter search, ...): each 400 invalid_parameter naming its parameter", len(malformed)), nil
	}
	d := differs("%s", bad[0].Detail)
	for _, de := range bad[:min(3, len(bad))] {
		d.On(de.Evidence...)
	}
	if len(bad) > 1 {
		d.Detail += fmt.Sprintf("; %d of %d malformed values differ", len(bad), len(malformed))
	}
	return "", d
}

func checkRepeated(ctx context.Context, r *run) (string, error) {
	for _, c := range []struct{ query, field string }{
		{"rating=1&rating=2", "rating"},
		{"limit=5&limit=5", "limit"},
	} {
		if err := r.invalidParam(ctx, "/feedbacks?"+c.query, c.field); err != nil {
			return "", err
		}
	}
	return "rating=1&rating=2 and limit=5&limit=5: 400 invalid_parameter naming the parameter", nil
}

func checkUnknownPath(ctx context.Context, r *run) (string, error) {
	for _, path := range []string{"/replymock-probe/no-such-path", "/feedbacks/"} {
		ex, err := r.c.Get(ctx, path, cached)
		if err != nil {
			return "", err
		}
		if err := expectError(ex, 404, "not_found", ""); err != nil {
			return "", err
		}
	}
	return "/replymock-probe/no-such-path and /feedbacks/: 404 not_found", nil
}

func checkWrongMethod(ctx context.Context, r *run) (string, error) {
	// PATCH with {} is the one wrong method a read-only probe may send:
	// a merge patch of nothing changes nothing, wherever it lands.
	ex, err := r.c.Do(ctx, http.MethodPatch, "/feedbacks", []byte("{}"))
	if err != nil {
		return "", err
	}
	if err := expectError(ex, 405, "method_not_allowed", ""); err != nil {
		return "", err
	}
	allow := ex.Header.Get("Allow")
	var methods []string
	for _, m := range strings.Split(allow, ",") {
		methods = append(methods, strings.ToUpper(strings.TrimSpace(m)))
	}
	if !slices.Contains(methods, http.MethodGet) || slices.Contains(methods, http.MethodPatch) {
		return "", differs("PATCH /feedbacks: 405 with Allow %q, want one that lists GET and not PATCH", allow).On(ex)
	}
	return fmt.Sprintf("PATCH /feedbacks: 405 method_not_allowed, Allow: %s", allow), nil
}
