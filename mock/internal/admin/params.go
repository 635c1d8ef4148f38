package admin

import (
	"errors"
	"net/http"
	"strings"

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
// X-Mock-Session header, else def. An empty one is refused, and an empty
// scenario or one given twice too.
func SessionParam(q wire.Query, r *http.Request, def string) (string, error) {
	if name, given, err := q.Get("scenario"); err != nil {
		return "", err
	} else if given && name == "" {
		return "", wire.InvalidParameter("scenario", "is empty: name a scenario, or leave it out for the session's")
	}
	if _, err := shared.ScenarioHeader(r.Header); err != nil {
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
	return "", wire.InvalidParameter(sessionField(r), "must be * or %s", strings.TrimPrefix(session.MsgBadID, "must be "))
}

// sessionField is the parameter that names r's session, for its errors:
// session=, else X-Mock-Session.
func sessionField(r *http.Request) string {
	if q, _ := wire.ReadQuery(r.URL.RawQuery, adminParams); len(r.Header.Values(shared.HeaderSession)) > 0 {
		if _, given, _ := q.Get("session"); !given {
			return shared.HeaderSession
		}
	}
	return "session"
}

// oneSession is scope for one session, by default the default one.
func oneSession(r *http.Request) (string, error) {
	sid, err := scope(r, session.Default)
	if err != nil {
		return "", err
	}
	return sid, notAll(r, sid)
}

// notAll refuses "*" where one session is meant.
func notAll(r *http.Request, sid string) error {
	if sid == session.All {
		return wire.InvalidParameter(sessionField(r), "must name one session, not *")
	}
	return nil
}

// requestScenario is the scenario an admin request names (scenario=,
// else X-Mock-Scenario), "" for the session's, and the parameter that
// named it, for errors.
func requestScenario(r *http.Request) (name, field string) {
	q, _ := wire.ReadQuery(r.URL.RawQuery, adminParams) // scope has refused a bad one
	if name, given, _ := q.Get("scenario"); given {
		return name, "scenario"
	}
	return r.Header.Get(shared.HeaderScenario), shared.HeaderScenario
}

// namedBy says err, about the scenario a request named, of field, the
// parameter that named it.
func namedBy(err error, field string) error {
	var ae *wire.APIError
	if errors.As(err, &ae) && ae.Field == shared.HeaderScenario {
		ae.Field = field
	}
	return err
}
