package mock

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/replymock/replymock/mock/internal/media"
)

// corsExposed are the answer headers a browser script may read.
const corsExposed = "Retry-After, X-Request-Id, WWW-Authenticate, Allow, Content-Length, X-Mock-Warning, X-Mock-Proxied"

// originAllowed reports whether a browser page at origin may call the
// API. No list, or "*" in it, allows any origin; entries are exact
// origins or path.Match patterns such as http://localhost:*.
func (s *Server) originAllowed(origin string) bool {
	if len(s.corsOrigins) == 0 {
		return true
	}
	return listed(s.corsOrigins, origin, true)
}

// adminOriginAllowed reports whether a browser page at origin may call
// the admin API, whose writes steer the mock: pages served from this
// machine (loopback origins), the server's own page when it is served as
// a name --allowed-hosts lists, and the origins --cors-origins names.
// Neither "*" nor the opaque origin "null" is enough: any web page the
// developer visits could then add faults or read the journal.
func (s *Server) adminOriginAllowed(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https" {
		return false
	}
	if loopbackHost(u.Hostname()) {
		return true
	}
	// The server's own page, when its Host is one the server is known to
	// be served as: a DNS-rebound page is same-origin with itself, and a
	// server in a container takes any Host.
	if strings.EqualFold(u.Host, host) && s.hostListed(host) {
		return true
	}
	return listed(s.corsOrigins, origin, false)
}

// listed reports whether name is in list: an exact entry or a path.Match
// pattern; "*" matches only when star is true.
func listed(list []string, name string, star bool) bool {
	for _, o := range list {
		if o == "*" {
			if star {
				return true
			}
			continue
		}
		if o == name {
			return true
		}
		if ok, _ := path.Match(o, name); ok {
			return true
		}
	}
	return false
}

// loopbackHost reports whether host (without a port) names this machine:
// localhost, a name under .localhost (RFC 6761) or a loopback address.
func loopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && ip.Unmap().IsLoopback()
}

// hostAllowed reports whether the server answers a request naming host
// in its Host header. A page on a DNS-rebound name (evil.example resolved
// to 127.0.0.1) sends its own name there, so a request that arrived over
// loopback must name a loopback host or one of AllowedHosts. A request
// from elsewhere (a container's network, the LAN) may name any host,
// unless AllowedHosts lists some; loopback names are always allowed, so
// that health checks keep working.
func (s *Server) hostAllowed(r *http.Request) bool {
	if r.Host == "" { // HTTP/1.0 without Host: no browser sends that
		return true
	}
	name := r.Host
	if h, _, err := net.SplitHostPort(r.Host); err == nil {
		name = h
	}
	if loopbackHost(name) {
		return true
	}
	if len(s.allowedHosts) > 0 {
		return s.hostListed(r.Host)
	}
	return !arrivedOverLoopback(r)
}

// hostListed reports whether host (with or without a port) is one of
// AllowedHosts.
func (s *Server) hostListed(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return listed(s.allowedHosts, strings.ToLower(host), true)
}

// arrivedOverLoopback reports whether r came in on a loopback address of
// this machine; a request served without a listener (a test's recorder)
// did not.
func arrivedOverLoopback(r *http.Request) bool {
	addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return false
	}
	ap, err := netip.ParseAddrPort(addr.String())
	return err == nil && ap.Addr().Unmap().IsLoopback()
}

// refuseHost answers a request whose Host the server does not serve.
func (s *Server) refuseHost(w http.ResponseWriter, r *http.Request) {
	s.writeError(w, r, &APIError{Status: http.StatusForbidden, Code: CodeForbidden, Field: "Host",
		Message: "host " + strconv.Quote(r.Host) + " is not served: a request over loopback must name localhost or a loopback address " +
			"(this stops DNS rebinding); add the name to --allowed-hosts to serve it"})
}

// cors adds the CORS headers for a request from a browser and answers a
// preflight itself, reporting whether it answered. The allowed origin is
// echoed, never "*", so that requests with credentials work too. An
// admin write from a page whose origin may not call the admin API is
// refused here: a cross-site form or no-cors fetch needs no preflight,
// and browsers always send Origin with it (curl sends none).
func (s *Server) cors(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false
	}
	h := w.Header()
	h.Add("Vary", "Origin")
	preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
	// Media files hold no data: any page the API serves may show them.
	admin := strings.HasPrefix(r.URL.Path, AdminPrefix+"/") && !media.IsPath(r.URL.Path)
	allowed := s.originAllowed(origin)
	if admin {
		allowed = s.adminOriginAllowed(origin, r.Host)
	}
	if !allowed {
		write := r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodOptions
		if preflight || admin && write {
			msg := "origin " + strconv.Quote(origin) + " is not in --cors-origins"
			if admin {
				msg = "origin " + strconv.Quote(origin) + " may not call the admin API: only the server's own page, loopback origins and --cors-origins may"
			}
			s.writeError(w, r, &APIError{Status: http.StatusForbidden, Code: CodeForbidden, Field: "Origin", Message: msg})
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
