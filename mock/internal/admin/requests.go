package admin

import (
	"net/http"
	"strconv"

	"github.com/replymock/replymock/mock/internal/journal"
	"github.com/replymock/replymock/mock/internal/session"
	"github.com/replymock/replymock/mock/internal/wire"
)

// handleRequestsList serves GET /__mock/requests: the journal entries
// that match the pattern, oldest first, written one at a time so a full
// journal's listing is never built whole.
func (a *Admin) handleRequestsList(r *http.Request) (int, any, error) {
	q, err := a.parseJournalQuery(r, "limit")
	if err != nil {
		return 0, nil, err
	}
	limit, _, err := q.query.Int("limit", 1, 100_000, "an integer from 1 to 100000")
	if err != nil {
		return 0, nil, err
	}
	if err := a.waitFor(r, q, 1); err != nil {
		return 0, nil, err
	}
	l, err := a.State.Journals().List(q.p, int(limit))
	if err != nil {
		return 0, nil, err // past journal.MaxListingBytes
	}
	return http.StatusOK, requestsList{l}, nil
}

// requestsList is the data of GET /__mock/requests.
type requestsList struct{ *journal.Listing }

func (l requestsList) writeData(js *wire.Stream) {
	js.Raw(`{"count":` + strconv.Itoa(l.Len()) + `,"requests":[`)
	for i := range l.Len() {
		if js.Err() != nil {
			return // the client is gone: build no more entries
		}
		if i > 0 {
			js.Raw(",")
		}
		e := l.Entry(i)
		js.Value(&e)
	}
	js.Raw("]}")
}

// handleRequestsDelete serves DELETE /__mock/requests.
func (a *Admin) handleRequestsDelete(r *http.Request) (int, any, error) {
	sid, err := scope(r, session.All)
	if err != nil {
		return 0, nil, err
	}
	a.State.Journals().Clear(sid)
	return http.StatusOK, map[string]string{"cleared": sid}, nil
}

// Requests returns the journal entries that match f, oldest first; an
// invalid pattern matches nothing.
func (a *Admin) Requests(f journal.Filter) []journal.Entry {
	p, err := a.State.Journals().Compile(f)
	if err != nil {
		return nil
	}
	return a.State.Journals().Entries(p, f.Limit)
}
