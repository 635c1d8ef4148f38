package session

import (
	"fmt"
	"time"

	"github.com/replymock/replymock/mock/internal/journal"
)

// Eviction says when and why the store dropped a session to make room,
// so that its next request can say so rather than start again in
// silence.
type Eviction struct {
	At  time.Time
	Why string
}

// Warning is the eviction as a request's warning text.
func (e Eviction) Warning(id string) string {
	return fmt.Sprintf("session %s%s%s (%s): it started again from its scenario, and what it had is gone",
		id, journal.EvictedWords, e.At.UTC().Format(time.RFC3339), e.Why)
}

// MaxEvictions bounds the evictions a store remembers, some 250 bytes
// each: past it, the oldest is forgotten.
const MaxEvictions = 10_000

// evictions are the sessions evicted and not used since, oldest first.
type evictions struct {
	m     map[string]Eviction
	order []evicted // may hold ids used since, or evicted again: m decides
}

type evicted struct {
	id string
	at time.Time
}

// add remembers that session id was evicted at at, for why.
func (es *evictions) add(id string, at time.Time, why string) {
	if es.m == nil {
		es.m = make(map[string]Eviction)
	}
	es.m[id] = Eviction{At: at, Why: why}
	es.order = append(es.order, evicted{id, at})
	for len(es.m) > MaxEvictions {
		first := es.order[0]
		es.order = es.order[1:]
		if e, ok := es.m[first.id]; ok && e.At.Equal(first.at) {
			delete(es.m, first.id)
		}
	}
	if len(es.order) > 2*MaxEvictions { // drop what m no longer holds
		kept := es.order[:0]
		for _, o := range es.order {
			if e, ok := es.m[o.id]; ok && e.At.Equal(o.at) {
				kept = append(kept, o)
			}
		}
		es.order = kept
	}
}

// take returns and forgets session id's eviction, if it has one.
func (es *evictions) take(id string) (Eviction, bool) {
	e, ok := es.m[id]
	delete(es.m, id)
	return e, ok
}
