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
	hosts   []string // --allowed-hosts, in lower case: served besides the names HostServed takes unasked
}

// NewGuard returns the guard of origins (Options.CORSOrigins) and hosts
// (Options.AllowedHosts).
func NewGuard(origins, hosts []string) *Guard {
	lower := make([]string, len(hosts))
	for i, h := range hosts {
		lower[i] = strings.TrimSuffix(strings.ToLower(h), ".")
	}
	return &Guard{origins: origins, hosts: lower}
}

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

// HostAllowed reports whether the server answers a request naming
// r.Host. A page on a DNS-rebound name (evil.example resolved to this
// server's address) sends its own name there, and is same-origin with
// it: only names no one outside can point at this server are served
// unasked (see HostServed), whatever address the request arrived on, so
// that a server in a container, whose listener is not loopback, is as
// safe as one on a laptop.
//
// A request that came over no connection (a Go test's
// httptest.NewRecorder, whose Host is example.com) was made by code in
// this process, not by a browser, and is answered.
func (g *Guard) HostAllowed(r *http.Request) bool {
	if r.Host == "" { // HTTP/1.0 without Host: no browser sends that
		return true
	}
	if _, conn := r.Context().Value(http.LocalAddrContextKey).(net.Addr); !conn {
		return true
	}
	return g.HostServed(r.Host)
}

// HostServed reports whether host (with or without a port) is a name the
// server answers to:
//   - localhost, a name under .localhost (RFC 6761) or a loopback
//     address: this machine;
//   - any IP address: a page can only be same-origin with an IP address
//     if the browser loaded it from that address, so an IP in Host is
//     never a rebound name (rebinding needs a DNS name whose answer the
//     attacker changes);
//   - a single-label name (replymock, mock-api): a compose or Kubernetes
//     service; public DNS delegates no single-label names, so only the
//     local resolver answers for them;
//   - a name --allowed-hosts lists ("*" lists every name).
func (g *Guard) HostServed(host string) bool {
	name := hostname(host)
	return LoopbackHost(name) || isIP(name) || singleLabel(name) || Listed(g.hosts, name, true)
}

// HostListed reports whether host (with or without a port) is one of
// AllowedHosts.
func (g *Guard) HostListed(host string) bool {
	return Listed(g.hosts, hostname(host), true)
}

// hostname is host without its port, in lower case, without a final dot.
func hostname(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.TrimSuffix(strings.ToLower(host), ".")
}

// isIP reports whether name is an IP address, IPv6 in brackets or not.
func isIP(name string) bool {
	_, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(name, "["), "]"))
	return err == nil
}

// singleLabel reports whether name is one DNS label: letters, digits,
// '-' and '_' (compose names a container project_service_1).
func singleLabel(name string) bool {
	if name == "" || len(name) > 63 {
		return false
	}
	for _, c := range []byte(name) {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// RefuseHost is the answer to a request whose Host the server does not
// serve.
func RefuseHost(r *http.Request) *wire.APIError {
	return &wire.APIError{Status: http.StatusForbidden, Code: wire.CodeForbidden, Field: "Host",
		Message: "host " + strconv.Quote(wire.Clip(r.Host)) + " is not served: a web page on a name pointed at this server could steer it (DNS rebinding), " +
			"so only localhost, *.localhost, IP addresses, single-label names (a compose or Kubernetes service) and --allowed-hosts are; " +
			"start with --allowed-hosts " + wire.Clip(hostname(r.Host)) + " to serve it"}
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
