// Package reviews indexes a shop's reviews for the list's queries.
// Filters, counts and pages are answered here, with no HTTP, from
// records encoded to JSON once.
package reviews

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"time"
	"unsafe"
)

// record is a Feedback prepared for queries. It holds no pointers, so a
// million of them cost the GC nothing.
type record struct {
	created  int64 // created_date as Unix seconds, read as UTC
	id       int64
	nmID     int64
	day      int32  // created_date's date as days since 1970-01-01
	text     uint32 // value ids in the search tables
	pros     uint32
	cons     uint32
	product  uint32
	rating   int8
	answered bool
	draft    bool
	empty    bool
}

// jsonLoc locates a record's JSON: blocks[block][off:end].
type jsonLoc struct {
	block    int32
	off, end uint32
}

// jsonBlock is the size of the blocks records' JSON is packed into: big
// enough for any review, small enough that the space a block leaves
// unused is negligible.
const jsonBlock = 4 << 20

// smallStore is the number of records below which a store is built by
// one encoder: goroutines would cost more than they save.
const smallStore = 2048

// postKey names a posting list: nm_id (0 any), rating (0 any) and
// answered (-1 any).
type postKey struct {
	nmID     int64
	rating   int8
	answered int8
}

// combos holds a posting list per (rating, answered) combination:
// [rating 0..5, 0 any][answered + 1: any, without, with].
type combos [6][3][]int32

// searchField is one searched field's distinct values, case-folded, and
// for each the records that have it. Generated reviews repeat their
// sentences, so a search tests far fewer values than records.
type searchField struct {
	values   []string
	postings [][]int32
}

// Store holds a scenario's reviews in the list's order (newest first,
// then the higher id), and never changes once built.
//
// Every filter but search is answered from posting lists, one for each
// (nm_id, rating, answered), and dates by binary search, so a page and
// its counts cost O(log n) whatever the shop's size. Search marks its
// matches in a bitset and intersects it with the other filters' bitsets.
type Store struct {
	records  []record
	locs     []jsonLoc // parallel to records
	blocks   [][]byte
	all      combos            // every product; [0][0] stays empty (every record)
	products map[int64]*combos // per nm_id
	bits     [6][3][]uint64    // the sets of all as bitsets
	fields   [4]searchField    // text, pros, cons, product (supplier_article and nm_id)
	pool     sync.Pool         // *[]uint64 bitsets for search
	next     int64             // the id after the newest record's
	bytes    int64
	// alone is the stack of this store alone (NewStack), made once: a
	// list read of a session with no changes then allocates nothing.
	alone *Stack
}

// New numbers the reviews 1..n from the oldest (fixtures before
// generated ones within a second) and prepares them for queries.
func New(fbs []Feedback) (*Store, error) { return NewFrom(1, fbs) }

// NewFrom is New numbering the reviews from first.
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

func (st *Store) JSON(i int) []byte {
	l := st.locs[i]
	return st.blocks[l.block][l.off:l.end]
}

func (st *Store) Len() int { return len(st.records) }

// Meta is what a living shop's reply engine reads of a review to decide
// whether to answer it, without decoding its JSON.
type Meta struct {
	Created  int64 // created_date as Unix seconds, read as UTC
	Day      int32 // a DayNumber
	Rating   int8
	Answered bool // Answered: answer_text given, not rejected
	Draft    bool // answer_state is AnswerStateDraft
	Empty    bool // no text, pros or cons
}

// AnswerStateDraft is the answer_state of a reply written and waiting for
// approval (a living shop's semi_auto mode); it is not an answer.
const AnswerStateDraft = "draft"

// AnswerStateRejected is the answer_state of a reply moderation turned
// down (the fault kind reply_rejected): its text stays, and the review
// is unanswered again.
const AnswerStateRejected = "rejected"

// AnswerStates and States are the values answer_state and state take,
// as the API's document lists them: "sent" and "done" when answered,
// "draft" both for a draft, "rejected" and "new" for a rejected reply,
// else "" and "new".
var (
	AnswerStates = []string{"", "sent", AnswerStateRejected, AnswerStateDraft}
	States       = []string{"new", "done", "draft"}
)

// Answered reports whether f is answered: it has an answer's text, and
// moderation did not reject it.
func Answered(f *Feedback) bool {
	return f.AnswerText != "" && f.AnswerState != AnswerStateRejected
}

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
		Answered: Answered(f), Draft: f.AnswerState == AnswerStateDraft,
		Empty: f.Text == "" && f.Pros == "" && f.Cons == "",
	}
}

func (st *Store) Meta(i int) Meta {
	r := &st.records[i]
	return Meta{Created: r.created, Day: r.day, Rating: r.rating, Answered: r.answered, Draft: r.draft, Empty: r.empty}
}

// Bytes estimates the memory the store holds.
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
