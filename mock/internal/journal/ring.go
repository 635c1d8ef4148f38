package journal

import "sync"

// ring is one session's journal: a bounded ring of entries, oldest
// first. Its contents change only under both Journals.mu and its own mu;
// a reader holds either (see Journals).
type ring struct {
	mu      sync.Mutex
	gen     uint64    // the Key's: which session of the id owns it
	entries []*Record // grows up to size, then wraps; nil when empty
	head    int       // the oldest entry
	n       int
	size    int
	lost    int64 // the newest Seq of an entry lost to the bounds since the last clear
}

// add appends e, dropping the oldest entry when the ring is full, and
// returns how many bytes the ring now keeps more (or fewer).
func (rg *ring) add(e *Record) int64 {
	if rg.size <= 0 {
		return 0
	}
	if rg.n == len(rg.entries) && rg.n < rg.size {
		// Full but allowed to grow: double, oldest first, up to size.
		grown := make([]*Record, min(max(2*rg.n, 8), rg.size))
		for i := range rg.n {
			grown[i] = rg.entries[(rg.head+i)%len(rg.entries)]
		}
		rg.entries, rg.head = grown, 0
	}
	if rg.n < len(rg.entries) {
		rg.entries[(rg.head+rg.n)%len(rg.entries)] = e
		rg.n++
		return e.kept
	}
	freed := rg.entries[rg.head].kept
	rg.lost = max(rg.lost, rg.entries[rg.head].Seq)
	rg.entries[rg.head] = e
	rg.head = (rg.head + 1) % len(rg.entries)
	return e.kept - freed
}

// newest is the newest entry, nil if none.
func (rg *ring) newest() *Record {
	if rg.n == 0 {
		return nil
	}
	return rg.entries[(rg.head+rg.n-1)%len(rg.entries)]
}

// freedByAdd is what the next add frees: the oldest entry, when the
// ring is full.
func (rg *ring) freedByAdd() int64 {
	if rg.size <= 0 || rg.n < rg.size {
		return 0
	}
	return rg.entries[rg.head].kept
}

// dropOldest removes the oldest entry if its sequence number is seq, and
// returns the bytes freed.
func (rg *ring) dropOldest(seq int64) int64 {
	if rg.n == 0 || rg.entries[rg.head].Seq != seq {
		return 0 // already gone: overwritten, cleared or dropped
	}
	freed := rg.entries[rg.head].kept
	rg.lost = max(rg.lost, seq)
	rg.entries[rg.head] = nil
	rg.head = (rg.head + 1) % len(rg.entries)
	rg.n--
	if rg.n == 0 {
		rg.entries, rg.head = nil, 0 // a session emptied by others' entries keeps no ring
	}
	return freed
}

// clear empties the ring, forgetting what it lost, and returns the bytes
// freed.
func (rg *ring) clear() int64 {
	freed := rg.bytes()
	rg.entries, rg.head, rg.n, rg.lost = nil, 0, 0, 0
	return freed
}

// all returns the entries, oldest first.
func (rg *ring) all() []*Record {
	out := make([]*Record, 0, rg.n)
	for i := range rg.n {
		out = append(out, rg.entries[(rg.head+i)%len(rg.entries)])
	}
	return out
}

// bytes is what the ring's entries keep.
func (rg *ring) bytes() int64 {
	var n int64
	for i := range rg.n {
		n += rg.entries[(rg.head+i)%len(rg.entries)].kept
	}
	return n
}

// order remembers which ring holds each journal entry, oldest first, to
// bound the entries and bytes of all sessions together: the oldest entry
// anywhere goes first. Journals.mu guards it.
type order struct {
	ring []orderItem
	head int
	n    int
}

type orderItem struct {
	r   *ring
	seq int64
}

// push records an entry and returns the item it pushed out, if full.
func (o *order) push(it orderItem) (orderItem, bool) {
	if len(o.ring) == 0 {
		return it, true // no room at all: the new entry itself goes
	}
	if o.n < len(o.ring) {
		o.ring[(o.head+o.n)%len(o.ring)] = it
		o.n++
		return orderItem{}, false
	}
	old := o.ring[o.head]
	o.ring[o.head] = it
	o.head = (o.head + 1) % len(o.ring)
	return old, true
}

// pop removes the oldest item, if any.
func (o *order) pop() (orderItem, bool) {
	if o.n == 0 {
		return orderItem{}, false
	}
	it := o.ring[o.head]
	o.ring[o.head] = orderItem{}
	o.head = (o.head + 1) % len(o.ring)
	o.n--
	return it, true
}
