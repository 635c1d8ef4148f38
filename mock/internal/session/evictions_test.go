package session

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// The evictions remembered stay within MaxEvictions, the oldest going
// first, whatever the mix of new ids, ids evicted again and ids used
// again; the order kept beside them holds each of them once.
func TestEvictionsAreBounded(t *testing.T) {
	var es evictions
	at := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	n := 5 * MaxEvictions
	for i := range n {
		at = at.Add(time.Millisecond)
		id := fmt.Sprintf("s%d", i)
		es.add(id, at, "why")
		if i%3 == 0 {
			es.add(id, at.Add(time.Microsecond), "again") // evicted again at once
		}
		if i%5 == 0 {
			es.take(id) // used again
		}
		if len(es.byID) > MaxEvictions || es.order.Len() != len(es.byID) {
			t.Fatalf("after %d evictions: %d remembered, %d in order", i+1, len(es.byID), es.order.Len())
		}
	}
	newest := fmt.Sprintf("s%d", n-1)
	if e, ok := es.take(newest); !ok || e.Why != "why" {
		t.Errorf("the newest eviction is gone: %+v %v", e, ok)
	}
	if _, ok := es.take("s1"); ok {
		t.Error("the oldest eviction is still remembered")
	}
	if _, ok := es.take(newest); ok {
		t.Error("an eviction is taken twice")
	}
}

// An eviction's warning fits a warning's bound, for the longest id and
// the longest reason.
func TestEvictionWarningFits(t *testing.T) {
	for _, why := range []string{ExpiredWhy(8760 * time.Hour), PastWhy("--max-sessions", "1000000"), PastWhy("--max-store-memory", "1048576MiB")} {
		w := Eviction{At: time.Now(), Why: why}.Warning(strings.Repeat("a", 128))
		if len(w) > 300 {
			t.Errorf("%d bytes: %s", len(w), w)
		}
	}
}
