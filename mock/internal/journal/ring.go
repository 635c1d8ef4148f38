package journal

import "sync"

// ring is one session's journal: its newest entries, at most size,
// oldest first. It changes only under both Journals.mu and its own mu.
// Record adds nothing to a ring of size 0.
type ring struct {
	mu      sync.Mutex
	gen     uint64 // the Key's: which session of the id owns it
	entries []*Record
	size    int
	lost    int64 // the newest Seq of an entry lost to the bounds since the last clear
}

// add appends e, dropping the oldest entry when the ring is full, and
// returns how many bytes the ring now keeps more.
func (rg *ring) add(e *Record) int64 {
	var freed int64
	if len(rg.entries) == rg.size {
		freed = rg.dropOldest(rg.entries[0].Seq)
	}
	rg.entries = append(rg.entries, e)
	return e.kept - freed
}

// freedByAdd is what the next add frees: the oldest entry, when the
// ring is full.
func (rg *ring) freedByAdd() int64 {
	if len(rg.entries) < rg.size {
		return 0
	}
	return rg.entries[0].kept
}

// dropOldest removes the oldest entry if its sequence number is seq
// (it may be gone already), and returns the bytes freed.
func (rg *ring) dropOldest(seq int64) int64 {
	if len(rg.entries) == 0 || rg.entries[0].Seq != seq {
		return 0
	}
	freed := rg.entries[0].kept
	rg.lost = max(rg.lost, seq)
	rg.entries[0] = nil // for the collector: the array keeps the slot
	rg.entries = rg.entries[1:]
	if len(rg.entries) == 0 {
		rg.entries = nil // a session emptied by others' entries keeps no array
	}
	return freed
}

// clear empties the ring, forgetting what it lost, and returns the bytes
// freed.
func (rg *ring) clear() int64 {
	var freed int64
	for _, r := range rg.entries {
		freed += r.kept
	}
	rg.entries, rg.lost = nil, 0
	return freed
}

// order remembers which ring holds each journal entry, oldest first, so
// that the oldest entry anywhere goes first. Journals.mu guards it.
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
