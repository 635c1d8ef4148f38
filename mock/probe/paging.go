package probe

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/replymock/replymock/mock/probe/upstream"
)

func checkDefaultLimit(ctx context.Context, r *run) (string, error) {
	p, err := r.list(ctx, "")
	if err != nil {
		return "", err
	}
	if err := limited(p, "no limit", 20); err != nil {
		return "", err
	}
	if n, ok := upstream.AsInt(p.offset); !ok || n != 0 {
		return "", differs("no offset: data.offset is %s, want 0", upstream.Show(p.offset)).On(p.ex)
	}
	return fmt.Sprintf("no limit: %d records of %d, limit 20 and offset 0 echoed", len(p.records), p.total), nil
}

// limited checks that p, asked for as what, holds limit records (or
// all, when fewer) and echoes limit.
func limited(p *page, what string, limit int64) error {
	if want := min(limit, p.total); int64(len(p.records)) != want {
		return differs("%s: %d records, want %d (total %d)", what, len(p.records), want, p.total).On(p.ex)
	}
	if n, ok := upstream.AsInt(p.limit); !ok || n != limit {
		return differs("%s: data.limit is %s, want %d", what, upstream.Show(p.limit), limit).On(p.ex)
	}
	return nil
}

func checkLimitBounds(ctx context.Context, r *run) (string, error) {
	var seen []string
	for _, limit := range []int64{1, 100} {
		p, err := r.list(ctx, q("limit", fmt.Sprint(limit)))
		if err != nil {
			return "", err
		}
		if err := limited(p, fmt.Sprintf("limit=%d", limit), limit); err != nil {
			return "", err
		}
		seen = append(seen, fmt.Sprintf("limit=%d: %d", limit, len(p.records)))
	}
	for _, limit := range []string{"0", "101"} {
		if err := r.invalidParam(ctx, "/feedbacks?limit="+limit, "limit"); err != nil {
			return "", err
		}
	}
	return strings.Join(seen, ", ") + "; limit=0 and limit=101: 400 invalid_parameter (field limit)", nil
}

func checkOffsetPastEnd(ctx context.Context, r *run) (string, error) {
	if r.firstErr != nil {
		return "", r.needRecords()
	}
	total := r.first.total
	if total < 0 || total > math.MaxInt64-1000 {
		return "", differs("total is %d", total).On(r.first.ex)
	}
	for _, off := range []int64{total, total + 1000} {
		p, err := r.list(ctx, q("offset", fmt.Sprint(off)))
		if err != nil {
			return "", err
		}
		switch {
		case p.null:
			return "", differs(`offset=%d (total %d): "feedbacks" is null, want []`, off, total).On(p.ex)
		case len(p.records) != 0:
			return "", differs("offset=%d (total %d): %d records, want none", off, total, len(p.records)).On(p.ex)
		case p.total != total:
			return "", r.confirm(ctx, differs("offset=%d: total %d, want %d as without offset", off, p.total, total).On(p.ex, r.first.ex))
		}
		if n, ok := upstream.AsInt(p.offset); !ok || n != off {
			return "", differs("offset=%d: data.offset is %s, want %d", off, upstream.Show(p.offset), off).On(p.ex)
		}
	}
	return fmt.Sprintf("offset=%d and %d: [] with total %d", total, total+1000, total), nil
}

// orderProblem is where p's records are not newest first, or "".
func orderProblem(p *page) string {
	for i := 1; i < len(p.records); i++ {
		a, b := p.records[i-1], p.records[i]
		switch {
		case a.created < b.created:
			return fmt.Sprintf("record %d, %s, comes before the newer %s", i-1, a, b)
		case a.created == b.created && a.id < b.id:
			return fmt.Sprintf("records %d and %d have one created_date %s and ids %d, %d: a tie is not ordered by id descending", i-1, i, a.created, a.id, b.id)
		}
	}
	return ""
}

func checkOrder(ctx context.Context, r *run) (string, error) {
	if p := orderProblem(r.first); p != "" {
		return "", differs("limit=100: %s", p).On(r.first.ex)
	}
	n := len(r.first.records)
	if r.first.total > 100 {
		off := r.first.total - 100
		last, err := r.list(ctx, q("limit", "100", "offset", fmt.Sprint(off)))
		if err != nil {
			return "", err
		}
		if p := orderProblem(last); p != "" {
			return "", differs("offset=%d: %s", off, p).On(last.ex)
		}
		n += len(last.records)
		if len(last.records) > 0 && r.first.records[0].created < last.records[0].created {
			return "", differs("the first page starts at %s, older than the last page's %s: oldest first?", r.first.records[0], last.records[0]).On(r.first.ex, last.ex)
		}
	}
	newest, oldest := r.first.records[0], r.first.records[len(r.first.records)-1]
	return fmt.Sprintf("%d records of the newest and oldest pages in order (newest %s, then %s ...)", n, newest.created, oldest.created), nil
}

func checkStable(ctx context.Context, r *run) (string, error) {
	offsets := []int64{0}
	if r.first.total > 200 {
		offsets = append(offsets, r.first.total/2)
	}
	var seen []string
	for _, off := range offsets {
		query := q("limit", "100", "offset", fmt.Sprint(off))
		a, err := r.list(ctx, query, fresh)
		if err != nil {
			return "", err
		}
		b, err := r.list(ctx, query, fresh)
		if err != nil {
			return "", err
		}
		if ka, kb := a.keys(), b.keys(); !slices.Equal(ka, kb) {
			i := 0
			for i < len(ka) && i < len(kb) && ka[i] == kb[i] {
				i++
			}
			if a.total != b.total {
				return "", r.confirm(ctx, differs("offset=%d asked twice: totals %d and %d", off, a.total, b.total).On(a.ex, b.ex))
			}
			return "", differs("offset=%d asked twice: the answers differ from position %d (%s, then %s)", off, i, at(a, i), at(b, i)).On(a.ex, b.ex)
		}
		seen = append(seen, fmt.Sprint(off))
	}
	return fmt.Sprintf("pages at offsets %s, each asked twice: the same records in the same order", strings.Join(seen, " and ")), nil
}

func at(p *page, i int) string {
	if i < len(p.records) {
		return p.records[i].String()
	}
	return "nothing"
}

// walkSeams is how many page boundaries the walk checks (see seams).
const walkSeams = 2

// maxWalkPages bounds a walk. Past it, the walk reads the first pages
// and the last one, and says it took a sample.
const maxWalkPages = 50

func checkWalk(ctx context.Context, r *run) (string, error) {
	total := r.first.total
	if total < int64(len(r.first.records)) {
		return "", differs("total is %d, but the first page has %d records", total, len(r.first.records)).On(r.first.ex)
	}
	// The walk reads what the budget leaves after the rules that follow,
	// the seams and the last page.
	pages := int((total + 99) / 100)
	budget := r.c.Left() - r.laterCost - walkSeams
	walk := min(pages, maxWalkPages, budget)
	if pages > walk {
		walk = min(walk, budget-1) // and the last page
	}
	if walk < 1 || pages > 1 && walk < 2 {
		return "", unchecked("the request budget leaves no room for a walk (--max-requests %d)", r.c.Max())
	}
	w := &walker{total: total, seen: map[string]int64{}}
	for i := range walk {
		p, err := w.next(ctx, r, int64(i)*100)
		if err != nil {
			return "", err
		}
		w.walked = append(w.walked, p)
	}
	sample := walk < pages
	if sample {
		if _, err := w.next(ctx, r, int64(pages-1)*100); err != nil {
			return "", err
		}
	}
	if err := w.seams(ctx, r); err != nil {
		return "", err
	}
	if sample {
		return fmt.Sprintf("a sample (the shop is big): the first %d of %d pages and the last one, %d records, no overlap, each page full; %d straddling pages line up",
			walk, pages, len(w.seen), min(walkSeams, len(w.walked)-1)), nil
	}
	return fmt.Sprintf("all %d pages of 100: %d records, each once, none missing; %d straddling pages line up", pages, len(w.seen), min(walkSeams, len(w.walked)-1)), nil
}

// walker is a walk through the pages of the list.
type walker struct {
	total  int64            // the first page's
	seen   map[string]int64 // record key -> offset of its page
	walked []*page          // the pages from offset 0 on
}

// next reads the page at off, and checks that it is full, has the walk's
// total, and holds no record of an earlier page.
func (w *walker) next(ctx context.Context, r *run, off int64) (*page, error) {
	p, err := r.list(ctx, q("limit", "100", "offset", fmt.Sprint(off)), fresh)
	if err != nil {
		return nil, err
	}
	if p.total != w.total {
		return nil, unchecked("the shop changed during the walk (total %d, then %d at offset %d); run the probe again", w.total, p.total, off)
	}
	want := min(100, w.total-off)
	if int64(len(p.records)) != want {
		return nil, differs("the page at offset %d has %d records, want %d (total %d)", off, len(p.records), want, w.total).On(p.ex)
	}
	for i, rec := range p.records {
		if rec.id == 0 && rec.feedbackID == "" {
			return nil, unchecked("records carry neither id nor feedback_id: nothing tells them apart")
		}
		if prev, ok := w.seen[rec.key()]; ok {
			return nil, differs("%s is on the page at offset %d and again at offset %d (position %d): pages overlap", rec, prev, off, i).On(p.ex)
		}
		w.seen[rec.key()] = off
	}
	return p, nil
}

// seams checks a page across each of the first boundaries: it must be
// the second half of the page before and the first half of the next.
// This finds a record skipped at a boundary, which a sample cannot.
func (w *walker) seams(ctx context.Context, r *run) error {
	for s := 1; s < len(w.walked) && s <= walkSeams; s++ {
		off := int64(s)*100 - 50
		p, err := r.list(ctx, q("limit", "100", "offset", fmt.Sprint(off)), fresh)
		if err != nil {
			return err
		}
		if p.total != w.total {
			return unchecked("the shop changed during the walk (total %d, then %d); run the probe again", w.total, p.total)
		}
		prev, next := w.walked[s-1], w.walked[s]
		want := append(prev.keys()[50:], next.keys()[:min(50, len(next.records))]...)
		if got := p.keys(); !slices.Equal(got, want) {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			return differs("the page at offset %d does not line up with those at %d and %d: position %d is %s, want the record at offset %d",
				off, off-50, off+50, i, at(p, i), off+int64(i)).On(p.ex, prev.ex, next.ex)
		}
	}
	return nil
}
