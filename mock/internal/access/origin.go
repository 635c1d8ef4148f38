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

// Kind is what a path serves, as the guard tells who may call it from a
// browser page.
type Kind uint8

const (
	API   Kind = iota // /api/v1
	Admin             // /__mock/, which steers the mock
	Panel             // the control panel's page: the admin API's origins; any site may link to it
	Media             // the records' photos and videos: any page may show them
)

// corsExposed are the answer headers a browser script may read.
const corsExposed = "Retry-After, X-Request-Id, WWW-Authenticate, Allow, Content-Length, X-Mock-Warning, X-Mock-Proxied"

// localOrOwn reports whether origin is a page on this machine or the
// server's own page at a Host it serves (a DNS-rebound page is
// same-origin with itself, but its name is not served).
func (g *Guard) localOrOwn(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || u.Scheme != "http" && u.Scheme != "https" || origin != u.Scheme+"://"+u.Host {
		return false
	}
	if LoopbackHost(u.Hostname()) {
		return true
	}
	return strings.EqualFold(u.Host, host) && g.HostServed(host)
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
// r.Host (see HostServed). A request over no connection comes from code
// in this process and is answered.
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
// server answers to. A page on a DNS-rebound name sends that name, so
// unasked only names no one outside can point here are: this machine's,
// any IP address, and single-label names (a compose or Kubernetes
// service), which only the local resolver answers for.
func (g *Guard) HostServed(host string) bool {
	name := hostname(host)
	return LoopbackHost(name) || isIP(name) || singleLabel(name) || Listed(g.hosts, name, true)
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

// RefuseHost answers a request whose Host the server does not serve.
func RefuseHost(r *http.Request) *wire.APIError {
	return &wire.APIError{Status: http.StatusForbidden, Code: wire.CodeForbidden, Field: "Host",
		Message: "host " + strconv.Quote(wire.Clip(r.Host)) + " is not served: a web page on a name pointed at this server could steer it (DNS rebinding), " +
			"so only localhost, *.localhost, IP addresses, single-label names (a compose or Kubernetes service) and --allowed-hosts are; " +
			"start with --allowed-hosts " + wire.Clip(hostname(r.Host)) + " to serve it"}
}

// CORS adds the CORS headers for a request from a browser, and answers a
// preflight itself, reporting whether it answered. It echoes the allowed
// origin, never "*", so requests with credentials work too. methods
// lists what r's path answers to, nil if unknown.
//
// A request from a page that may not call kind is refused before it
// runs, whatever its method: a form or an <img> needs no preflight, and
// a GET has effects too. Without Origin, Sec-Fetch-Site tells a page of
// another site, and only a link followed to the API or the panel passes.
// Browsers send no Sec-Fetch-* to a plain http:// name that is not this
// machine (a container's service name, a LAN address). Then the Referer
// tells. Without one, pageMayHaveSent decides.
// A refusal is returned for the caller to write.
func (g *Guard) CORS(w http.ResponseWriter, r *http.Request, kind Kind, methods func() []string) (answered bool, refusal *wire.APIError) {
	origin := r.Header.Get("Origin")
	if origin == "" {
		switch {
		case kind == Media:
		case foreignSite(r) && !(kind != Admin && topLevelNavigation(r)):
			return true, refuseSite(kind)
		case r.Header.Get("Sec-Fetch-Site") != "" || kind == Panel:
		case r.Header.Get("Referer") != "":
			if ref := refererOrigin(r); !g.mayCall(ref, r.Host, kind) {
				return true, refuseReferer(ref, kind)
			}
		case kind == Admin && pageMayHaveSent(r) && steersOnGET(r):
			return true, refuseUnmarked()
		}
		return false, nil
	}
	h := w.Header()
	h.Add("Vary", "Origin")
	preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
	allowed := g.mayCall(origin, r.Host, kind)
	switch {
	case !allowed && kind == Media:
		return false, nil // the file without CORS headers: an <img> shows it, a script may not read it
	case !allowed:
		return true, refuseOrigin(origin, kind)
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

// foreignSite reports whether r comes from a page of another site:
// cross-site, or same-site on a Host that is not this machine.
func foreignSite(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "cross-site":
		return true
	case "same-site":
		return !LoopbackHost(hostname(r.Host))
	}
	return false // same-origin, none (typed in, a bookmark) or not sent
}

// mayCall reports whether a browser page at origin may call kind at
// host: a local dev origin, the server's own, or one that --cors-origins
// lists. As in Vite's answer to CVE-2025-24010, "*" is given, never
// assumed: any page the developer visits could call. For the admin API
// and the panel, neither "*" nor the opaque origin "null" is enough: any
// page could then add faults or read the journal.
func (g *Guard) mayCall(origin, host string, kind Kind) bool {
	if kind == Admin || kind == Panel {
		return origin != "null" && (g.localOrOwn(origin, host) || Listed(g.origins, origin, false))
	}
	return Listed(g.origins, origin, true) || g.localOrOwn(origin, host)
}

// refererOrigin is the origin of r's Referer, "null" when it has none.
func refererOrigin(r *http.Request) string {
	u, err := url.Parse(r.Header.Get("Referer"))
	if err != nil || u.Host == "" {
		return "null"
	}
	return u.Scheme + "://" + u.Host
}

// pageMayHaveSent reports whether r, which carries no Origin, no
// Sec-Fetch-Site and no Referer, may come from a page of another site:
// it names a Host that is not this machine, and carries neither the
// admin token nor a header a page cannot send without a preflight. A
// tool or a test helper sends one of those, or calls 127.0.0.1.
func pageMayHaveSent(r *http.Request) bool {
	if _, conn := r.Context().Value(http.LocalAddrContextKey).(net.Addr); !conn {
		return false // over no connection: code in this process
	}
	if LoopbackHost(hostname(r.Host)) || r.Header.Get("Authorization") != "" {
		return false
	}
	for name := range r.Header {
		if strings.HasPrefix(name, "X-Mock-") {
			return false
		}
	}
	return true
}

// steersOnGET reports whether r is a read of the admin API that does
// more than read: one that may build a scenario's data (scenario=) or
// hold a connection open on the journal (wait=).
func steersOnGET(r *http.Request) bool {
	q := r.URL.Query()
	return q.Has("scenario") || q.Has("wait")
}

// topLevelNavigation reports whether r is a link followed in a tab, whose
// answer the linking page does not see.
func topLevelNavigation(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) &&
		r.Header.Get("Sec-Fetch-Mode") == "navigate" && r.Header.Get("Sec-Fetch-Dest") == "document"
}

// refuseOrigin answers a page at origin that may not call kind.
func refuseOrigin(origin string, kind Kind) *wire.APIError {
	msg := "origin " + strconv.Quote(wire.Clip(origin)) + " may not call the API: only local dev origins (localhost, 127.0.0.1, [::1], any port), " +
		"the server's own page and --cors-origins may; start with --cors-origins " + wire.Clip(origin) + " to allow it, or --cors-origins '*' for any"
	switch {
	case kind != API && origin == "null":
		msg = `the opaque origin "null" (a sandboxed frame, a file, a redirect) may not call the admin API`
	case kind != API:
		msg = "origin " + strconv.Quote(wire.Clip(origin)) + " may not call the admin API: only local dev origins (localhost, 127.0.0.1, [::1], any port), " +
			"the server's own page and --cors-origins may (* is not enough); start with --cors-origins " + wire.Clip(origin) + " to allow it"
	}
	return &wire.APIError{Status: http.StatusForbidden, Code: wire.CodeForbidden, Field: "Origin", Message: msg}
}

// refuseSite answers a page of another site without Origin.
func refuseSite(kind Kind) *wire.APIError {
	what := "the API"
	if kind != API {
		what = "the admin API"
	}
	return &wire.APIError{Status: http.StatusForbidden, Code: wire.CodeForbidden, Field: "Sec-Fetch-Site",
		Message: "a page of another site may not call " + what + " without CORS (a no-cors fetch, an image, a form): " +
			"call it with fetch from an allowed origin (local dev origins, the server's own page, --cors-origins), or from a tool"}
}

// refuseReferer answers a request without Origin from a page at origin
// (its Referer's) that may not call kind.
func refuseReferer(origin string, kind Kind) *wire.APIError {
	what := "the API"
	if kind != API {
		what = "the admin API"
	}
	return &wire.APIError{Status: http.StatusForbidden, Code: wire.CodeForbidden, Field: "Referer",
		Message: "a page at " + strconv.Quote(wire.Clip(origin)) + " may not call " + what + ": only local dev origins (localhost, 127.0.0.1, [::1], any port), " +
			"the server's own page and --cors-origins may; start with --cors-origins " + wire.Clip(origin) + " to allow it"}
}

// refuseUnmarked answers an admin read with effects that may come from
// a page of another site.
func refuseUnmarked() *wire.APIError {
	return &wire.APIError{Status: http.StatusForbidden, Code: wire.CodeForbidden, Field: "Host",
		Message: "a read with scenario= or wait= to a name that is not this machine must carry an X-Mock-* header (X-Mock-Session, say) or the admin token: " +
			"a page of another site could send it otherwise (an image, a no-cors fetch); call 127.0.0.1 or localhost, or add the header"}
}
