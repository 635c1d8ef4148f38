// Package reviews holds a shop's reviews indexed for the list's queries:
// filters, counts and pages are answered here, with no HTTP, from records
// encoded to JSON once.
package reviews

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math/bits"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"
)

// record is a Feedback prepared for queries: the fields filters read and
// its search values. It holds no pointers, so a million of them cost the
// GC nothing; its JSON, encoded once, is located by jsonLoc.
type record struct {
	created  int64 // created_date as Unix seconds (the timestamp is zone-less; read as UTC)
	id       int64
	nmID     int64
	day      int32  // created_date's date as days since 1970-01-01
	text     uint32 // value ids in the search tables
	pros     uint32
	cons     uint32
	product  uint32
	rating   int8
	answered bool
	draft    bool // answer_state is AnswerStateDraft
	empty    bool // no text, pros or cons: a rating-only review
}

// jsonLoc is where a record's JSON is: blocks[block][off:end].
type jsonLoc struct {
	block    int32
	off, end uint32
}

// jsonBlock is the size of the blocks records' JSON is packed into: big
// enough for any review (the API bounds texts), small enough that the
// space a block leaves unused is negligible.
const jsonBlock = 4 << 20

// smallStore is the number of records below which a store is built by
// one encoder: goroutines would cost more than they save.
const smallStore = 2048

// postKey names a posting list: the records with one nm_id (0 any), one
// rating (0 any) and one answered state (-1 any).
type postKey struct {
	nmID     int64
	rating   int8
	answered int8
}

// combos holds a posting list per (rating, answered) combination:
// [rating 0..5, 0 any][answered + 1: any, without, with].
type combos [6][3][]int32

// searchField is one searched field's distinct values, case-folded, and
// for each value the records (indices, ascending) that have it. Generated
// reviews repeat their sentences, so there are far fewer values than
// records, and a search tests each value once.
type searchField struct {
	values   []string
	postings [][]int32
}

// store holds a scenario's reviews, immutable once built, sorted by
// created_date descending, then id descending: the order of the list.
//
// Every filter but search is answered from posting lists: the records of
// each (nm_id, rating, answered) combination in list order. Dates are a
// contiguous window of the sorted records, found by binary search, and
// within a posting list again by binary search; so a page, a total and
// the counts cost O(log n) whatever the shop's size. Search marks its
// matches in a bitset and intersects it with per-(rating, answered) bitsets.
type Store struct {
	records  []record
	locs     []jsonLoc         // parallel to records
	blocks   [][]byte          // the records' JSON, back to back
	all      combos            // every product; [0][0] stays empty (every record)
	products map[int64]*combos // per nm_id
	bits     [6][3][]uint64    // the sets of all as bitsets
	fields   [4]searchField    // text, pros, cons, product (supplier_article and nm_id)
	pool     sync.Pool         // *[]uint64 bitsets for search
	next     int64             // the id after the newest record's
	bytes    int64             // an estimate of the memory the store holds (Bytes)
}

// New numbers the reviews 1..n from the oldest (fixtures before
// generated ones within a second) and prepares them for queries.
func New(fbs []Feedback) (*Store, error) { return NewFrom(1, fbs) }

// NewFrom is New numbering the reviews from first: a living shop's newer
// reviews, stacked on a store whose ids end before first.
func NewFrom(first int64, fbs []Feedback) (*Store, error) {
	order, created, err := oldestFirst(fbs, func(a, b int32) int { return cmp.Compare(a, b) })
	if err != nil {
		return nil, err
	}
	for k, src := range order {
		fbs[src].ID = first + int64(k)
	}
	return build(fbs, order, created, first+int64(len(fbs))), nil
}

// NewNumbered prepares reviews that carry their ids (positive, each
// once) for queries: a session's seeded reviews, numbered as they came.
func NewNumbered(fbs []Feedback) (*Store, error) {
	order, created, err := oldestFirst(fbs, func(a, b int32) int { return cmp.Compare(fbs[a].ID, fbs[b].ID) })
	if err != nil {
		return nil, err
	}
	next := int64(1)
	seen := make(map[int64]bool, len(fbs))
	for i := range fbs {
		id := fbs[i].ID
		switch {
		case id <= 0:
			return nil, fmt.Errorf("review %s: id %d: ids are positive", fbs[i].FeedbackID, id)
		case seen[id]:
			return nil, fmt.Errorf("review %s: id %d is given twice", fbs[i].FeedbackID, id)
		}
		seen[id] = true
		next = max(next, id+1)
	}
	return build(fbs, order, created, next), nil
}

// oldestFirst orders fbs oldest first, within a second by tie, and
// returns each one's created_date as Unix seconds.
func oldestFirst(fbs []Feedback, tie func(a, b int32) int) (order []int32, created []int64, err error) {
	n := len(fbs)
	order = make([]int32, n)
	created = make([]int64, n)
	for i := range fbs {
		t, err := time.Parse(TimestampLayout, fbs[i].CreatedDate)
		if err != nil {
			return nil, nil, fmt.Errorf("review %s: created_date: %w", fbs[i].FeedbackID, err)
		}
		order[i], created[i] = int32(i), t.Unix()
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := cmp.Compare(created[a], created[b]); c != 0 {
			return c
		}
		return tie(a, b)
	})
	return order, created, nil
}

// build prepares numbered reviews, given oldest first by order, for
// queries; next is the id after the newest.
func build(fbs []Feedback, order []int32, created []int64, next int64) *Store {
	n := len(fbs)
	order = slices.Clone(order)
	slices.Reverse(order) // the list's order: newest first, then the higher id

	st := &Store{records: make([]record, n), locs: make([]jsonLoc, n),
		products: make(map[int64]*combos), next: next}
	// Encoding is the costly part of a big build: it runs on every core,
	// each encoder filling blocks of its own, beside the indexing. A small
	// store (a living shop's arrivals) takes one encoder and only the
	// bytes it needs.
	var wg sync.WaitGroup
	workers := min(max(runtime.GOMAXPROCS(0), 1), 8, max(n/smallStore, 1))
	perWorker := make([][][]byte, workers)
	for w := range workers {
		from, to := n*w/workers, n*(w+1)/workers
		wg.Go(func() {
			var blocks [][]byte
			var cur, one []byte
			for pos := from; pos < to; pos++ {
				one = AppendJSON(one[:0], &fbs[order[pos]])
				if need := len(cur) + len(one); need > cap(cur) {
					if cap(cur) < jsonBlock && need <= jsonBlock {
						// The first block grows to a whole one only as needed.
						grown := make([]byte, len(cur), min(max(2*cap(cur), need, 16<<10), jsonBlock))
						copy(grown, cur)
						cur = grown
					} else {
						blocks = append(blocks, cur)
						cur = make([]byte, 0, max(jsonBlock, len(one)))
					}
				}
				start := len(cur)
				cur = append(cur, one...)
				st.locs[pos] = jsonLoc{block: int32(len(blocks)), off: uint32(start), end: uint32(len(cur))}
			}
			if cap(cur)-len(cur) > len(cur)/8 {
				cur = slices.Clone(cur) // a last block mostly empty keeps only its bytes
			}
			perWorker[w] = append(blocks, cur)
		})
	}
	defer func() {
		wg.Wait()
		// Number the blocks across encoders.
		base := make([]int32, workers)
		for w, blocks := range perWorker {
			base[w] = int32(len(st.blocks))
			st.blocks = append(st.blocks, blocks...)
		}
		for w := range workers {
			for pos := n * w / workers; pos < n*(w+1)/workers; pos++ {
				st.locs[pos].block += base[w]
			}
		}
		st.bytes = st.estimate()
	}()

	var ids [4]map[string]uint32
	for k := range ids {
		ids[k] = make(map[string]uint32)
	}
	value := func(k int, raw string) uint32 {
		id, ok := ids[k][raw]
		if !ok {
			id = uint32(len(st.fields[k].values))
			ids[k][raw] = id
			st.fields[k].values = append(st.fields[k].values, Fold(raw))
			st.fields[k].postings = append(st.fields[k].postings, nil)
		}
		return id
	}
	words := (n + 63) / 64
	for pos, src := range order {
		f := &fbs[src]
		m := metaOf(f, created[src])
		r := record{
			created: m.Created, id: f.ID, nmID: f.NmID, day: m.Day,
			text: value(0, f.Text), pros: value(1, f.Pros), cons: value(2, f.Cons),
			// The separator keeps a query from matching across the two.
			product: value(3, f.SupplierArticle+"\x00"+strconv.FormatInt(f.NmID, 10)),
			rating:  m.Rating, answered: m.Answered, draft: m.Draft, empty: m.Empty,
		}
		st.records[pos] = r
		p := int32(pos)
		for k, v := range [4]uint32{r.text, r.pros, r.cons, r.product} {
			st.fields[k].postings[v] = append(st.fields[k].postings[v], p)
		}
		ans := 1 // the answered index: 1 without a reply, 2 with one
		if r.answered {
			ans = 2
		}
		prod := st.products[r.nmID]
		if prod == nil {
			prod = new(combos)
			st.products[r.nmID] = prod
		}
		for _, rt := range [2]int{0, int(r.rating)} {
			for _, a := range [2]int{0, ans} {
				prod[rt][a] = append(prod[rt][a], p)
				if rt == 0 && a == 0 {
					continue // every record: no list needed
				}
				st.all[rt][a] = append(st.all[rt][a], p)
				if st.bits[rt][a] == nil {
					st.bits[rt][a] = make([]uint64, words)
				}
				st.bits[rt][a][pos/64] |= 1 << (pos % 64)
			}
		}
	}
	return st
}

// JSON is a record's encoded JSON.
func (st *Store) JSON(i int) []byte {
	l := st.locs[i]
	return st.blocks[l.block][l.off:l.end]
}

// Find runs q over the records.
func (st *Store) Find(q Query) Result { return st.find(q, nil, nil, 0) }

// find runs q over the records as ed changes them (nil: as they are). The
// page is appended to page, each position plus shift.
func (st *Store) find(q Query, ed *edits, page []int, shift int) Result {
	recs := st.records
	// Sorted descending: days run from newest to oldest.
	lo := sort.Search(len(recs), func(i int) bool { return recs[i].day <= q.DayTo })
	hi := sort.Search(len(recs), func(i int) bool { return recs[i].day < q.DayFrom })
	if lo >= hi {
		return Result{Page: page}
	}
	if q.Search != "" {
		return st.findSearch(q, lo, hi, ed, page, shift)
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
	from, _ := slices.BinarySearch(list, int32(lo))
	to, _ := slices.BinarySearch(list, int32(hi))
	return span{list: list[from:to:to]}
}

// findSearch runs a query with search: the matching records are marked in
// a bitset, which is then intersected with the other filters.
func (st *Store) findSearch(q Query, lo, hi int, ed *edits, page []int, shift int) Result {
	bp := st.searchBits(Fold(q.Search))
	defer st.pool.Put(bp)
	match := *bp
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
			if match[pos/64]&(1<<(pos%64)) == 0 {
				continue
			}
			ans := st.records[pos].answered || ed.flipped(pos)
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
		word := match[w] & windowMask(w, lo, hi)
		if filter != nil {
			word &= filter[w]
		}
		var ans uint64
		if answered != nil {
			ans = answered[w]
		}
		if flips != nil {
			ans |= flips[w]
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

// AppendPage writes the JSON of the list response's data object.
func (st *Store) AppendPage(b []byte, res Result, q Query) []byte {
	b = append(b, `{"feedbacks":[`...)
	for n, i := range res.Page {
		if n > 0 {
			b = append(b, ',')
		}
		b = append(b, st.JSON(i)...)
	}
	return appendPageEnd(b, res, q)
}

// appendPageEnd closes the page's list and writes its total, limit and offset.
func appendPageEnd(b []byte, res Result, q Query) []byte {
	b = append(b, `],"total":`...)
	b = strconv.AppendInt(b, int64(res.Total), 10)
	b = append(b, `,"limit":`...)
	b = strconv.AppendInt(b, q.Limit, 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, q.Offset, 10)
	return append(b, '}')
}

// PageSize is the length of the page's records' JSON.
func (st *Store) PageSize(res Result) int {
	n := 0
	for _, i := range res.Page {
		l := st.locs[i]
		n += int(l.end-l.off) + 1
	}
	return n
}

// Len is the number of reviews.
func (st *Store) Len() int { return len(st.records) }

// AppendCounts writes the JSON of the counts_only response's data object.
func AppendCounts(b []byte, res Result) []byte {
	b = append(b, `{"total":`...)
	b = strconv.AppendInt(b, int64(res.Answered+res.Unanswered), 10)
	b = append(b, `,"unanswered":`...)
	b = strconv.AppendInt(b, int64(res.Unanswered), 10)
	b = append(b, `,"answered":`...)
	b = strconv.AppendInt(b, int64(res.Answered), 10)
	return append(b, '}')
}

// Meta is what a living shop's reply engine reads of a review to decide
// whether to answer it, without decoding its JSON.
type Meta struct {
	Created  int64 // created_date as Unix seconds (read as UTC)
	Day      int32 // created_date's date, a DayNumber
	Rating   int8
	Answered bool // answer_text is not empty
	Draft    bool // answer_state is AnswerStateDraft
	Empty    bool // no text, pros or cons: a rating-only review
}

// AnswerStateDraft is the answer_state of a reply written and waiting for
// approval (a living shop's semi_auto mode); it is not an answer.
const AnswerStateDraft = "draft"

// MetaOf is f's Meta.
func MetaOf(f *Feedback) (Meta, error) {
	t, err := time.Parse(TimestampLayout, f.CreatedDate)
	if err != nil {
		return Meta{}, fmt.Errorf("review %s: created_date: %w", f.FeedbackID, err)
	}
	return metaOf(f, t.Unix()), nil
}

func metaOf(f *Feedback, created int64) Meta {
	return Meta{
		Created: created, Day: DayNumber(time.Unix(created, 0).UTC()), Rating: int8(f.ProductValuation),
		Answered: f.AnswerText != "", Draft: f.AnswerState == AnswerStateDraft,
		Empty: f.Text == "" && f.Pros == "" && f.Cons == "",
	}
}

// Meta is record i's Meta.
func (st *Store) Meta(i int) Meta {
	r := &st.records[i]
	return Meta{Created: r.created, Day: r.day, Rating: r.rating, Answered: r.answered, Draft: r.draft, Empty: r.empty}
}

// Bytes estimates the memory the store holds: records, JSON, posting
// lists, bitsets and search tables, with slice and string headers and a
// rough 48 bytes a map entry.
func (st *Store) Bytes() int64 { return st.bytes }

func (st *Store) estimate() int64 {
	const sliceHeader, stringHeader, mapEntry = 24, 16, 48
	n := int64(cap(st.records))*int64(unsafe.Sizeof(record{})) + int64(cap(st.locs))*int64(unsafe.Sizeof(jsonLoc{}))
	for _, b := range st.blocks {
		n += sliceHeader + int64(cap(b))
	}
	lists := func(c *combos) {
		for r := range c {
			for a := range c[r] {
				n += sliceHeader + 4*int64(cap(c[r][a]))
			}
		}
	}
	lists(&st.all)
	for _, c := range st.products {
		lists(c)
		n += mapEntry
	}
	for r := range st.bits {
		for a := range st.bits[r] {
			n += 8 * int64(cap(st.bits[r][a]))
		}
	}
	for k := range st.fields {
		f := &st.fields[k]
		for _, v := range f.values {
			n += stringHeader + int64(len(v))
		}
		for _, p := range f.postings {
			n += sliceHeader + 4*int64(cap(p))
		}
	}
	return n + 8*int64((len(st.records)+63)/64) // a search's pooled bitset
}

// Stack is a living shop's reviews as one session sees them: layers of
// stores, each one's reviews newer than every review below it (and with
// higher ids), each with the session's edits of its records. The bottom
// layer is the scenario's Store, shared by every session and never
// changed: a session keeps only its arrivals (the layers above it) and
// its edits (answers and drafts). A Stack never changes either; With
// makes the next one, so a request may read one while the session moves
// on.
//
// Arrivals come as a new layer on top; a layer at least as big as the one
// below it is merged with it, so a stack has few layers, and a review is
// re-encoded a few times (logarithmically) in its life.
//
// A session's seeded reviews make the bottom: a Store of them alone
// (NewStack), or one among the scenario's at any dates (NewMixedStack),
// whose two stores are merged query by query and never copied.
type Stack struct {
	layers []layer // the newest first; the last is the scenario's
	n      int
	bytes  int64 // the memory held beyond the bottom's stores
	// mixed: the last two layers are the bottom together, their reviews
	// interleaved in time: a session's own reviews (the one before the
	// last) among the scenario's (see NewMixedStack).
	mixed bool
}

// bottom is the number of layers at the bottom: the stores the stack
// stands on, which it never merges nor counts in Bytes.
func (s *Stack) bottom() int {
	if s.mixed {
		return 2
	}
	return 1
}

type layer struct {
	st    *Store
	ed    *edits // nil: none
	start int    // the position of the layer's first record in the stack
}

// edits are a session's changes to the records of one Store: new JSON
// for some, some of them answered now. They never change once in a Stack.
type edits struct {
	recs map[int32]edit // by position in the store
	// flips are the records answered now but not in the store, ascending,
	// like posting lists: by product (0 any) and rating (0 any).
	flips map[postKey][]int32
	bits  []uint64 // every flip as a bitset
	bytes int64    // an estimate of the memory held
}

type edit struct {
	json            []byte
	answered, draft bool
}

// Per-entry estimates of memory that Bytes cannot see.
const (
	editOverhead  = 64  // a map entry and an allocation's header
	layerOverhead = 512 // a Store's own struct and maps
)

// NewStack is base with nothing on it.
func NewStack(base *Store) *Stack {
	return &Stack{layers: []layer{{st: base}}, n: base.Len()}
}

// Len is the number of reviews.
func (s *Stack) Len() int { return s.n }

// Bytes estimates the memory the stack holds beyond the scenario's store
// it stands on: its layers' records, JSON and indexes (Store.Bytes), and
// its edits' JSON with a map entry each.
func (s *Stack) Bytes() int64 { return s.bytes }

// locate finds position i: its layer and its position there.
func (s *Stack) locate(i int) (*layer, int) {
	k := sort.Search(len(s.layers)-1, func(k int) bool { return s.layers[k+1].start > i })
	l := &s.layers[k]
	return l, i - l.start
}

// JSON is review i's encoded JSON.
func (s *Stack) JSON(i int) []byte {
	l, p := s.locate(i)
	return l.json(p)
}

func (l *layer) json(p int) []byte {
	if l.ed != nil {
		if e, ok := l.ed.recs[int32(p)]; ok {
			return e.json
		}
	}
	return l.st.JSON(p)
}

// Meta is review i's Meta, as the session's edits left it.
func (s *Stack) Meta(i int) Meta {
	l, p := s.locate(i)
	m := l.st.Meta(p)
	if l.ed != nil {
		if e, ok := l.ed.recs[int32(p)]; ok {
			m.Answered, m.Draft = e.answered, e.draft
		}
	}
	return m
}

// Find runs q over the reviews. Every layer's reviews come before the
// next one's in the list's order, so the page is taken from the layers in
// turn and the counts add up.
func (s *Stack) Find(q Query) Result {
	if len(s.layers) == 1 {
		return s.layers[0].st.find(q, s.layers[0].ed, nil, 0)
	}
	var res Result
	if !q.CountsOnly {
		res.Page = make([]int, 0, min(q.Limit, int64(s.n))) // the layers append to one page
	}
	for i := 0; i <= len(s.layers)-s.bottom(); i++ {
		l := &s.layers[i]
		lq := q
		if int64(len(res.Page)) < q.Limit {
			lq.Limit = q.Limit - int64(len(res.Page))
		} else {
			lq.CountsOnly = true // the page is full: count the rest
		}
		var r Result
		if s.mixed && i == len(s.layers)-2 {
			r = findMixed(lq, l, &s.layers[i+1], res.Page)
		} else {
			r = l.st.find(lq, l.ed, res.Page, l.start)
		}
		res.Page = r.Page
		res.Total += r.Total
		res.Answered += r.Answered
		res.Unanswered += r.Unanswered
		q.Offset = max(q.Offset-int64(r.Total), 0)
	}
	return res
}

// AppendPage writes the JSON of the list response's data object.
func (s *Stack) AppendPage(b []byte, res Result, q Query) []byte {
	b = append(b, `{"feedbacks":[`...)
	for n, i := range res.Page {
		if n > 0 {
			b = append(b, ',')
		}
		b = append(b, s.JSON(i)...)
	}
	return appendPageEnd(b, res, q)
}

// PageSize is the length of the page's records' JSON.
func (s *Stack) PageSize(res Result) int {
	n := 0
	for _, i := range res.Page {
		n += len(s.JSON(i)) + 1
	}
	return n
}

// Change is review Pos of a Stack as it is now: its answer or its draft
// changed, and nothing else.
type Change struct {
	Pos int
	F   *Feedback
}

// With is the stack with changes made and arrivals on top: reviews no
// older than any in it, numbered after them. Neither s nor its stores
// change. A change may not take an answer away.
func (s *Stack) With(changes []Change, arrivals []Feedback) (*Stack, error) {
	next := &Stack{layers: slices.Clone(s.layers), mixed: s.mixed}
	fresh := make(map[int]*edits)                 // by layer: the edits made for next
	added := make(map[*edits]map[postKey][]int32) // their new flips
	var one []byte
	for _, c := range changes {
		k := sort.Search(len(s.layers)-1, func(k int) bool { return s.layers[k+1].start > c.Pos })
		l := &next.layers[k]
		ed, ok := fresh[k]
		if !ok {
			ed = l.ed.clone()
			fresh[k], l.ed, added[ed] = ed, ed, make(map[postKey][]int32)
		}
		p := c.Pos - l.start
		one = AppendJSON(one[:0], c.F)
		e := edit{json: bytes.Clone(one), answered: c.F.AnswerText != "", draft: c.F.AnswerState == AnswerStateDraft}
		r := &l.st.records[p]
		was := r.answered || ed.flipped(p)
		switch {
		case was && !e.answered:
			return nil, fmt.Errorf("review %d: a change may not take its answer away", c.F.ID)
		case e.answered && !was:
			if ed.bits == nil {
				ed.bits = make([]uint64, (l.st.Len()+63)/64)
			}
			ed.bits[p/64] |= 1 << (p % 64)
			for _, nm := range [2]int64{0, r.nmID} {
				for _, rt := range [2]int8{0, r.rating} {
					k := postKey{nm, rt, 1}
					added[ed][k] = append(added[ed][k], int32(p))
				}
			}
		}
		if old, ok := ed.recs[int32(p)]; ok {
			ed.bytes -= int64(len(old.json)) + editOverhead
		}
		ed.recs[int32(p)] = e
		ed.bytes += int64(len(e.json)) + editOverhead
	}
	for ed, lists := range added {
		for k, list := range lists {
			// A new list, never the previous stack's.
			merged := slices.Concat(ed.flips[k], list)
			slices.Sort(merged)
			ed.flips[k] = merged
		}
	}
	if len(arrivals) > 0 {
		top, err := NewFrom(s.layers[0].st.next, arrivals)
		if err != nil {
			return nil, err
		}
		next.layers = slices.Insert(next.layers, 0, layer{st: top})
	}
	for len(next.layers) > next.bottom()+1 && next.layers[0].st.Len() >= next.layers[1].st.Len() {
		merged, err := merge(&next.layers[1], &next.layers[0])
		if err != nil {
			return nil, err
		}
		next.layers = slices.Insert(next.layers[2:], 0, layer{st: merged})
	}
	for i := range next.layers {
		l := &next.layers[i]
		l.start = next.n
		next.n += l.st.Len()
		if i < len(next.layers)-next.bottom() {
			next.bytes += l.st.bytes + layerOverhead
		}
		if l.ed != nil {
			next.bytes += l.ed.bytes + 8*int64(cap(l.ed.bits))
			for _, list := range l.ed.flips {
				next.bytes += editOverhead + 4*int64(cap(list))
			}
		}
	}
	return next, nil
}

// clone is a copy of ed (of none, for nil) to make changes in. The flip
// lists are shared: new flips make new lists.
func (ed *edits) clone() *edits {
	if ed == nil {
		return &edits{recs: make(map[int32]edit), flips: make(map[postKey][]int32)}
	}
	return &edits{recs: maps.Clone(ed.recs), flips: maps.Clone(ed.flips), bits: slices.Clone(ed.bits), bytes: ed.bytes}
}

// flipped reports whether record pos is answered now, though not in the store.
func (ed *edits) flipped(pos int) bool {
	return ed != nil && ed.bits != nil && ed.bits[pos/64]&(1<<(pos%64)) != 0
}

// flipsIn is the flips of key's product and rating within the records [lo, hi).
func (ed *edits) flipsIn(key postKey, lo, hi int) []int32 {
	if ed == nil {
		return nil
	}
	list := ed.flips[key]
	from, _ := slices.BinarySearch(list, int32(lo))
	to, _ := slices.BinarySearch(list, int32(hi))
	return list[from:to:to]
}

// merge builds one store of two adjacent layers' reviews as edited, with
// the ids they have.
func merge(older, newer *layer) (*Store, error) {
	fbs := make([]Feedback, 0, older.st.Len()+newer.st.Len())
	for _, l := range []*layer{older, newer} {
		for p := l.st.Len() - 1; p >= 0; p-- { // oldest first, as ids go
			var f Feedback
			if err := json.Unmarshal(l.json(p), &f); err != nil {
				return nil, fmt.Errorf("review at %d: %w", p, err)
			}
			fbs = append(fbs, f)
		}
	}
	return NewFrom(older.st.next-int64(older.st.Len()), fbs)
}
