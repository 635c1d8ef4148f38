package mock

import (
	"net/http"
	"path"
	"strconv"
	"strings"
)

// corsExposed are the answer headers a browser script may read.
const corsExposed = "Retry-After, X-Request-Id, WWW-Authenticate, Allow, Content-Length"

// originAllowed reports whether a browser page at origin may call the
// server. No list, or "*" in it, allows any origin; entries are exact
// origins or path.Match patterns such as http://localhost:*.
func (s *Server) originAllowed(origin string) bool {
	if len(s.corsOrigins) == 0 {
		return true
	}
	for _, o := range s.corsOrigins {
		if o == "*" || o == origin {
			return true
		}
		if ok, _ := path.Match(o, origin); ok {
			return true
		}
	}
	return false
}

// cors adds the CORS headers for a request from a browser and answers a
// preflight itself, reporting whether it did. The allowed origin is
// echoed, never "*", so that requests with credentials work too.
func (s *Server) cors(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false
	}
	h := w.Header()
	h.Add("Vary", "Origin")
	preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
	if !s.originAllowed(origin) {
		if preflight {
			s.writeError(w, r, &APIError{Status: http.StatusForbidden, Code: CodeForbidden,
				Message: "origin " + strconv.Quote(origin) + " is not in --cors-origins"})
			return true
		}
		return false // the answer goes out without CORS headers: the browser hides it
	}
	h.Set("Access-Control-Allow-Origin", origin)
	h.Set("Access-Control-Allow-Credentials", "true")
	if !preflight {
		h.Set("Access-Control-Expose-Headers", corsExposed)
		return false
	}
	h.Add("Vary", "Access-Control-Request-Method, Access-Control-Request-Headers")
	methods := s.allowedMethods(r.URL.EscapedPath())
	if len(methods) == 0 {
		methods = []string{http.MethodGet, http.MethodHead, http.MethodPatch, http.MethodPost, http.MethodPut, http.MethodDelete}
	}
	h.Set("Access-Control-Allow-Methods", strings.Join(append(methods, http.MethodOptions), ", "))
	if req := r.Header.Get("Access-Control-Request-Headers"); req != "" {
		h.Set("Access-Control-Allow-Headers", req) // any header: it is a mock
	}
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
	return true
}
