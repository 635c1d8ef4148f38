package admin

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/journal"
	"github.com/replymock/replymock/mock/internal/wire"
)

// journalQuery is what GET /__mock/requests and /__mock/verify were
// asked.
type journalQuery struct {
	p     *journal.Pattern
	f     journal.Filter // what p was compiled from
	wait  time.Duration
	query wire.Query // every parameter, the route's own (limit, count, ...) too
}

// parseJournalQuery reads the parameters of GET /__mock/requests and
// /__mock/verify, the journal's and the route's own. A bad one is a 400
// naming it.
func (a *Admin) parseJournalQuery(r *http.Request, own ...string) (*journalQuery, error) {
	params := &wire.Params{Names: append([]string{"session", "method", "path", "since", "wait"}, own...),
		Prefixes: []string{"query.", "header.", "body."},
		Shown:    append([]string{"session", "method", "path", "query.NAME", "header.NAME", "body.PATH", "since", "wait"}, own...)}
	v, err := wire.ReadQuery(r.URL.RawQuery, params)
	if err != nil {
		return nil, err
	}
	q := &journalQuery{query: v}
	f := &journal.Filter{Query: map[string]string{}, Header: map[string]string{}, Body: map[string]string{}}
	if f.Session, err = SessionParam(v, r, ""); err != nil { // "" is every session
		return nil, err
	}
	for _, key := range v.Names() {
		val, _, err := v.Get(key)
		if err != nil {
			return nil, err
		}
		if name, ok := strings.CutPrefix(key, "query."); ok {
			f.Query[name] = val
		} else if name, ok := strings.CutPrefix(key, "header."); ok {
			f.Header[name] = val
		} else if path, ok := strings.CutPrefix(key, "body."); ok {
			f.Body[path] = val
		} else if err := q.set(key, val, f); err != nil {
			return nil, err
		}
	}
	if q.p, err = a.State.Journals().Compile(*f); err != nil {
		return nil, err
	}
	q.f = *f
	return q, nil
}

// set reads one parameter but a pattern's parts into q.
func (q *journalQuery) set(key, val string, f *journal.Filter) error {
	switch key {
	case "session": // read by SessionParam; the route reads its own
	case "method":
		f.Method = val
	case "path":
		f.Path = val
	case "since":
		n, err := wire.ParseDigits(val)
		if err != nil {
			return wire.InvalidParameter("since", "must be a journal sequence number, got %q", wire.Clip(val))
		}
		f.Since = n
	case "wait":
		var err error
		if q.wait, err = parseWait(val); err != nil {
			return err
		}
	}
	return nil
}

// parseWait reads wait=: a duration ("5s", "500ms") or whole seconds,
// up to journal.MaxWait.
func parseWait(v string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if n, derr := wire.ParseDigits(v); derr == nil && n <= int64(journal.MaxWait/time.Second) {
		d, err = time.Duration(n)*time.Second, nil
	}
	if err != nil || d < 0 || d > journal.MaxWait {
		return 0, wire.InvalidParameter("wait", "must be a duration from 0s to %s, such as 5s or 500ms, got %q", journal.MaxWait, v)
	}
	return d, nil
}

// waitFor waits, if the request asked to, until n entries match. Only
// too many waiters or a pattern that reads too much are errors.
func (a *Admin) waitFor(r *http.Request, q *journalQuery, n int) error {
	if q.wait <= 0 || n <= 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(r.Context(), q.wait)
	defer cancel()
	// A client is its remote address, or its IPv6 /64: behind a reverse
	// proxy, all clients are one.
	client, _ := access.Client(r.RemoteAddr)
	switch err := a.State.Journals().Await(ctx, client, q.p, n); err {
	case journal.ErrTooManyWaiters, journal.ErrClientWaiters, journal.ErrScanTooLarge:
		return err
	}
	return nil
}
