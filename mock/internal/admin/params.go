package admin

import (
	"net/http"

	"github.com/replymock/replymock/mock/internal/session"
	"github.com/replymock/replymock/mock/internal/shared"
	"github.com/replymock/replymock/mock/internal/wire"
)

// adminParams are the parameters every admin route may take; others
// pass unread.
var adminParams = &wire.Params{Names: []string{"session", "scenario"}, IgnoreUnknown: true}

// scope is the session an admin request is about: ?session=ID, else
// the X-Mock-Session header, else def. "*" means every session.
func scope(r *http.Request, def string) (string, error) {
	q, err := wire.ReadQuery(r.URL.RawQuery, adminParams)
	if err != nil {
		return "", err
	}
	sid, err := SessionParam(q, r, def)
	if p, ok := r.Context().Value(scopeKey{}).(*string); ok && err == nil {
		*p = sid // what Handler's write waits to see kept
	}
	return sid, err
}

// scopeKey is the context key of where scope notes the session a
// request is about.
type scopeKey struct{}

// SessionParam is the session q names (session=), else the
// X-Mock-Session header, else def. An empty one is refused, and a
// scenario= given twice too.
func SessionParam(q wire.Query, r *http.Request, def string) (string, error) {
	if _, _, err := q.Get("scenario"); err != nil {
		return "", err
	}
	sid, given, err := q.Get("session")
	if err != nil {
		return "", err
	}
	if ids := r.Header.Values(shared.HeaderSession); !given && len(ids) > 0 {
		sid, given = ids[0], true
	}
	switch {
	case !given:
		return def, nil
	case sid == session.All || session.ValidID(sid): // not "": an unset variable must not mean every session
		return sid, nil
	}
	return "", wire.InvalidParameter("session", "must be * or "+session.MsgBadID)
}

// oneSession is scope for one session, by default the default one.
func oneSession(r *http.Request) (string, error) {
	sid, err := scope(r, session.Default)
	if err != nil {
		return "", err
	}
	return sid, notAll(sid)
}

// notAll refuses "*" where one session is meant.
func notAll(sid string) error {
	if sid == session.All {
		return wire.InvalidParameter("session", "must name one session, not *")
	}
	return nil
}

// requestScenario is the scenario an admin request names, else "" for
// the session's.
func requestScenario(r *http.Request) string {
	q, _ := wire.ReadQuery(r.URL.RawQuery, adminParams) // scope has refused a bad one
	if name, _, _ := q.Get("scenario"); name != "" {
		return name
	}
	return r.Header.Get(shared.HeaderScenario)
}
