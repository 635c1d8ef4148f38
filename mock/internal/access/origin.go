package access

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/replymock/replymock/mock/internal/wire"
)

// Guard is which browser origins may call the server and which Host
// names it answers.
type Guard struct {
	origins []string // --cors-origins: exact origins or path.Match patterns; "*" any (the API only)
	hosts   []string // --allowed-hosts: served besides loopback names
}

// NewGuard returns the guard of origins (Options.CORSOrigins) and hosts
// (Options.AllowedHosts).
func NewGuard(origins, hosts []string) *Guard { return &Guard{origins: origins, hosts: hosts} }

// corsExposed are the answer headers a browser script may read.
const corsExposed = "Retry-After, X-Request-Id, WWW-Authenticate, Allow, Content-Length, X-Mock-Warning, X-Mock-Proxied"

// OriginAllowed reports whether a browser page at origin may call the
// API. No list, or "*" in it, allows any origin; entries are exact
// origins or path.Match patterns such as http://localhost:*.
func (g *Guard) OriginAllowed(origin string) bool {
	if len(g.origins) == 0 {
		return true
	}
	return Listed(g.origins, origin, true)
}

// AdminOriginAllowed reports whether a browser page at origin may call
// the admin API, whose writes steer the mock: pages served from this
// machine (loopback origins), the server's own page when it is served as
// a name --allowed-hosts lists, and the origins --cors-origins names.
// Neither "*" nor the opaque origin "null" is enough: any web page the
// developer visits could then add faults or read the journal.
func (g *Guard) AdminOriginAllowed(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https" {
		return false
	}
	if LoopbackHost(u.Hostname()) {
		return true
	}
	// The server's own page, when its Host is one the server is known to
	// be served as: a DNS-rebound page is same-origin with itself, and a
	// server in a container takes any Host.
	if strings.EqualFold(u.Host, host) && g.HostListed(host) {
		return true
	}
	return Listed(g.origins, origin, false)
}

// Listed reports whether name is in list: an exact entry or a path.Match
// pattern; "*" matches only when star is true.
func Listed(list []string, name string, star bool) bool {
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

// LoopbackHost reports whether host (without a port) names this machine:
// localhost, a name under .localhost (RFC 6761) or a loopback address.
func LoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && ip.Unmap().IsLoopback()
}

// HostAllowed reports whether the server answers a request naming host
// in its Host header. A page on a DNS-rebound name (evil.example resolved
// to 127.0.0.1) sends its own name there, so a request that arrived over
// loopback must name a loopback host or one of AllowedHosts. A request
// from elsewhere (a container's network, the LAN) may name any host,
// unless AllowedHosts lists some; loopback names are always allowed, so
// that health checks keep working.
func (g *Guard) HostAllowed(r *http.Request) bool {
	if r.Host == "" { // HTTP/1.0 without Host: no browser sends that
		return true
	}
	name := r.Host
	if h, _, err := net.SplitHostPort(r.Host); err == nil {
		name = h
	}
	if LoopbackHost(name) {
		return true
	}
	if len(g.hosts) > 0 {
		return g.HostListed(r.Host)
	}
	return !arrivedOverLoopback(r)
}

// HostListed reports whether host (with or without a port) is one of
// AllowedHosts.
func (g *Guard) HostListed(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return Listed(g.hosts, strings.ToLower(host), true)
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

// RefuseHost is the answer to a request whose Host the server does not
// serve.
func RefuseHost(r *http.Request) *wire.APIError {
	return &wire.APIError{Status: http.StatusForbidden, Code: wire.CodeForbidden, Field: "Host",
		Message: "host " + strconv.Quote(r.Host) + " is not served: a request over loopback must name localhost or a loopback address " +
			"(this stops DNS rebinding); add the name to --allowed-hosts to serve it"}
}

// CORS adds the CORS headers for a request from a browser and answers a
// preflight itself, reporting whether it answered. The allowed origin is
// echoed, never "*", so that requests with credentials work too. An
// admin write from a page whose origin may not call the admin API is
// refused here: a cross-site form or no-cors fetch needs no preflight,
// and browsers always send Origin with it (curl sends none).
//
// admin says whether r is for the admin API (media files, which hold no
// data, are not); methods lists what r's path answers to (nil: unknown).
// A refusal is returned for the caller to write.
func (g *Guard) CORS(w http.ResponseWriter, r *http.Request, admin bool, methods func() []string) (answered bool, refusal *wire.APIError) {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false, nil
	}
	h := w.Header()
	h.Add("Vary", "Origin")
	preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
	allowed := g.OriginAllowed(origin)
	if admin {
		allowed = g.AdminOriginAllowed(origin, r.Host)
	}
	if !allowed {
		write := r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodOptions
		if preflight || admin && write {
			msg := "origin " + strconv.Quote(origin) + " is not in --cors-origins"
			if admin {
				msg = "origin " + strconv.Quote(origin) + " may not call the admin API: only the server's own page, loopback origins and --cors-origins may"
			}
			return true, &wire.APIError{Status: http.StatusForbidden, Code: wire.CodeForbidden, Field: "Origin", Message: msg}
		}
		return false, nil // the answer goes out without CORS headers: the browser hides it
	}
	h.Set("Access-Control-Allow-Origin", origin)
	h.Set("Access-Control-Allow-Credentials", "true")
	if !preflight {
		h.Set("Access-Control-Expose-Headers", corsExposed)
		return false, nil
	}
	h.Add("Vary", "Access-Control-Request-Method, Access-Control-Request-Headers")
	allow := methods()
	if len(allow) == 0 {
		allow = []string{http.MethodGet, http.MethodHead, http.MethodPatch, http.MethodPost, http.MethodPut, http.MethodDelete}
	}
	h.Set("Access-Control-Allow-Methods", strings.Join(append(allow, http.MethodOptions), ", "))
	if req := r.Header.Get("Access-Control-Request-Headers"); req != "" {
		h.Set("Access-Control-Allow-Headers", req) // any header: it is a mock
	}
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
	return true, nil
}
