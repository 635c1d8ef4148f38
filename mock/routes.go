package mock

import (
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/gorilla/mux"
)

// Path prefixes of the API and of the mock's own admin routes.
const (
	APIPrefix   = "/api/v1"
	AdminPrefix = "/__mock"
)

// routes is the whole HTTP surface of the server.
func (s *Server) routes() *mux.Router {
	r := mux.NewRouter()
	// A path like /api/v1//feedbacks is an unknown path (404 in the
	// envelope), not a redirect to a cleaned one.
	r.SkipClean(true)

	r.HandleFunc(APIPrefix+"/settings/ai", s.handleSettingsGet).Methods(http.MethodGet, http.MethodHead)
	r.HandleFunc(APIPrefix+"/settings/ai", s.handleSettingsPatch).Methods(http.MethodPatch)
	r.HandleFunc(APIPrefix+"/feedbacks", s.handleFeedbacksList).Methods(http.MethodGet, http.MethodHead)

	r.HandleFunc(AdminPrefix+"/health", s.handleHealth).Methods(http.MethodGet, http.MethodHead)

	// Sub-routers would lose 405s to 404s; one flat router keeps them.
	r.NotFoundHandler = http.HandlerFunc(s.handleNotFound)
	r.MethodNotAllowedHandler = http.HandlerFunc(s.handleMethodNotAllowed(r))
	return r
}

// handleHealth serves GET /__mock/health.
func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, envelope{Success: true, Data: map[string]string{"status": "ok", "scenario": s.Scenario().Name}})
}

func (s *Server) handleNotFound(w http.ResponseWriter, r *http.Request) {
	s.writeError(w, r, &APIError{Status: http.StatusNotFound, Code: CodeNotFound,
		Message: "no such path: " + r.URL.Path})
}

// handleMethodNotAllowed answers 405 with an Allow header listing the
// methods that the routes matching the request's path accept.
func (s *Server) handleMethodNotAllowed(root *mux.Router) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		var allow []string
		root.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
			re, err := route.GetPathRegexp()
			if err != nil {
				return nil // a prefix-only route
			}
			methods, err := route.GetMethods()
			if err != nil || !regexp.MustCompile(re).MatchString(r.URL.Path) {
				return nil
			}
			allow = append(allow, methods...)
			return nil
		})
		slices.Sort(allow)
		allow = slices.Compact(allow)
		w.Header().Set("Allow", strings.Join(allow, ", "))
		s.writeError(w, r, &APIError{Status: http.StatusMethodNotAllowed, Code: CodeMethodNotAllowed,
			Message: r.Method + " is not allowed on " + r.URL.Path + "; allowed: " + strings.Join(allow, ", ")})
	}
}
