package probe

import (
	"context"
	"fmt"
	"strings"
)

// countFilters are the filter sets the counts rules compare: none, and
// one of each kind, with values from the first page.
func (r *run) countFilters() []string {
	s := r.sample()
	fs := []string{"", ratingFilter(s.rating).query, nmFilter(s.nmID).query, fromFilter(s.day()).query}
	if term, _ := searchTerm(r.first.records); term != "" {
		fs = append(fs, searchFilter(term).query)
	}
	return fs
}

// named is a filter set as a report shows it.
func named(f string) string {
	if f == "" {
		return "no filter"
	}
	return unescape(f)
}

func checkCountsMatchList(ctx context.Context, r *run) (string, error) {
	var seen []string
	for _, f := range r.countFilters() {
		c, err := r.countsOf(ctx, f)
		if err != nil {
			return "", err
		}
		for _, part := range []struct {
			answered string
			want     int64
			name     string
		}{{"", c.total, "total"}, {"answered=1", c.answered, "answered"}, {"answered=0", c.unanswered, "unanswered"}} {
			p, err := r.list(ctx, and(f, part.answered, "limit=1"))
			if err != nil {
				return "", err
			}
			if p.total != part.want {
				listQuery := and(f, part.answered)
				return "", r.confirm(ctx, differs("%s: counts_only gives %s %d, the list (%s) total %d",
					named(f), part.name, part.want, named(listQuery), p.total).On(c.ex, p.ex))
			}
		}
		seen = append(seen, fmt.Sprintf("%s %d/%d/%d", named(f), c.total, c.answered, c.unanswered))
	}
	return "total/answered/unanswered equal the list's totals: " + strings.Join(seen, ", "), nil
}

func checkCountsSum(ctx context.Context, r *run) (string, error) {
	var seen []string
	for _, f := range r.countFilters() {
		c, err := r.countsOf(ctx, f)
		if err != nil {
			return "", err
		}
		if c.total != c.answered+c.unanswered {
			return "", differs("%s: total %d, but answered %d + unanswered %d = %d", named(f), c.total, c.answered, c.unanswered, c.answered+c.unanswered).On(c.ex)
		}
		seen = append(seen, fmt.Sprintf("%d = %d + %d", c.total, c.answered, c.unanswered))
	}
	return fmt.Sprintf("for %d filter sets: %s", len(seen), strings.Join(seen, ", ")), nil
}

func checkCountsParams(ctx context.Context, r *run) (string, error) {
	for _, f := range []string{"", ratingFilter(r.sample().rating).query} {
		c, err := r.countsOf(ctx, f)
		if err != nil {
			return "", err
		}
		for _, a := range []string{"answered=1", "answered=0"} {
			ca, err := r.countsOf(ctx, and(f, a))
			if err != nil {
				return "", err
			}
			if !ca.equal(c) {
				return "", r.confirm(ctx, differs("counts_only=1&%s gives %s, without answered %s: counts_only applies answered, where the contract ignores it (the counts are the split by answered)",
					named(and(f, a)), ca, c).On(ca.ex, c.ex))
			}
		}
	}
	if err := r.invalidParam(ctx, "/feedbacks?counts_only=1&limit=0", "limit"); err != nil {
		return "", err
	}
	return "answered=1 and answered=0 give the same split as no answered; counts_only=1&limit=0: 400 invalid_parameter (field limit)", nil
}
