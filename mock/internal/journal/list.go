package journal

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/replymock/replymock/mock/internal/wire"
)

// gather returns the records in scope newer than since that match p's
// method and path, in no particular order; with limit, at most the
// newest limit of each session.
func (j *Journals) gather(scope string, p *Pattern, since int64, limit int, sc *scan) ([]*Record, error) {
	if j.shared != nil {
		return j.gatherShared(scope, p, since, sc) // the limit is find's
	}
	var out []*Record
	for _, rg := range j.scope(scope) {
		rg.mu.Lock()
		start := len(out)
		for i := len(rg.entries) - 1; i >= 0 && (limit <= 0 || len(out)-start < limit); i-- {
			r := rg.entries[i]
			if r.Seq <= since {
				break
			}
			if sc.charge(scanEntryCost); sc.over() {
				rg.mu.Unlock()
				return nil, ErrScanTooLarge
			}
			if p.matchesCheap(r) {
				out = append(out, r)
			}
		}
		rg.mu.Unlock()
	}
	return out, nil
}

// find returns the records that match p, oldest first; with limit, only
// the newest limit of them.
func (j *Journals) find(p *Pattern, limit int, sc *scan) ([]*Record, error) {
	perSession := 0
	if p.cheap == len(p.parts) {
		perSession = limit // nothing is filtered after gather
	}
	out, err := j.gather(p.scope, p, p.since, perSession, sc)
	if err != nil {
		return nil, err
	}
	if p.cheap < len(p.parts) {
		kept := out[:0]
		for _, r := range out {
			if p.matches(r, sc) {
				kept = append(kept, r)
			}
			if sc.over() {
				return nil, ErrScanTooLarge
			}
		}
		clear(out[len(kept):])
		out = kept
	}
	slices.SortFunc(out, func(a, b *Record) int { return cmp.Compare(a.Seq, b.Seq) })
	if limit > 0 && len(out) > limit {
		out = slices.Clone(out[len(out)-limit:])
	}
	return out, nil
}

// Entries returns the entries that match p, as List does, for code in
// this process: its work is not bounded.
func (j *Journals) Entries(p *Pattern, limit int) []Entry {
	recs, _ := j.find(p, limit, nil) // no scan, no bound: no error
	if len(recs) == 0 {
		return nil
	}
	out := make([]Entry, len(recs))
	for i, r := range recs {
		out[i] = r.entry(j.Redactor())
	}
	return out
}

// incomplete reports whether a journal in scope lost entries newer than
// since.
func (j *Journals) incomplete(scope string, since int64) (bool, error) {
	if j.shared != nil {
		n, err := j.shared.Lost(context.Background(), scope)
		return n > since, err
	}
	return j.lost(scope, since), nil
}

// lost is incomplete in memory.
func (j *Journals) lost(scope string, since int64) bool {
	for _, rg := range j.scope(scope) {
		rg.mu.Lock()
		lost := rg.lost > since
		rg.mu.Unlock()
		if lost {
			return true
		}
	}
	return false
}

// MaxListingBytes bounds the journal entries that listings being written
// keep alive together. An entry the journal drops lives on until its
// listing is written, and a client may read slowly.
const MaxListingBytes = 256 << 20

// ErrListingsBusy refuses a listing past MaxListingBytes.
var ErrListingsBusy = &wire.APIError{Status: http.StatusServiceUnavailable, Code: wire.CodeServiceUnavailable, RetryAfter: time.Second,
	Message: fmt.Sprintf("listings being written already hold %d MiB of journal entries; try again", MaxListingBytes>>20)}

// Pin reserves n bytes of MaxListingBytes for a listing, and reports
// whether they were free. A listing alone always gets them.
func (j *Journals) Pin(n int64) bool {
	for {
		used := j.pinned.Load()
		if used > 0 && used+n > MaxListingBytes {
			return false
		}
		if j.pinned.CompareAndSwap(used, used+n) {
			return true
		}
	}
}

// Unpin gives back n bytes Pin reserved.
func (j *Journals) Unpin(n int64) { j.pinned.Add(-n) }

// Pinned is what listings being written keep alive now, in bytes.
func (j *Journals) Pinned() int64 { return j.pinned.Load() }

// Listing is the entries that matched a pattern, to be written one at a
// time. It pins its records until Release.
type Listing struct {
	j      *Journals
	recs   []*Record
	pinned int64
}

// List returns the entries that match p, oldest first; with limit, only
// the newest limit of them. The caller must Release the Listing.
func (j *Journals) List(p *Pattern, limit int) (*Listing, error) {
	recs, err := j.find(p, limit, newScan())
	if err != nil {
		return nil, err
	}
	var pinned int64
	for _, r := range recs {
		pinned += r.kept
	}
	if !j.Pin(pinned) {
		return nil, ErrListingsBusy
	}
	return &Listing{j: j, recs: recs, pinned: pinned}, nil
}

// Len is how many entries the listing has.
func (l *Listing) Len() int { return len(l.recs) }

// Entry returns the listing's entry i, built now: the caller's to keep.
func (l *Listing) Entry(i int) Entry { return l.recs[i].entry(l.j.Redactor()) }

// Release frees what the listing pinned.
func (l *Listing) Release() {
	l.j.Unpin(l.pinned)
	l.recs, l.pinned = nil, 0
}
