// Package proxy passes the requests replymock does not fake to the real
// service. The target is a scenario's proxy key, or Options.Proxy.
package proxy

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/replymock/replymock/mock/internal/fault"
	"github.com/replymock/replymock/mock/internal/wire"
)

// Spec sends API requests replymock does not fake, and the listed ones,
// to the real service (scenario key proxy, or Options.Proxy).
type Spec struct {
	URL string `yaml:"url" json:"url"` // the upstream's base, before the request's path and query
	// Paths are globs after /api/v1, as fault paths (/x/** for /x and
	// below), that go upstream although replymock fakes them.
	Paths []string `yaml:"paths" json:"paths,omitempty"`
}

// HeaderProxied marks an answer that came from the real service, not
// from replymock's fake.
const HeaderProxied = "X-Mock-Proxied"

// DefaultTimeout bounds how long a proxied request waits for the
// upstream's answer to start; past it, 504.
const DefaultTimeout = 30 * time.Second

// ParseURL checks an upstream's base URL.
func ParseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return nil, fmt.Errorf("not a URL: %v", err)
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		return nil, fmt.Errorf("must be an absolute http or https URL, got %q", raw)
	case u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return nil, fmt.Errorf("must have no query, fragment or user, got %q", raw)
	}
	return u, nil
}

// Problems lists what is wrong with ps.
func (ps *Spec) Problems() []wire.FieldProblem {
	var probs []wire.FieldProblem
	if _, err := ParseURL(ps.URL); err != nil {
		probs = append(probs, wire.FieldProblem{Field: "url", Msg: err.Error()})
	}
	for i, p := range ps.Paths {
		if !strings.HasPrefix(p, "/") {
			probs = append(probs, wire.FieldProblem{Field: fmt.Sprintf("paths[%d]", i), Msg: fmt.Sprintf("must start with / (it is relative to /api/v1), got %q", p)})
		} else if _, err := path.Match(p, "/"); err != nil {
			probs = append(probs, wire.FieldProblem{Field: fmt.Sprintf("paths[%d]", i), Msg: fmt.Sprintf("bad glob %q: %v", p, err)})
		}
	}
	return probs
}

// Pool forwards API requests to the upstreams, with a reverse proxy per
// base URL, made on first use.
type Pool struct {
	def     *Spec         // Options.Proxy as a spec; nil: none
	timeout time.Duration // how long an upstream's answer may take to start
	token   string        // the admin token, never sent upstream; "" for none
	log     *slog.Logger
	proxies sync.Map // upstream base URL -> *httputil.ReverseProxy
}

// NewPool returns the pool of a server whose upstream is base ("" for
// none). It never sends adminToken upstream.
func NewPool(base string, timeout time.Duration, adminToken string, log *slog.Logger) *Pool {
	p := &Pool{timeout: timeout, token: adminToken, log: log}
	if base != "" {
		p.def = &Spec{URL: base}
	}
	return p
}

// Spec is where a scenario's requests go that replymock does not fake:
// its own proxy, else the server's, else nil.
func (p *Pool) Spec(own *Spec) *Spec {
	if own != nil {
		return own
	}
	return p.def
}

// Forward sends r to the upstream at base (a checked URL) and its answer
// back.
func (p *Pool) Forward(w http.ResponseWriter, r *http.Request, base string) {
	rp, ok := p.proxies.Load(base)
	if !ok {
		rp, _ = p.proxies.LoadOrStore(base, newProxy(base, p.timeout, p.token, p.log))
	}
	rp.(*httputil.ReverseProxy).ServeHTTP(w, r)
}

// newProxy makes the proxy to the upstream at base, a checked URL.
func newProxy(base string, timeout time.Duration, token string, log *slog.Logger) *httputil.ReverseProxy {
	target, _ := ParseURL(base)
	transport := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
		ResponseHeaderTimeout: timeout,
		TLSHandshakeTimeout:   10 * time.Second,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       30 * time.Second,
		// The body goes as the upstream sent it: decompressed here, a
		// small gzip answer could reach the client gigabytes long.
		DisableCompression: true,
	}
	return &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.URL.RawQuery = pr.In.URL.RawQuery // as sent, not joined with the base's
			// The mock's own headers stay here, its admin token above all.
			for name := range pr.Out.Header {
				if strings.HasPrefix(http.CanonicalHeaderKey(name), "X-Mock-") {
					pr.Out.Header.Del(name)
				}
			}
			dropToken(pr.Out.Header, token)
			// The mock read the body already, and takes over no connection.
			for _, name := range []string{"Expect", "Upgrade", "Connection"} {
				pr.Out.Header.Del(name)
			}
			pr.SetXForwarded()
		},
		Transport: transport,
		ModifyResponse: func(resp *http.Response) error {
			// The mock's own CORS and request id stand.
			for name := range resp.Header {
				if strings.HasPrefix(name, "Access-Control-") || name == "X-Request-Id" {
					resp.Header.Del(name)
				}
			}
			resp.Header.Set(HeaderProxied, "1")
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			var ne net.Error
			if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() {
				wire.WriteError(w, r, log, &wire.APIError{Status: http.StatusGatewayTimeout, Code: wire.CodeGatewayTimeout,
					Message: fmt.Sprintf("the upstream %s did not answer within %s", target.Host, timeout)})
				return
			}
			wire.WriteError(w, r, log, &wire.APIError{Status: http.StatusBadGateway, Code: wire.CodeBadGateway,
				Message: fmt.Sprintf("the upstream %s failed: %s", target.Host, upstreamError(err))})
		},
	}
}

// dropToken removes from h the Authorization values that carry the
// admin token (Bearer TOKEN, or TOKEN alone).
func dropToken(h http.Header, token string) {
	if token == "" {
		return
	}
	for name, vs := range h {
		if !strings.EqualFold(name, "Authorization") {
			continue
		}
		kept := slices.DeleteFunc(slices.Clone(vs), func(v string) bool {
			v = strings.TrimSpace(v)
			if scheme, rest, ok := strings.Cut(v, " "); ok && strings.EqualFold(scheme, "Bearer") {
				v = strings.TrimSpace(rest)
			}
			return subtle.ConstantTimeCompare([]byte(v), []byte(token)) == 1
		})
		if len(kept) == 0 {
			delete(h, name)
		} else {
			h[name] = kept
		}
	}
}

// CheckPath refuses, as a 400, a request whose path could lead out of
// prefix at the upstream. Servers decode and clean paths each their own
// way, so only a path plainly under prefix however it is read goes.
func CheckPath(r *http.Request, prefix string) *wire.APIError {
	p, raw := r.URL.Path, r.URL.EscapedPath()
	lp, lraw := strings.ToLower(p), strings.ToLower(raw)
	bad := ""
	switch {
	case p != prefix && !strings.HasPrefix(p, prefix+"/"):
		bad = "it is not under " + prefix
	case strings.Contains(p, "\\") || strings.Contains(lraw, "%5c"):
		bad = "it holds a backslash"
	case strings.Contains(lraw, "%2f"):
		bad = "it holds an encoded slash"
	case strings.Contains(lp, "%2e") || strings.Contains(lp, "%2f") || strings.Contains(lp, "%5c"):
		bad = "it holds a dot, slash or backslash encoded twice"
	case !utf8.ValidString(p):
		bad = "it holds bytes that are not UTF-8, which some servers read as a dot or slash (%c0%ae)"
	default:
		for seg := range strings.SplitSeq(p, "/") {
			if seg, _, _ = strings.Cut(seg, ";"); seg == "." || seg == ".." {
				bad = "it holds the segment " + seg
				break
			}
		}
	}
	if bad == "" {
		return nil
	}
	return wire.InvalidParameter("path", "%q is not sent to the real service, which could read it as leading out of %s: %s", wire.Clip(raw), prefix, bad)
}

// upstreamError says what went wrong reaching the upstream, without the
// request's URL, which may hold what the client sent.
func upstreamError(err error) string {
	var oe *net.OpError
	if errors.As(err, &oe) {
		return oe.Op + ": " + oe.Err.Error()
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

// Takes reports whether a request to apiPath (after /api/v1) goes
// upstream; faked says whether replymock has an operation for it.
func (ps *Spec) Takes(apiPath string, faked bool) bool {
	if !faked {
		return true
	}
	for _, glob := range ps.Paths {
		if fault.MatchPath(glob, apiPath) {
			return true
		}
	}
	return false
}
