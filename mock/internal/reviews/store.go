// Package reviews holds a shop's reviews indexed for the list's queries:
// filters, counts and pages are answered here, with no HTTP, from records
// encoded to JSON once.
package reviews

import (
	"cmp"
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
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
}

// New numbers the reviews 1..n from the oldest (fixtures before
// generated ones within a second) and prepares them for queries.
func New(fbs []Feedback) (*Store, error) {
	n := len(fbs)
	order := make([]int32, n)
	created := make([]int64, n)
	for i := range fbs {
		t, err := time.Parse(TimestampLayout, fbs[i].CreatedDate)
		if err != nil {
			return nil, fmt.Errorf("review %s: created_date: %w", fbs[i].FeedbackID, err)
		}
		order[i], created[i] = int32(i), t.Unix()
	}
	// Oldest first; within a second, in the order given.
	slices.SortFunc(order, func(a, b int32) int {
		if c := cmp.Compare(created[a], created[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	for k, src := range order {
		fbs[src].ID = int64(k + 1)
	}
	slices.Reverse(order) // the list's order: newest first, then the higher id

	st := &Store{records: make([]record, n), locs: make([]jsonLoc, n),
		products: make(map[int64]*combos)}
	// Encoding is the costly part of a big build: it runs on every core,
	// each encoder filling blocks of its own, beside the indexing.
	var wg sync.WaitGroup
	workers := min(max(runtime.GOMAXPROCS(0), 1), 8)
	perWorker := make([][][]byte, workers)
	for w := range workers {
		from, to := n*w/workers, n*(w+1)/workers
		wg.Go(func() {
			var blocks [][]byte
			var cur, one []byte
			for pos := from; pos < to; pos++ {
				one = AppendJSON(one[:0], &fbs[order[pos]])
				if len(cur)+len(one) > cap(cur) {
					if len(cur) > 0 {
						blocks = append(blocks, cur)
					}
					cur = make([]byte, 0, max(jsonBlock, len(one)))
				}
				start := len(cur)
				cur = append(cur, one...)
				st.locs[pos] = jsonLoc{block: int32(len(blocks)), off: uint32(start), end: uint32(len(cur))}
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
		r := record{
			created: created[src], id: f.ID, nmID: f.NmID,
			day:  DayNumber(time.Unix(created[src], 0).UTC()),
			text: value(0, f.Text), pros: value(1, f.Pros), cons: value(2, f.Cons),
			// The separator keeps a query from matching across the two.
			product:  value(3, f.SupplierArticle+"\x00"+strconv.FormatInt(f.NmID, 10)),
			rating:   int8(f.ProductValuation),
			answered: f.AnswerText != "",
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
	return st, nil
}

// JSON is a record's encoded JSON.
func (st *Store) JSON(i int) []byte {
	l := st.locs[i]
	return st.blocks[l.block][l.off:l.end]
}

// Find runs q over the records.
func (st *Store) Find(q Query) Result {
	recs := st.records
	// Sorted descending: days run from newest to oldest.
	lo := sort.Search(len(recs), func(i int) bool { return recs[i].day <= q.DayTo })
	hi := sort.Search(len(recs), func(i int) bool { return recs[i].day < q.DayFrom })
	if lo >= hi {
		return Result{}
	}
	if q.Search != "" {
		return st.findSearch(q, lo, hi)
	}
	var res Result
	all := st.window(postKey{q.NmID, q.Rating, -1}, lo, hi)
	answered := st.window(postKey{q.NmID, q.Rating, 1}, lo, hi)
	res.Answered = answered.len()
	res.Unanswered = all.len() - res.Answered
	sel := all
	switch q.Answered {
	case 1:
		sel = answered
	case 0:
		sel = st.window(postKey{q.NmID, q.Rating, 0}, lo, hi)
	}
	res.Total = sel.len()
	if !q.CountsOnly && q.Offset < int64(res.Total) {
		end := min(q.Offset+q.Limit, int64(res.Total))
		res.Page = make([]int, 0, end-q.Offset)
		for i := q.Offset; i < end; i++ {
			res.Page = append(res.Page, sel.at(int(i)))
		}
	}
	return res
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
func (st *Store) findSearch(q Query, lo, hi int) Result {
	bp := st.searchBits(Fold(q.Search))
	defer st.pool.Put(bp)
	match := *bp
	var res Result
	take := func(pos int) {
		if int64(res.Total) >= q.Offset && int64(len(res.Page)) < q.Limit && !q.CountsOnly {
			res.Page = append(res.Page, pos)
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
			ans := st.records[pos].answered
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
	for w := lo / 64; w <= (hi-1)/64; w++ {
		word := match[w] & windowMask(w, lo, hi)
		if filter != nil {
			word &= filter[w]
		}
		var ans uint64
		if answered != nil {
			ans = answered[w]
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
		if q.CountsOnly || int64(len(res.Page)) >= q.Limit || int64(res.Total+c) <= q.Offset {
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
