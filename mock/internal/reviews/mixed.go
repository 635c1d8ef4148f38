package reviews

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"iter"
	"math"
	"slices"
	"sort"
)

// NewMixedStack is base with own's reviews among its own, at any dates.
// base is not copied: a query runs on both stores and merges their
// matches, at a cost that grows with own's size, not base's. own's ids
// must come after base's.
func NewMixedStack(base, own *Store) (*Stack, error) {
	if own.Len() == 0 {
		return NewStack(base), nil
	}
	byID := func(a, b record) int { return cmp.Compare(a.id, b.id) }
	if lo := slices.MinFunc(own.records, byID).id; lo < base.next {
		return nil, fmt.Errorf("the added reviews' ids start at %d, within the base's (up to %d)", lo, base.next-1)
	}
	return &Stack{layers: []layer{{st: own}, {st: base, start: own.Len()}}, n: own.Len() + base.Len(), mixed: true}, nil
}

func (st *Store) Next() int64 { return st.next }

// newer reports whether record p of st comes before record o of other
// in the list's order: a later created_date, or the same and a higher id.
func (st *Store) newer(p int, other *Store, o int) bool {
	a, b := &st.records[p], &other.records[o]
	if a.created != b.created {
		return a.created > b.created
	}
	return a.id > b.id
}

// findMixed runs q over two layers whose reviews interleave: own (small)
// and base. Every match of own is found, base's only from the first that
// can be on the page, and the two are merged by the list's order.
func findMixed(q Query, own, base *layer, page []int) Result {
	qo := q
	qo.Offset, qo.Limit = 0, int64(own.st.Len())
	ro := own.st.find(qo, own.ed, nil, 0)
	m := int64(len(ro.Page))
	qb := q
	if !q.CountsOnly {
		// The page's first review is the q.Offset-th of both; at most m
		// of own's come before it, so base's first there is at least its
		// (q.Offset-m)-th, and the page takes at most q.Limit+m of base's.
		qb.Offset, qb.Limit = max(q.Offset-m, 0), q.Limit+m
	}
	rb := base.st.find(qb, base.ed, nil, 0)
	res := Result{Page: page, Total: ro.Total + rb.Total,
		Answered: ro.Answered + rb.Answered, Unanswered: ro.Unanswered + rb.Unanswered}
	if q.CountsOnly {
		return res
	}
	io, ib := 0, 0 // the next of own's matches and of base's page
	at := int64(0) // the rank of the next review of both
	if qb.Offset > 0 {
		if len(rb.Page) == 0 {
			return res // past the end
		}
		// Own's matches newer than base's first on the page come before it.
		first := rb.Page[0]
		io = sort.Search(len(ro.Page), func(j int) bool { return !own.st.newer(ro.Page[j], base.st, first) })
		at = qb.Offset + int64(io)
	}
	end := q.Offset + q.Limit
	if end < q.Offset {
		end = math.MaxInt64 // an offset near the largest integer
	}
	for ; at < end && (io < len(ro.Page) || ib < len(rb.Page)); at++ {
		var pos int
		if ib >= len(rb.Page) || io < len(ro.Page) && own.st.newer(ro.Page[io], base.st, rb.Page[ib]) {
			pos = own.start + ro.Page[io]
			io++
		} else {
			pos = base.start + rb.Page[ib]
			ib++
		}
		if at >= q.Offset {
			res.Page = append(res.Page, pos)
		}
	}
	return res
}

// OldestFirst yields the positions of every review, oldest first (the
// list's order backwards): how a living shop's engine goes through them.
func (s *Stack) OldestFirst() iter.Seq[int] {
	return func(yield func(int) bool) {
		top := len(s.layers) - 1
		if s.mixed {
			// The bottom's two stores first, merged by the list's order.
			top -= 2
			own, base := &s.layers[top+1], &s.layers[top+2]
			po, pb := own.st.Len()-1, base.st.Len()-1
			for po >= 0 || pb >= 0 {
				var pos int
				if pb < 0 || po >= 0 && !own.st.newer(po, base.st, pb) {
					pos = own.start + po
					po--
				} else {
					pos = base.start + pb
					pb--
				}
				if !yield(pos) {
					return
				}
			}
		}
		for i := top; i >= 0; i-- {
			l := &s.layers[i]
			for p := l.st.Len() - 1; p >= 0; p-- {
				if !yield(l.start + p) {
					return
				}
			}
		}
	}
}

// Newest is the position of the newest review; false for none.
func (s *Stack) Newest() (int, bool) {
	q := All()
	q.Limit = 1
	res := s.Find(q)
	if len(res.Page) == 0 {
		return 0, false
	}
	return res.Page[0], true
}

// Feedbacks decodes every review of the store, oldest first.
func (st *Store) Feedbacks() ([]Feedback, error) {
	fbs := make([]Feedback, st.Len())
	for i := range fbs {
		if err := json.Unmarshal(st.JSON(st.Len()-1-i), &fbs[i]); err != nil {
			return nil, fmt.Errorf("review at %d: %w", st.Len()-1-i, err)
		}
	}
	return fbs, nil
}

// FeedbackIDs yields the feedback_id of every review of the store, read
// from its JSON without decoding the rest.
func (st *Store) FeedbackIDs() iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for i := range st.records {
			if !yield(i, feedbackIDOf(st.JSON(i))) {
				return
			}
		}
	}
}

// feedbackIDOf reads feedback_id from a record's JSON as AppendJSON
// writes it: {"id":N,"feedback_id":"...",...}.
func feedbackIDOf(js []byte) string {
	const key = `,"feedback_id":"`
	i := bytes.IndexByte(js, ',')
	if i < 0 || !bytes.HasPrefix(js[i:], []byte(key)) {
		return ""
	}
	s := js[i+len(key):]
	if end := bytes.IndexAny(s, `"\`); end >= 0 && s[end] == '"' {
		return string(s[:end]) // no escapes: the bytes themselves
	}
	var v string
	if json.NewDecoder(bytes.NewReader(js[i+len(key)-1:])).Decode(&v) != nil {
		return ""
	}
	return v
}

// Number gives fbs ids from first on, oldest first (within a second, in
// the order given), as New does, without building a store.
func Number(fbs []Feedback, first int64) error {
	order, _, err := oldestFirst(fbs, func(a, b int32) int { return int(a - b) })
	if err != nil {
		return err
	}
	for k, src := range order {
		fbs[src].ID = first + int64(k)
	}
	return nil
}

// ProductOf is the position of the newest review of product nmID; false
// for none.
func (st *Store) ProductOf(nmID int64) (int, bool) {
	prod := st.products[nmID]
	if prod == nil || len(prod[0][0]) == 0 {
		return 0, false
	}
	return int(prod[0][0][0]), true
}
