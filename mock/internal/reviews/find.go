package reviews

import (
	"math"
	"math/bits"
	"slices"
	"sort"
	"strings"
)

func (st *Store) Find(q Query) Result { return st.find(q, nil, nil, 0) }

// find runs q over the records as ed changes them, appending the page
// to page, each position plus shift.
func (st *Store) find(q Query, ed *edits, page []int, shift int) Result {
	recs := st.records
	// Sorted descending: days run from newest to oldest.
	lo, hi := 0, len(recs)
	if q.DayTo != math.MaxInt32 {
		lo = sort.Search(len(recs), func(i int) bool { return recs[i].day <= q.DayTo })
	}
	if q.DayFrom != math.MinInt32 {
		hi = sort.Search(len(recs), func(i int) bool { return recs[i].day < q.DayFrom })
	}
	if lo >= hi {
		return Result{Page: page}
	}
	if q.Search != "" {
		bp := st.searchBits(Fold(q.Search))
		defer st.pool.Put(bp)
		return st.findIn(q, lo, hi, ed, *bp, page, shift)
	}
	if len(ed.flipsIn(postKey{0, 0, 0}, lo, hi)) > 0 {
		// Reviews answered no longer: the posting lists would need a
		// union and a difference at once, which a bitset pass does.
		return st.findIn(q, lo, hi, ed, nil, page, shift)
	}
	res := Result{Page: page}
	all := st.window(postKey{q.NmID, q.Rating, -1}, lo, hi)
	answered := st.window(postKey{q.NmID, q.Rating, 1}, lo, hi)
	flips := ed.flipsIn(postKey{q.NmID, q.Rating, 1}, lo, hi) // answered now, though not in the store
	res.Answered = answered.len() + len(flips)
	res.Unanswered = all.len() - res.Answered
	sel := all
	var join, leave []int32 // flips joining sel, or leaving it
	switch q.Answered {
	case 1:
		sel, join = answered, flips
	case 0:
		sel, leave = st.window(postKey{q.NmID, q.Rating, 0}, lo, hi), flips
	}
	res.Total = sel.len() + len(join) - len(leave)
	if !q.CountsOnly && q.Offset < int64(res.Total) {
		off, n := int(q.Offset), int(min(q.Limit, int64(res.Total)-q.Offset))
		res.Page = slices.Grow(res.Page, n)
		switch {
		case len(join) > 0:
			res.Page = appendUnion(res.Page, sel, join, off, n, shift)
		case len(leave) > 0:
			res.Page = appendMinus(res.Page, sel, leave, off, n, shift)
		default:
			for i := off; i < off+n; i++ {
				res.Page = append(res.Page, shift+sel.at(i))
			}
		}
	}
	return res
}

// appendUnion appends n records of the union of a and b (disjoint, both
// ascending), from its k-th on, each plus shift.
func appendUnion(page []int, a span, b []int32, k, n, shift int) []int {
	// j of b come before the union's k-th: b[j]'s rank is j plus the
	// records of a before it, and ranks grow with j.
	j := sort.Search(len(b), func(j int) bool { return j+a.search(b[j]) >= k })
	ia, ib := k-j, j
	for range n {
		if ib < len(b) && (ia >= a.len() || int(b[ib]) < a.at(ia)) {
			page = append(page, shift+int(b[ib]))
			ib++
		} else {
			page = append(page, shift+a.at(ia))
			ia++
		}
	}
	return page
}

// appendMinus appends n records of a without b (b within a, both
// ascending), from the k-th left on, each plus shift.
func appendMinus(page []int, a span, b []int32, k, n, shift int) []int {
	// j of b come before the k-th left: before b[j], a keeps
	// a.search(b[j])-j records, which grows with j.
	j := sort.Search(len(b), func(j int) bool { return a.search(b[j])-j > k })
	ia, ib := k+j, j
	for n > 0 {
		p := a.at(ia)
		ia++
		if ib < len(b) && int(b[ib]) == p {
			ib++
			continue
		}
		page = append(page, shift+p)
		n--
	}
	return page
}

// span is the part of a posting list inside a window of records; with no
// list (every record), the window itself.
type span struct {
	list   []int32 // nil: the indices lo..hi-1 themselves
	lo, hi int
}

func (s span) len() int {
	if s.list == nil {
		return s.hi - s.lo
	}
	return len(s.list)
}

func (s span) at(i int) int {
	if s.list == nil {
		return s.lo + i
	}
	return int(s.list[i])
}

// search is how many of the span's records come before position p.
func (s span) search(p int32) int {
	if s.list == nil {
		return min(max(int(p)-s.lo, 0), s.hi-s.lo)
	}
	i, _ := slices.BinarySearch(s.list, p)
	return i
}

// window returns the records of key within [lo, hi).
func (st *Store) window(key postKey, lo, hi int) span {
	a := int(key.answered) + 1
	var list []int32
	switch {
	case key.nmID != 0:
		prod := st.products[key.nmID]
		if prod == nil {
			return span{list: []int32{}}
		}
		list = prod[key.rating][a]
	case key.rating == 0 && a == 0:
		return span{lo: lo, hi: hi}
	default:
		list = st.all[key.rating][a]
	}
	if list == nil {
		list = []int32{} // no such records: an empty list, not "every record"
	}
	from, to := 0, len(list) // the whole list: every record's window
	if lo > 0 {
		from, _ = slices.BinarySearch(list, int32(lo))
	}
	if hi < len(st.records) {
		to, _ = slices.BinarySearch(list, int32(hi))
	}
	return span{list: list[from:to:to]}
}

// findIn runs a query over the records marked in the bitset match (nil:
// every record), intersected with the other filters' bitsets: a search,
// or a stack with reviews answered no longer.
func (st *Store) findIn(q Query, lo, hi int, ed *edits, match []uint64, page []int, shift int) Result {
	res := Result{Page: page}
	taken := int64(0)
	take := func(pos int) {
		if int64(res.Total) >= q.Offset && taken < q.Limit && !q.CountsOnly {
			res.Page = append(res.Page, shift+pos)
			taken++
		}
		res.Total++
	}
	if q.NmID != 0 {
		// One product: its posting list is short; test each record.
		all := st.window(postKey{q.NmID, q.Rating, -1}, lo, hi)
		for i := range all.len() {
			pos := all.at(i)
			if match != nil && match[pos/64]&(1<<(pos%64)) == 0 {
				continue
			}
			ans := st.records[pos].answered != ed.flipped(pos)
			if ans {
				res.Answered++
			} else {
				res.Unanswered++
			}
			if q.Answered < 0 || ans == (q.Answered == 1) {
				take(pos)
			}
		}
		return res
	}
	filter := st.bits[q.Rating][0] // nil: every record
	if q.Rating != 0 && filter == nil {
		return res // no review has this rating
	}
	answered := st.bits[0][2] // nil: none answered
	var flips []uint64        // nil: no change
	if ed != nil {
		flips = ed.bits
	}
	for w := lo / 64; w <= (hi-1)/64; w++ {
		word := windowMask(w, lo, hi)
		if match != nil {
			word &= match[w]
		}
		if filter != nil {
			word &= filter[w]
		}
		var ans uint64
		if answered != nil {
			ans = answered[w]
		}
		if flips != nil {
			ans ^= flips[w]
		}
		nAns := bits.OnesCount64(word & ans)
		res.Answered += nAns
		res.Unanswered += bits.OnesCount64(word) - nAns
		switch q.Answered {
		case 1:
			word &= ans
		case 0:
			word &^= ans
		}
		c := bits.OnesCount64(word)
		if q.CountsOnly || taken >= q.Limit || int64(res.Total+c) <= q.Offset {
			res.Total += c
			continue
		}
		for ; word != 0; word &= word - 1 {
			take(w*64 + bits.TrailingZeros64(word))
		}
	}
	return res
}

// windowMask keeps the bits of word w that fall in [lo, hi).
func windowMask(w, lo, hi int) uint64 {
	m := ^uint64(0)
	if w == lo/64 {
		m &= ^uint64(0) << (lo % 64)
	}
	if w == (hi-1)/64 && hi%64 != 0 {
		m &= (1 << (hi % 64)) - 1
	}
	return m
}

// searchBits marks the records whose text, pros, cons, supplier_article
// or nm_id contain needle (already folded). The caller returns the
// bitset to the pool.
func (st *Store) searchBits(needle string) *[]uint64 {
	words := (len(st.records) + 63) / 64
	bp, ok := st.pool.Get().(*[]uint64)
	if !ok {
		b := make([]uint64, words)
		bp = &b
	}
	clear(*bp)
	b := *bp
	for k := range st.fields {
		f := &st.fields[k]
		for v, s := range f.values {
			if strings.Contains(s, needle) {
				for _, pos := range f.postings[v] {
					b[pos/64] |= 1 << (pos % 64)
				}
			}
		}
	}
	return bp
}
