package mock

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/wire"
)

// adminParams are the parameters every admin route may take; a route
// that takes others reads them itself, and others pass unread.
var adminParams = &wire.Params{Names: []string{"session", "scenario"}, IgnoreUnknown: true}

// adminScope is the session an admin request is about: ?session=ID, else
// the X-Mock-Session header, else def. "*" means every session.
func adminScope(r *http.Request, def string) (string, error) {
	q, err := wire.ReadQuery(r.URL.RawQuery, adminParams)
	if err != nil {
		return "", err
	}
	return sessionParam(q, r, def)
}

// sessionParam is the session q names (session=), else the X-Mock-Session
// header, else def; a scenario= given twice is refused here too.
func sessionParam(q wire.Query, r *http.Request, def string) (string, error) {
	if _, _, err := q.Get("scenario"); err != nil {
		return "", err
	}
	sid, _, err := q.Get("session")
	if err != nil {
		return "", err
	}
	if sid == "" {
		sid = r.Header.Get(HeaderSession)
	}
	switch {
	case sid == "":
		return def, nil
	case sid == AllSessions || validID(sid):
		return sid, nil
	}
	return "", wire.InvalidParameter("session", "must be * or "+msgBadSessionID)
}

// requireAdmin guards the admin routes when an admin token is set; the
// token comes as a bearer token or in X-Mock-Admin-Token.
func (s *Server) requireAdmin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.adminToken != "" && r.URL.Path != AdminPrefix+"/health" && !access.AdminTokenOK(r, s.adminToken) {
			access.SetChallenge(w.Header(), access.RealmAdmin)
			s.writeError(w, r, &APIError{Status: http.StatusUnauthorized, Code: CodeUnauthorized,
				Message: "the admin API needs the admin token (Authorization: Bearer <token> or X-Mock-Admin-Token)"})
			return
		}
		if s.readOnly && r.Method != http.MethodGet && r.Method != http.MethodHead {
			s.writeError(w, r, wire.ErrReadOnly)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// adminHandler adapts a handler that returns its answer or an error.
func (s *Server) adminHandler(h func(r *http.Request) (int, any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		status, data, err := h(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if st, ok := data.(streamed); ok {
			s.writeStreamed(w, r, status, st)
			return
		}
		wire.WriteJSON(w, status, wire.Envelope{Success: true, Data: data})
	}
}

// streamed is the data of an answer too large to build whole: it writes
// itself a piece at a time, so that memory holds one piece, not the
// answer. The envelope around it is the same as wire.WriteJSON's, and the
// bytes too; only the Content-Length is missing (HTTP/1.1 sends it
// chunked).
type streamed interface {
	writeData(js *wire.Stream)
}

// writeStreamed answers with data in the success envelope, as it is
// encoded. An encoding failure, once the answer has begun, can only cut
// the connection: the client sees a broken answer, not a wrong one.
func (s *Server) writeStreamed(w http.ResponseWriter, r *http.Request, status int, data streamed) {
	if rel, ok := data.(interface{ release() }); ok {
		defer rel.release() // written, or the client gone: what it pinned is free
	}
	w.Header().Set("Content-Type", wire.ContentTypeJSON)
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return
	}
	js := wire.NewStream(w)
	js.Raw(`{"success":true,"data":`)
	data.writeData(js)
	js.Raw("}")
	if err := js.Flush(); err != nil && js.EncodingFailed() {
		s.log.Error("admin answer encoding failed", "method", r.Method, "path", r.URL.Path, "err", err)
		panic(http.ErrAbortHandler)
	}
}

// decodeAdminBody decodes a JSON body into v, strictly.
func decodeAdminBody(r *http.Request, v any) error {
	body, err := wire.ReadJSONBody(nil, r)
	if err != nil {
		return err
	}
	return wire.DecodeStrict(body, v)
}

// Health is the data of GET /__mock/health.
type Health struct {
	Status        string  `json:"status"`
	Scenario      string  `json:"scenario"`
	Reviews       int     `json:"reviews"`
	UptimeSeconds float64 `json:"uptime_seconds"`
	Version       string  `json:"version"`
}

// handleHealth serves GET /__mock/health; it needs no admin token.
func (s *Server) handleHealth(*http.Request) (int, any, error) {
	sc := s.Scenario()
	n, err := sc.Len()
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, Health{Status: "ok", Scenario: sc.Name, Reviews: n,
		UptimeSeconds: s.now().Sub(s.started).Round(time.Second).Seconds(), Version: s.version}, nil
}

// oneSession names the one session an admin request is about: the
// default session unless named; "*" is refused.
func oneSession(r *http.Request) (string, error) {
	sid, err := adminScope(r, DefaultSession)
	if err != nil {
		return "", err
	}
	if sid == AllSessions {
		return "", wire.InvalidParameter("session", "must name one session, not *")
	}
	return sid, nil
}

// requestScenario is the scenario an admin request names: ?scenario=,
// else X-Mock-Scenario; "" for the session's.
func requestScenario(r *http.Request) string {
	q, _ := wire.ReadQuery(r.URL.RawQuery, adminParams) // adminScope has refused a bad one
	if name, _, _ := q.Get("scenario"); name != "" {
		return name
	}
	return r.Header.Get(HeaderScenario)
}

// handleMetrics serves GET /__mock/metrics in the Prometheus text format.
func (s *Server) handleMetrics() http.Handler {
	return promhttp.HandlerFor(s.api.Registry(), promhttp.HandlerOpts{})
}
