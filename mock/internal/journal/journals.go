package journal

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/replymock/replymock/mock/internal/budget"
)

// Journals keeps the journals of all sessions, bounded together in
// entries and bytes. It numbers the entries and wakes those waiting.
//
// Locks are taken in this order: mu, then a ring's mu. A ring changes
// only under both, so a writer holding mu reads any ring freely, and a
// reader holds one ring's lock at a time. No lock is held while calling
// out of the package.
type Journals struct {
	mu      sync.Mutex
	seq     int64            // the last sequence number given
	order   order            // which ring holds each entry, oldest first
	rings   map[string]*ring // by session id
	gen     uint64           // the last Key's generation given
	wake    chan struct{}    // closed by the next Record, when someone waits
	waiting int              // requests waiting, at most MaxWaiters
	clients map[string]int   // requests waiting by client, each at most MaxClientWaiters

	size   int            // entries a session's ring keeps
	bytes  *budget.Budget // the bytes all rings keep together
	pinned atomic.Int64   // what listings being written keep alive (MaxListingBytes)
	shared Shared         // a fleet's journals in place of the rings; set before serving
	redact atomic.Pointer[Redactor]
}

// Key names the journal of one session. It tells apart sessions that
// had the same id one after the other, so that a request still running
// when its session went keeps no entry in the next one's journal.
type Key struct {
	id  string
	gen uint64
}

// New returns empty journals: each session's keeps size entries (none
// for size <= 0), and all together keep at most maxEntries entries and
// maxBytes bytes.
func New(size int, maxBytes int64, maxEntries int) *Journals {
	return &Journals{
		order:   order{ring: make([]orderItem, max(maxEntries, 0))},
		rings:   make(map[string]*ring),
		clients: make(map[string]int),
		size:    size,
		bytes: budget.New("replymock_journal_bytes",
			"What all journals keep together, as counted against their byte budget (Options.JournalBytes).", maxBytes),
	}
}

// SetRedactor makes rd tell which headers and query parameters are
// listed and matched redacted.
func (j *Journals) SetRedactor(rd *Redactor) { j.redact.Store(rd) }

// Redactor returns what SetRedactor set.
func (j *Journals) Redactor() *Redactor { return j.redact.Load() }

// Open starts the empty journal of session id, in place of any it had,
// and returns its Key.
func (j *Journals) Open(id string) Key {
	j.mu.Lock()
	defer j.mu.Unlock()
	if old := j.rings[id]; old != nil {
		j.dropLocked(id, old)
	}
	j.gen++
	j.rings[id] = &ring{gen: j.gen, size: j.size}
	return Key{id, j.gen}
}

// Drop forgets the journal of the session k names.
func (j *Journals) Drop(k Key) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if rg := j.rings[k.id]; rg != nil && rg.gen == k.gen {
		j.dropLocked(k.id, rg)
	}
}

// dropLocked takes ring rg of session id out of the map and empties it;
// the order may still point at it. The caller holds j.mu.
func (j *Journals) dropLocked(id string, rg *ring) {
	delete(j.rings, id)
	rg.mu.Lock()
	j.bytes.Release(rg.clear())
	rg.mu.Unlock()
}

// Clear empties the journal of session scope, or of every session for
// AllSessions. The numbering goes on.
func (j *Journals) Clear(scope string) {
	if j.shared != nil {
		_ = j.shared.Clear(context.Background(), scope) // out of reach: the write was refused before
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, rg := range j.scopeLocked(scope) {
		rg.mu.Lock()
		j.bytes.Release(rg.clear())
		rg.mu.Unlock()
	}
}

// Forget empties a shared journal of session scope, or of every session,
// as a reset does. In memory it does nothing: Drop did it.
func (j *Journals) Forget(scope string) {
	if j.shared != nil {
		_ = j.shared.Clear(context.Background(), scope)
	}
}

// scope lists the rings of session sid, or every ring for AllSessions.
func (j *Journals) scope(sid string) []*ring {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.scopeLocked(sid)
}

func (j *Journals) scopeLocked(sid string) []*ring {
	if sid != AllSessions {
		if rg := j.rings[sid]; rg != nil {
			return []*ring{rg}
		}
		return nil
	}
	return slices.Collect(maps.Values(j.rings))
}

// Budget is the journals' byte budget.
func (j *Journals) Budget() *budget.Budget { return j.bytes }

// Record adds an entry to the journal of the session k names, its
// method, path, query and headers cut to MaxHead each. When the journals
// are full, the oldest entries of any session go first: tests ask about
// the newest requests. An entry larger than the whole budget keeps only
// its method and path. Only a shared journal fails.
func (j *Journals) Record(k Key, e Record) error {
	if j.shared != nil {
		return j.recordShared(k, e)
	}
	j.record(k, e)
	return nil
}

// record is Record in memory. It holds j.mu throughout, so entries go
// in in the order of their numbers and never pass the budget.
func (j *Journals) record(k Key, e Record) {
	if e.Lent {
		e.Resp, e.Lent = j.keepLent(k, e.Resp), false
	}
	e.fit(j.bytes.Max())
	r := &e
	j.mu.Lock()
	defer j.mu.Unlock()
	defer j.wakeWaiters() // once the entry is in, or known to stay out
	j.seq++
	r.Seq = j.seq
	rg := j.rings[k.id]
	if rg == nil || rg.gen != k.gen {
		return // the session went: its request keeps nothing
	}
	if rg.size <= 0 || r.kept > j.bytes.Max() {
		lose(rg, r.Seq)
		return
	}
	// Only this function adds bytes, under j.mu: once the entry fits, it
	// still fits when it goes in.
	freed := rg.freedByAdd()
	for j.bytes.Used()-freed+r.kept > j.bytes.Max() {
		out, ok := j.order.pop()
		if !ok {
			lose(rg, r.Seq)
			return // nothing left to evict
		}
		j.dropOldest(out)
		if out.r == rg {
			freed = rg.freedByAdd()
		}
	}
	rg.mu.Lock()
	j.bytes.Charge(rg.add(r))
	rg.mu.Unlock()
	if out, full := j.order.push(orderItem{rg, r.Seq}); full {
		j.dropOldest(out)
	}
}

// keepLent returns what an entry keeps of a response written from a
// buffer its owner takes back: the newest entry's response when it is
// the same (a client polling a page gets the same bytes again and
// again), else a copy. A shared response still counts whole.
func (j *Journals) keepLent(k Key, b []byte) []byte {
	j.mu.Lock()
	rg := j.rings[k.id]
	j.mu.Unlock()
	if rg == nil || rg.gen != k.gen || rg.size <= 0 {
		return nil
	}
	rg.mu.Lock()
	var prev *Record
	if len(rg.entries) > 0 {
		prev = rg.entries[len(rg.entries)-1]
	}
	rg.mu.Unlock()
	if prev != nil && len(prev.More) == 0 && bytes.Equal(prev.Resp, b) {
		return prev.Resp
	}
	c := bytes.Clone(b)
	return c[:len(c):len(c)] // counted as the bytes asked for
}

// dropOldest drops the entry the order item names, if its ring still has
// it oldest; the caller holds j.mu.
func (j *Journals) dropOldest(it orderItem) {
	it.r.mu.Lock()
	j.bytes.Release(it.r.dropOldest(it.seq))
	it.r.mu.Unlock()
}

// lose notes that ring rg did not keep entry seq; the caller holds j.mu.
func lose(rg *ring, seq int64) {
	rg.mu.Lock()
	rg.lost = max(rg.lost, seq)
	rg.mu.Unlock()
}
