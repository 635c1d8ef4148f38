package mock

import (
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/gorilla/mux"
	"github.com/replymock/replymock/mock/internal/admin"
	"github.com/replymock/replymock/mock/internal/api"
	"github.com/replymock/replymock/mock/internal/media"
	"github.com/replymock/replymock/mock/internal/wire"
)

// Path prefixes of the API and of the mock's own admin routes.
const (
	APIPrefix   = api.Prefix
	AdminPrefix = admin.Prefix
)

// routes is the whole HTTP surface of the server.
func (s *Server) routes() *mux.Router {
	r := mux.NewRouter()
	// Match the path as sent: /api/v1//feedbacks and /api/v1/settings%2Fai
	// are unknown paths (404), not redirects or aliases.
	r.SkipClean(true)
	r.UseEncodedPath()

	// Package api serves the API before the router sees it; the router
	// knows its routes for 404, 405 and Allow.
	for _, rt := range api.Routes() {
		r.Handle(rt.Path, unreachable(rt.Path)).Methods(rt.Methods...)
	}

	for _, rt := range s.admin.Routes() {
		r.Handle(rt.Path, rt.Handler).Methods(rt.Methods...)
	}
	ui := s.handleUI()
	r.Handle(AdminPrefix+"/", ui).Methods(http.MethodGet, http.MethodHead)
	r.PathPrefix(AdminPrefix+"/ui/").Handler(ui).Methods(http.MethodGet, http.MethodHead)
	r.Handle(AdminPrefix, http.RedirectHandler(AdminPrefix+"/", http.StatusMovedPermanently)).Methods(http.MethodGet, http.MethodHead)
	guard := s.admin.Guard
	r.Handle(MCPPath, s.admin.TokenGuard(http.HandlerFunc(s.handleMCP))).Methods(http.MethodGet, http.MethodPost, http.MethodDelete)
	asIs := func(doc []byte) func() ([]byte, error) { return func() ([]byte, error) { return doc, nil } }
	r.Handle(AdminPrefix+"/openapi.yaml", guard(s.handleOpenAPI(wire.ContentTypeYAML, asIs(openAPIYAML), openAPIAbsolute))).Methods(http.MethodGet, http.MethodHead)
	r.Handle(AdminPrefix+"/openapi.json", guard(s.handleOpenAPI(wire.ContentTypeJSON, openAPIJSON, openAPIAbsoluteJSON))).Methods(http.MethodGet, http.MethodHead)
	r.Handle(AdminPrefix+"/admin/openapi.yaml", guard(s.handleOpenAPI(wire.ContentTypeYAML, asIs(adminOpenAPIYAML), nil))).Methods(http.MethodGet, http.MethodHead)
	r.Handle(AdminPrefix+"/admin/openapi.json", guard(s.handleOpenAPI(wire.ContentTypeJSON, adminOpenAPIJSON, nil))).Methods(http.MethodGet, http.MethodHead)
	// The records' photos and videos: no token, they hold no data.
	serveMedia := func(w http.ResponseWriter, r *http.Request) { media.Serve(w, r, s.log) }
	r.PathPrefix(MediaPrefix).HandlerFunc(serveMedia).Methods(http.MethodGet, http.MethodHead)

	// One flat router: sub-routers would turn 405s into 404s.
	r.NotFoundHandler = http.HandlerFunc(s.handleNotFound)
	r.MethodNotAllowedHandler = http.HandlerFunc(s.handleMethodNotAllowed)
	s.allow = newAllowTable(r)
	return r
}

func (s *Server) handleNotFound(w http.ResponseWriter, r *http.Request) {
	s.writeError(w, r, &APIError{Status: http.StatusNotFound, Code: CodeNotFound,
		Message: "no such path: " + r.URL.Path})
}

// unreachable is the router's handler of an API operation: reaching it is
// a bug, answered as a logged 500 rather than a quiet 404.
func unreachable(path string) http.Handler {
	return http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		panic("the router reached the API operation " + r.Method + " " + path)
	})
}

// allowTable lists, for each route path, the methods it accepts.
type allowTable []allowRoute

type allowRoute struct {
	re      *regexp.Regexp
	methods []string
}

func newAllowTable(root *mux.Router) allowTable {
	var t allowTable
	root.Walk(func(route *mux.Route, _ *mux.Router, _ []*mux.Route) error {
		re, err1 := route.GetPathRegexp()
		methods, err2 := route.GetMethods()
		if err1 == nil && err2 == nil {
			t = append(t, allowRoute{regexp.MustCompile(re), methods})
		}
		return nil
	})
	return t
}

// allowedMethods lists the methods the routes matching escapedPath
// accept, sorted; none for an unknown path.
func (s *Server) allowedMethods(escapedPath string) []string {
	var allow []string
	for _, pm := range s.allow {
		if pm.re.MatchString(escapedPath) {
			allow = append(allow, pm.methods...)
		}
	}
	slices.Sort(allow)
	return slices.Compact(allow)
}

// handleMethodNotAllowed answers 405 with the Allow header.
func (s *Server) handleMethodNotAllowed(w http.ResponseWriter, r *http.Request) {
	allow := strings.Join(s.allowedMethods(r.URL.EscapedPath()), ", ")
	w.Header().Set("Allow", allow)
	s.writeError(w, r, &APIError{Status: http.StatusMethodNotAllowed, Code: CodeMethodNotAllowed,
		Message: r.Method + " is not allowed on " + r.URL.Path + "; allowed: " + allow})
}
