package mock

import (
	"net/http"
	"strings"

	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/media"
)

// guarded answers what the server's guard (package access) refuses or
// answers itself: a Host it does not serve, a preflight, a request from a
// page that may not steer it. It reports whether r was answered.
func (s *Server) guarded(w http.ResponseWriter, r *http.Request) bool {
	if !s.guard.HostAllowed(r) {
		s.writeError(w, r, access.RefuseHost(r))
		return true
	}
	answered, refusal := s.guard.CORS(w, r, guardKind(r.URL.Path), func() []string { return s.allowedMethods(r.URL.EscapedPath()) })
	if refusal != nil {
		s.writeError(w, r, refusal)
	}
	return answered
}

// guardKind is what path serves, for the guard.
func guardKind(path string) access.Kind {
	switch {
	case media.IsPath(path):
		return access.Media // no data: any page may show it, the API's origins read it
	case path == AdminPrefix || path == AdminPrefix+"/":
		return access.Panel
	case strings.HasPrefix(path, AdminPrefix+"/"):
		return access.Admin
	}
	return access.API
}
