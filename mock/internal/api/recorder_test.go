package api

import (
	"testing"

	"github.com/replymock/replymock/mock/internal/wire"
)

// A page is written from a pooled buffer, which goes back to the pool
// once the answer is sent: the journal keeps the page, not the buffer,
// so the next page written in it changes no entry.
func TestJournalCopiesPooledPages(t *testing.T) {
	a := newTestAPI(t)
	var sent []string
	for _, target := range []string{"/api/v1/feedbacks", "/api/v1/feedbacks", "/api/v1/feedbacks?offset=1"} {
		sent = append(sent, a.serve(target).Body.String())
	}
	// The buffer the last page was written in is back in the pool (under
	// the race detector the pool may drop it): the next page overwrites it.
	bp := pageBuffers.Get().(*[]byte)
	b := (*bp)[:cap(*bp)]
	for i := range b {
		b[i] = 'x'
	}
	entries := a.entries()
	if len(entries) != len(sent) {
		t.Fatalf("%d entries, want %d", len(entries), len(sent))
	}
	for i, e := range entries {
		if e.Response != sent[i] {
			t.Errorf("entry %d (%s?%s): the journal kept %q, the client got %q", e.Seq, e.Path, e.Query, wire.Clip(e.Response), wire.Clip(sent[i]))
		}
	}
	if sent[0] == sent[2] {
		t.Error("offset=1 gave the same page: the test proves nothing")
	}
}
