package session

import (
	"container/list"
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
	byID  map[string]*list.Element // each holds an evicted
	order list.List
}

type evicted struct {
	id string
	Eviction
}

// add remembers that session id was evicted at at, for why.
func (es *evictions) add(id string, at time.Time, why string) {
	es.take(id)
	if es.byID == nil {
		es.byID = make(map[string]*list.Element)
	}
	es.byID[id] = es.order.PushBack(evicted{id, Eviction{At: at, Why: why}})
	if es.order.Len() > MaxEvictions {
		delete(es.byID, es.order.Remove(es.order.Front()).(evicted).id)
	}
}

// take returns and forgets session id's eviction, if it has one.
func (es *evictions) take(id string) (Eviction, bool) {
	e, ok := es.byID[id]
	if !ok {
		return Eviction{}, false
	}
	delete(es.byID, id)
	return es.order.Remove(e).(evicted).Eviction, true
}
