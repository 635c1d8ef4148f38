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
func (j *ring) add(e *Record) int64 {
	if j.size <= 0 {
		return 0
	}
	if j.n == len(j.entries) && j.n < j.size {
		// Full but allowed to grow: double, oldest first, up to size.
		grown := make([]*Record, min(max(2*j.n, 8), j.size))
		for i := range j.n {
			grown[i] = j.entries[(j.head+i)%len(j.entries)]
		}
		j.entries, j.head = grown, 0
	}
	if j.n < len(j.entries) {
		j.entries[(j.head+j.n)%len(j.entries)] = e
		j.n++
		return e.kept
	}
	freed := j.entries[j.head].kept
	j.lost = max(j.lost, j.entries[j.head].Seq)
	j.entries[j.head] = e
	j.head = (j.head + 1) % len(j.entries)
	return e.kept - freed
}

// freedByAdd is what the next add frees: the oldest entry, when the
// ring is full.
func (j *ring) freedByAdd() int64 {
	if j.size <= 0 || j.n < j.size {
		return 0
	}
	return j.entries[j.head].kept
}

// dropOldest removes the oldest entry if its sequence number is seq, and
// returns the bytes freed.
func (j *ring) dropOldest(seq int64) int64 {
	if j.n == 0 || j.entries[j.head].Seq != seq {
		return 0 // already gone: overwritten, cleared or dropped
	}
	freed := j.entries[j.head].kept
	j.lost = max(j.lost, seq)
	j.entries[j.head] = nil
	j.head = (j.head + 1) % len(j.entries)
	j.n--
	if j.n == 0 {
		j.entries, j.head = nil, 0 // a session emptied by others' entries keeps no ring
	}
	return freed
}

// clear empties the ring, forgetting what it lost, and returns the bytes
// freed.
func (j *ring) clear() int64 {
	freed := j.bytes()
	j.entries, j.head, j.n, j.lost = nil, 0, 0, 0
	return freed
}

// all returns the entries, oldest first.
func (j *ring) all() []*Record {
	out := make([]*Record, 0, j.n)
	for i := range j.n {
		out = append(out, j.entries[(j.head+i)%len(j.entries)])
	}
	return out
}

// bytes is what the ring's entries keep.
func (j *ring) bytes() int64 {
	var n int64
	for i := range j.n {
		n += j.entries[(j.head+i)%len(j.entries)].kept
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
