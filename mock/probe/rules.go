package probe

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"strings"

	"github.com/replymock/replymock/mock/probe/upstream"
)

// rule is one contract rule the probe checks.
type rule struct {
	id     string
	title  string
	writes bool // PATCHes the settings: only with AllowWrites
	// cost is about how many requests the rule sends. The walk leaves
	// that much of the budget to the rules after it.
	cost  int
	check check
}

// check is a rule's check. It returns the line shown when the rule holds.
type check func(ctx context.Context, r *run) (string, error)

// withRecords runs c only when the first page is known and holds
// records, which it takes its values from.
func withRecords(c check) check {
	return func(ctx context.Context, r *run) (string, error) {
		if err := r.needRecords(); err != nil {
			return "", err
		}
		return c(ctx, r)
	}
}

// rules are checked in this order, which is also the report's.
var rules = []rule{
	{"shape.settings", "GET /settings/ai: 5 feedback elements ordered by rating 1..5 with the spec's fields and types, and a question object with its own", false, 0, checkSettingsShape},
	{"shape.records", "GET /feedbacks: data is {feedbacks, total, limit, offset}; each record has the spec's fields and types, photos and video in the upstream's shapes", false, 1, withRecords(checkRecordsShape)},
	{"shape.envelope", `answers are JSON envelopes: {"success":true,"data":...}, or {"success":false,"data":null,"error":{code,message[,field]}}`, false, 1, checkEnvelope},
	{"list.default-limit", "without limit, a page has 20 records; limit and offset echo 20 and 0", false, 1, checkDefaultLimit},
	{"list.limit-bounds", "limit 1 and 100 are accepted, 0 and 101 are 400 invalid_parameter (field limit)", false, 3, checkLimitBounds},
	{"list.offset-past-end", `an offset at or past the end gives "feedbacks": [] with the same total`, false, 2, checkOffsetPastEnd},
	{"list.order", "records come newest first: created_date descending, then id descending", false, 1, withRecords(checkOrder)},
	{"list.stable", "the same page asked twice gives the same records in the same order", false, 4, withRecords(checkStable)},
	{"list.walk", "the pages of a walk neither overlap nor miss a record", false, 0, withRecords(checkWalk)},
	{"filter.answered", "answered=1 gives only records with an answer_text not rejected, answered=0 only the others; together, all", false, 2, withRecords(checkAnswered)},
	{"filter.rating", "rating=N gives only records with product_valuation N; ratings 1..5 together, all", false, 5, withRecords(checkRating)},
	{"filter.nm_id", "nm_id=N gives only the records of that product", false, 1, withRecords(checkNmID)},
	{"filter.dates", "date_from and date_to are inclusive dates of created_date; date_from after date_to is 400 invalid_parameter", false, 4, withRecords(checkDates)},
	{"filter.search", "search, trimmed, finds a substring (a part of a word too) of text, pros, cons, supplier_article or the decimal nm_id, folding case (Cyrillic, ё/Ё included); empty is no filter; 200 characters after trimming are accepted", false, 20, withRecords(checkSearch)},
	{"filter.combined", "filters together give the intersection of what each gives", false, 7, withRecords(checkCombined)},
	{"counts.match-list", "counts_only=1 gives the list's total, and its answered and unanswered totals, for the same filters", false, 20, withRecords(checkCountsMatchList)},
	{"counts.sum", "counts_only=1: total = answered + unanswered", false, 0, withRecords(checkCountsSum)},
	{"counts.params", "counts_only=1 ignores answered (it is the split) and still validates limit", false, 5, withRecords(checkCountsParams)},
	{"errors.malformed", "a malformed parameter value is 400 invalid_parameter naming the parameter", false, 12, checkMalformed},
	{"errors.repeated", "a parameter given twice is 400 invalid_parameter naming it, even with equal values", false, 2, checkRepeated},
	{"errors.unknown-path", "an unknown path is 404 not_found, with no redirect (a trailing slash included)", false, 2, checkUnknownPath},
	{"errors.wrong-method", "a method the path does not take is 405 method_not_allowed with an Allow header", false, 1, checkWrongMethod},
	{"writes.round-trip", "PATCH answers the full settings with the change; {} changes nothing; GET then shows the same", true, 4, checkRoundTrip},
	{"writes.unified", "use_unified_settings is one flag; while 1, shared fields are written to all ratings, reply_mode and tone stay per rating", true, 5, checkUnified},
	{"writes.atomic", "a PATCH with an error is 400 invalid_body naming the field, and changes nothing", true, 3, checkAtomic},
	{"writes.restored", "the original settings are back at the end", true, 0, nil}, // done by restore
}

// restoreReserve is the part of the budget kept for putting the
// settings back: a PATCH, a GET that checks it, and one retry.
const restoreReserve = 3

// run is one probe run's state, shared by its rules.
type run struct {
	c      *upstream.Client
	writes bool

	// From the first two requests: every rule starts from them.
	settingsEx  *upstream.Exchange
	settings    any
	settingsErr error
	first       *page // GET /feedbacks?limit=100
	firstErr    error

	laterCost int // the cost of the rules after the one running

	// The write rules' state.
	original *settingsDoc // as they were before the first write
	current  *settingsDoc // as the last answer showed them
	wrote    bool         // a write was sent: restore is due
}

// selected are the rules a run checks, in order.
func selected(writes bool) []rule {
	var list []rule
	for _, ru := range rules {
		if !ru.writes || writes {
			list = append(list, ru)
		}
	}
	return list
}

// all runs every rule into rep.
func (r *run) all(ctx context.Context, rep *Report, progress func(Progress)) error {
	list := selected(r.writes)
	report := func(p Progress) {
		if progress != nil {
			p.Rules, p.Requests = len(list), r.c.Sent()
			progress(p)
		}
	}
	report(Progress{Rule: "first requests"})
	if err := r.discover(ctx); err != nil {
		var ue *upstream.RequestError
		if !errors.As(err, &ue) {
			return err
		}
		rep.Aborted = ue.Reason
		for _, ru := range list {
			rep.Results = append(rep.Results, Result{Rule: ru.id, Title: ru.title, Status: NotChecked, Detail: ue.Reason})
		}
		if ue.Interrupted {
			return ctx.Err()
		}
		return nil
	}
	var stop error // an *AuthError or ctx's error: the rest is not checked
	for i, ru := range list {
		if ru.id == "writes.restored" {
			rep.Results = append(rep.Results, r.restore(ctx, ru))
			continue
		}
		if stop != nil {
			rep.Results = append(rep.Results, Result{Rule: ru.id, Title: ru.title, Status: NotChecked, Detail: "not run: " + stopReason(stop)})
			continue
		}
		report(Progress{Rule: ru.id, Done: i})
		res, err := r.one(ctx, ru, list[i+1:])
		rep.Results = append(rep.Results, res)
		var ae *AuthError
		switch {
		case errors.As(err, &ae):
			stop = ae
		case ctx.Err() != nil:
			stop = ctx.Err()
		}
	}
	report(Progress{Done: len(list)})
	return stop
}

func stopReason(err error) string {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return "interrupted"
	}
	return err.Error()
}

// one runs a rule; later are the rules after it, whose cost the walk leaves.
func (r *run) one(ctx context.Context, ru rule, later []rule) (res Result, err error) {
	sent, start := r.c.Sent(), r.c.Now()
	res.Rule, res.Title = ru.id, ru.title
	defer func() {
		if p := recover(); p != nil {
			res.Status, res.Detail, res.Evidence = NotChecked, fmt.Sprintf("the probe failed (a bug, please report it): %v: %s", p, firstFrames(debug.Stack())), nil
		}
		res.Requests = r.c.Sent() - sent
		res.Duration = r.c.Now().Sub(start)
	}()
	r.laterCost = 0
	for _, l := range later {
		r.laterCost += l.cost
	}
	detail, err := ru.check(ctx, r)
	var de *upstream.AnswerError
	switch {
	case err == nil:
		res.Status, res.Detail = Holds, detail
	case errors.As(err, &de):
		res.Status, res.Detail = Differs, de.Detail
		for _, ex := range de.Evidence {
			res.Evidence = append(res.Evidence, evidence(ex))
		}
	default:
		res.Status, res.Detail = NotChecked, err.Error()
	}
	return res, err
}

// firstFrames is the two frames of stack under the panic: enough to
// find the bug without flooding the report.
func firstFrames(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(l, "\t") && !strings.Contains(l, "/runtime/") && !strings.Contains(l, "/probe/rules.go") {
			out = append(out, strings.TrimSpace(l))
			if len(out) == 2 {
				break
			}
		}
	}
	return strings.Join(out, " < ")
}

// discover sends the first two requests, which every rule starts from.
// An error ends the run: an *AuthError, or an *upstream.RequestError when
// neither answered as this API.
func (r *run) discover(ctx context.Context) error {
	r.settingsEx, r.settings, r.settingsErr = r.getData(ctx, "/settings/ai", true)
	var ae *AuthError
	if errors.As(r.settingsErr, &ae) {
		return ae
	}
	if isInterrupted(r.settingsErr) {
		return r.settingsErr
	}
	r.first, r.firstErr = r.list(ctx, "limit=100")
	if errors.As(r.firstErr, &ae) {
		return ae
	}
	if r.settingsErr == nil || r.firstErr == nil {
		return nil
	}
	if isInterrupted(r.firstErr) {
		return r.firstErr
	}
	prefix := "the target does not answer as this API: "
	var u1, u2 *upstream.RequestError
	if errors.As(r.settingsErr, &u1) && errors.As(r.firstErr, &u2) {
		prefix = "the target did not answer: " // no answer, or a 5xx
	}
	a, b := r.settingsErr.Error(), r.firstErr.Error()
	const pa, pb = "GET /settings/ai: ", "GET /feedbacks?limit=100: "
	if strings.HasPrefix(a, pa) && strings.HasPrefix(b, pb) && a[len(pa):] == b[len(pb):] {
		return &upstream.RequestError{Reason: prefix + "GET /settings/ai and /feedbacks: " + a[len(pa):]}
	}
	return &upstream.RequestError{Reason: prefix + a + "; " + b}
}

func isInterrupted(err error) bool {
	var ue *upstream.RequestError
	return errors.As(err, &ue) && ue.Interrupted
}

// needRecords is nil when the first page is known and holds records.
func (r *run) needRecords() error {
	if r.firstErr != nil {
		return unchecked("the first page of /feedbacks could not be read: %s", r.firstErr)
	}
	if len(r.first.records) == 0 {
		return unchecked("the shop has no reviews")
	}
	return nil
}

// confirm turns a difference in totals into "could not check" when the
// shop's total moved meanwhile: a live shop gets new reviews while the
// probe runs.
func (r *run) confirm(ctx context.Context, err error) error {
	var de *upstream.AnswerError
	if !errors.As(err, &de) {
		return err
	}
	now, lerr := r.list(ctx, "limit=1", fresh)
	if lerr == nil && now.total != r.first.total {
		return unchecked("the shop changed while it was probed (total %d, then %d); run the probe again", r.first.total, now.total)
	}
	return err
}

// differs is a rule that does not hold; On adds the evidence.
func differs(format string, args ...any) *upstream.AnswerError {
	return &upstream.AnswerError{Detail: fmt.Sprintf(format, args...)}
}

// unchecked is a rule the probe could not check, and why.
func unchecked(format string, args ...any) error {
	return &upstream.RequestError{Reason: fmt.Sprintf(format, args...)}
}

// evidence is an exchange as a report shows it.
func evidence(ex *upstream.Exchange) Evidence {
	ev := Evidence{Request: ex.Request(), Status: ex.Status, Answer: upstream.Trim(ex.Answer, 400)}
	if ex.Body != nil {
		ev.Body = string(ex.Body)
	}
	if loc := ex.Header.Get("Location"); loc != "" && ex.Status >= 300 && ex.Status < 400 {
		ev.Answer = strings.TrimSpace("Location: " + loc + " " + ev.Answer)
	}
	if ex.Status == http.StatusMethodNotAllowed {
		ev.Answer = strings.TrimSpace("Allow: " + ex.Header.Get("Allow") + " " + ev.Answer)
	}
	return ev
}
