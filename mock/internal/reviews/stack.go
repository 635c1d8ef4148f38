package reviews

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
)

// Stack is a living shop's reviews as one session sees them: layers of
// stores, newest on top, each with the session's edits of its records.
// The bottom layer is the scenario's Store, shared by every session, so
// a session keeps only its new reviews and its edits. A Stack never
// changes: With makes the next one, so a request may read one while the
// session moves on.
//
// A layer at least as big as the one below is merged with it, so a
// stack has few layers.
type Stack struct {
	layers []layer // the newest first; the last is the scenario's
	n      int
	bytes  int64 // the memory held beyond the bottom's stores
	// mixed: the last two layers are the bottom together, their reviews
	// interleaved in time (NewMixedStack).
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
	ed    *edits
	start int // the position of the layer's first record in the stack
}

// edits are a session's changes to the records of one Store: new JSON
// for some, some of them answered now, or no longer. They never change
// once in a Stack.
type edits struct {
	recs map[int32]edit // by position in the store
	// flips are the records whose answered differs from the store's,
	// ascending, like posting lists: by product (0 any), rating (0 any)
	// and whether they are answered now (1) or no longer (0).
	flips map[postKey][]int32
	bits  []uint64 // every flip as a bitset
	bytes int64
}

type edit struct {
	json            []byte
	answered, draft bool
}

// NewStack is the stack of base alone, shared by every caller.
func NewStack(base *Store) *Stack {
	return base.alone
}

func (s *Stack) Len() int { return s.n }

// Bytes estimates the memory the stack holds beyond the scenario's store
// it stands on.
func (s *Stack) Bytes() int64 { return s.bytes }

// locate finds position i: its layer and its position there.
func (s *Stack) locate(i int) (*layer, int) {
	k := sort.Search(len(s.layers)-1, func(k int) bool { return s.layers[k+1].start > i })
	l := &s.layers[k]
	return l, i - l.start
}

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

// Change is review Pos of a Stack as it is now: its answer or its draft
// changed, and nothing else.
type Change struct {
	Pos int
	F   *Feedback
}

// With is the stack with changes made and arrivals on top: reviews no
// older than any in it, numbered after them. Neither s nor its stores
// change.
func (s *Stack) With(changes []Change, arrivals []Feedback) (*Stack, error) {
	next := &Stack{layers: slices.Clone(s.layers), mixed: s.mixed}
	fresh := make(map[int]*edits) // by layer: the edits made for next
	// The flips that start or end, by edits and list.
	started := make(map[*edits]map[postKey][]int32)
	ended := make(map[*edits]map[postKey]map[int32]bool)
	var one []byte
	for _, c := range changes {
		k := sort.Search(len(s.layers)-1, func(k int) bool { return s.layers[k+1].start > c.Pos })
		l := &next.layers[k]
		ed, ok := fresh[k]
		if !ok {
			ed = l.ed.clone()
			fresh[k], l.ed = ed, ed
			started[ed], ended[ed] = make(map[postKey][]int32), make(map[postKey]map[int32]bool)
		}
		p := c.Pos - l.start
		one = AppendJSON(one[:0], c.F)
		e := edit{json: bytes.Clone(one), answered: Answered(c.F), draft: c.F.AnswerState == AnswerStateDraft}
		r := &l.st.records[p]
		if was := r.answered != ed.flipped(p); was != e.answered {
			if ed.bits == nil {
				ed.bits = make([]uint64, (l.st.Len()+63)/64)
			}
			ed.bits[p/64] ^= 1 << (p % 64)
			a := int8(1) // the list of a flip: answered now (1) or no longer (0)
			if r.answered {
				a = 0
			}
			for _, nm := range [2]int64{0, r.nmID} {
				for _, rt := range [2]int8{0, r.rating} {
					key := postKey{nm, rt, a}
					if e.answered != r.answered {
						started[ed][key] = append(started[ed][key], int32(p))
						delete(ended[ed][key], int32(p)) // ended earlier in changes
					} else if ended[ed][key] == nil {
						ended[ed][key] = map[int32]bool{int32(p): true}
					} else {
						ended[ed][key][int32(p)] = true
					}
				}
			}
		}
		if old, ok := ed.recs[int32(p)]; ok {
			ed.bytes -= int64(len(old.json)) + editOverhead
		}
		ed.recs[int32(p)] = e
		ed.bytes += int64(len(e.json)) + editOverhead
	}
	for ed := range started {
		touched := make(map[postKey]bool)
		for key := range started[ed] {
			touched[key] = true
		}
		for key := range ended[ed] {
			touched[key] = true
		}
		for key := range touched {
			// A new list, never the previous stack's.
			list := slices.Concat(ed.flips[key], started[ed][key])
			list = slices.DeleteFunc(list, func(p int32) bool { return ended[ed][key][p] })
			slices.Sort(list)
			ed.flips[key] = list
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

// flipped reports whether record pos is answered now if not in the
// store, or no longer if it is.
func (ed *edits) flipped(pos int) bool {
	return ed != nil && ed.bits != nil && ed.bits[pos/64]&(1<<(pos%64)) != 0
}

// flipsIn is the flips of key within the records [lo, hi).
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

// Per-entry estimates of memory that Bytes cannot see.
const (
	editOverhead  = 64  // a map entry and an allocation's header
	layerOverhead = 512 // a Store's own struct and maps
)
