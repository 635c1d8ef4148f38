package mock

import (
	"net/http"
	"strings"

	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/media"
)

// guarded answers what the server's guard (package access) refuses or
// answers itself: a Host it does not serve, a preflight, a write from an
// origin that may not steer it. It reports whether r was answered.
func (s *Server) guarded(w http.ResponseWriter, r *http.Request) bool {
	if !s.guard.HostAllowed(r) {
		s.writeError(w, r, access.RefuseHost(r))
		return true
	}
	// Media files hold no data: any page the API serves may show them.
	admin := strings.HasPrefix(r.URL.Path, AdminPrefix+"/") && !media.IsPath(r.URL.Path)
	answered, refusal := s.guard.CORS(w, r, admin, func() []string { return s.allowedMethods(r.URL.EscapedPath()) })
	if refusal != nil {
		s.writeError(w, r, refusal)
	}
	return answered
}
