package probe

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/replymock/replymock/mock/probe/upstream"
	"golang.org/x/text/cases"
)

// filter is one query filter and what it means for one record.
type filter struct {
	query string // "rating=5"
	match func(rec record) bool
}

func ratingFilter(n int64) filter {
	return filter{q("rating", fmt.Sprint(n)), func(rec record) bool { return rec.rating == n }}
}

func answeredFilter(yes bool) filter {
	v := "0"
	if yes {
		v = "1"
	}
	return filter{q("answered", v), func(rec record) bool { return rec.answered() == yes }}
}

func nmFilter(n int64) filter {
	return filter{q("nm_id", fmt.Sprint(n)), func(rec record) bool { return rec.nmID == n }}
}

func fromFilter(day string) filter {
	return filter{q("date_from", day), func(rec record) bool { return rec.day() >= day }}
}

func toFilter(day string) filter {
	return filter{q("date_to", day), func(rec record) bool { return rec.day() <= day }}
}

func searchFilter(term string) filter {
	return filter{q("search", term), func(rec record) bool { return searchHit(rec, term) != "" }}
}

// fold is full Unicode case folding, as the contract's search uses.
func fold(s string) string { return cases.Fold().String(s) }

// searched are the fields search looks in.
func searched(rec record) []namedValue {
	return []namedValue{
		{"text", rec.text}, {"pros", rec.pros}, {"cons", rec.cons},
		{"supplier_article", rec.article}, {"nm_id", strconv.FormatInt(rec.nmID, 10)},
	}
}

// namedValue is one of a record's fields, named as the API names it.
type namedValue struct{ name, value string }

// searchHit names the field of rec that contains term, as search finds
// it, or is "".
func searchHit(rec record, term string) string {
	t := fold(strings.TrimSpace(term))
	for _, f := range searched(rec) {
		if strings.Contains(fold(f.value), t) {
			return f.name
		}
	}
	return ""
}

// filtered lists the first 100 records f gives, and checks that each
// matches f; what says how one would not.
func (r *run) filtered(ctx context.Context, f filter, what string) (*page, error) {
	p, err := r.list(ctx, and(f.query, "limit=100"))
	if err != nil {
		return nil, err
	}
	for i, rec := range p.records {
		if !f.match(rec) {
			return nil, differs("%s: record %d, %s, does not match it (%s)", unescape(f.query), i, rec, what).On(p.ex)
		}
	}
	return p, nil
}

// sample is a record from the middle of the first page. Filter values
// come from it.
func (r *run) sample() record {
	return r.first.records[len(r.first.records)/2]
}

func checkAnswered(ctx context.Context, r *run) (string, error) {
	var totals []int64
	for _, yes := range []bool{true, false} {
		what := "it has no answer, or a rejected one"
		if !yes {
			what = "it has an answer that was not rejected"
		}
		p, err := r.filtered(ctx, answeredFilter(yes), what)
		if err != nil {
			return "", err
		}
		totals = append(totals, p.total)
	}
	if totals[0]+totals[1] != r.first.total {
		return "", r.confirm(ctx, differs("answered=1 gives %d and answered=0 %d: together %d, but the shop has %d", totals[0], totals[1], totals[0]+totals[1], r.first.total).On(r.first.ex))
	}
	return fmt.Sprintf("answered=1: %d, answered=0: %d, together the %d; each page obeys", totals[0], totals[1], r.first.total), nil
}

func checkRating(ctx context.Context, r *run) (string, error) {
	var sum int64
	var parts []string
	for n := int64(1); n <= 5; n++ {
		p, err := r.filtered(ctx, ratingFilter(n), "product_valuation differs")
		if err != nil {
			return "", err
		}
		sum += p.total
		parts = append(parts, fmt.Sprintf("%d: %d", n, p.total))
	}
	if sum != r.first.total {
		return "", r.confirm(ctx, differs("ratings 1..5 give %s: together %d, but the shop has %d", strings.Join(parts, ", "), sum, r.first.total).On(r.first.ex))
	}
	return "ratings " + strings.Join(parts, ", ") + fmt.Sprintf("; together the %d", sum), nil
}

func checkNmID(ctx context.Context, r *run) (string, error) {
	s := r.sample()
	if s.nmID <= 0 {
		return "", unchecked("%s has no nm_id to filter by", s)
	}
	f := nmFilter(s.nmID)
	p, err := r.filtered(ctx, f, "another nm_id")
	if err != nil {
		return "", err
	}
	if p.total == 0 {
		return "", differs("%s gives nothing, but %s has it", unescape(f.query), s).On(p.ex, r.first.ex)
	}
	if p.total <= 100 && !slices.Contains(p.keys(), s.key()) {
		return "", differs("%s: %s, which has it, is not among the %d records", unescape(f.query), s, p.total).On(p.ex, r.first.ex)
	}
	return fmt.Sprintf("nm_id=%d: %d records, all of that product", s.nmID, p.total), nil
}

func checkDates(ctx context.Context, r *run) (string, error) {
	s := r.sample()
	day := s.day()
	t, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return "", unchecked("%s has no readable created_date to take a day from", s)
	}
	from, to := fromFilter(day), toFilter(day)
	both := filter{and(from.query, to.query), func(rec record) bool { return rec.day() == day }}
	var ps []*page
	for _, f := range []filter{both, from, to} {
		p, err := r.filtered(ctx, f, "created_date out of range")
		if err != nil {
			return "", err
		}
		ps = append(ps, p)
	}
	one, after, before := ps[0], ps[1], ps[2]
	if one.total == 0 || one.total <= 100 && !slices.Contains(one.keys(), s.key()) {
		return "", differs("%s: %s, created that day, is not among the %d records: the bounds are not inclusive", unescape(both.query), s, one.total).On(one.ex, r.first.ex)
	}
	if after.total+before.total-one.total != r.first.total {
		return "", r.confirm(ctx, differs("date_from=%s gives %d, date_to=%s %d, both %d: %d+%d-%d = %d, but the shop has %d; a bound is not inclusive",
			day, after.total, day, before.total, one.total, after.total, before.total, one.total, after.total+before.total-one.total, r.first.total).On(after.ex, before.ex, one.ex))
	}
	if err := r.invalidParam(ctx, withQuery("/feedbacks", q("date_from", t.AddDate(0, 0, 1).Format(time.DateOnly), "date_to", day)), "date_from"); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s: %d that day (%s among them), %d from it, %d up to it, inclusive both; from after to: 400 invalid_parameter (field date_from)",
		day, one.total, s, after.total, before.total), nil
}

// words are the runs of letters in s.
func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
}

// searchTerm picks a lower-case word from the records' texts to search
// for. It prefers a Cyrillic one of 5 letters or more.
func searchTerm(recs []record) (string, bool) {
	var latin string
	for _, rec := range recs {
		for _, w := range words(rec.text) {
			if w != strings.ToLower(w) || utf8.RuneCountInString(w) < 4 {
				continue
			}
			cyrillic := strings.ContainsFunc(w, func(r rune) bool { return unicode.Is(unicode.Cyrillic, r) })
			if cyrillic && utf8.RuneCountInString(w) >= 5 {
				return w, true
			}
			if latin == "" {
				latin = w
			}
		}
	}
	return latin, false
}

// swapCase turns each letter's case around: ЁлКа becomes ёЛкА.
func swapCase(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsUpper(r) {
			return unicode.ToLower(r)
		}
		return unicode.ToUpper(r)
	}, s)
}

// caseStable picks a word of the records' texts that every record
// holding it holds in that case. A search for it gives the same whether
// or not a server folds case, so filter.combined tests intersection
// alone.
func caseStable(recs []record) string {
	for _, rec := range recs {
		for _, w := range words(rec.text) {
			if utf8.RuneCountInString(w) < 4 {
				continue
			}
			unstable := slices.ContainsFunc(recs, func(other record) bool {
				exact := strings.Contains(other.text, w) || strings.Contains(other.pros, w) || strings.Contains(other.cons, w) ||
					strings.Contains(other.article, w)
				return exact != (searchHit(other, w) != "")
			})
			if !unstable {
				return w
			}
		}
	}
	return ""
}

func checkCombined(ctx context.Context, r *run) (string, error) {
	s := r.sample()
	// A narrow set, all of it on one page: the reference for the rest.
	var base *page
	var baseQuery string
	for _, cand := range []string{nmFilter(s.nmID).query, and(nmFilter(s.nmID).query, fromFilter(s.day()).query, toFilter(s.day()).query)} {
		p, err := r.list(ctx, and(cand, "limit=100"))
		if err != nil {
			return "", err
		}
		if p.total >= 1 && p.total <= 100 {
			base, baseQuery = p, cand
			break
		}
	}
	if base == nil {
		return "", unchecked("no narrow set to intersect: the product of %s has over 100 reviews even on one day", s)
	}
	if int64(len(base.records)) != base.total {
		return "", unchecked("%s: total %d but %d records on a page of 100", baseQuery, base.total, len(base.records))
	}
	mid := base.records[len(base.records)/2]
	checks := []filter{ratingFilter(s.rating), answeredFilter(s.answered()), fromFilter(mid.day())}
	if w := caseStable(base.records); w != "" {
		checks = append(checks, searchFilter(w))
	}
	ra := answeredFilter(!s.answered())
	checks = append(checks, filter{and(ratingFilter(s.rating).query, ra.query), func(rec record) bool {
		return rec.rating == s.rating && ra.match(rec)
	}})
	var names []string
	for _, f := range checks {
		if name, _, _ := strings.Cut(f.query, "="); strings.Contains("&"+baseQuery, "&"+name+"=") {
			continue // the base set has it already
		}
		var want []string
		for _, rec := range base.records {
			if f.match(rec) {
				want = append(want, rec.key())
			}
		}
		p, err := r.list(ctx, and(baseQuery, f.query, "limit=100"))
		if err != nil {
			return "", err
		}
		got := p.keys()
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) || p.total != int64(len(want)) {
			return "", differs("%s gives %d records (total %d); of the %d that %s gives, %d match %s",
				unescape(and(baseQuery, f.query)), len(got), p.total, base.total, unescape(baseQuery), len(want), unescape(f.query)).On(p.ex, base.ex)
		}
		names = append(names, fmt.Sprintf("%s: %d", f.query, len(want)))
	}
	return fmt.Sprintf("within %s (%d): %s", unescape(baseQuery), base.total, unescape(strings.Join(names, ", "))), nil
}

// unescape is a query as a person reads it.
func unescape(s string) string {
	ex := upstream.Exchange{Path: "?" + s}
	return strings.TrimPrefix(ex.Request(), " ?")
}
