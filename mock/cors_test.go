package mock_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/replymock/replymock/mock"
)

func TestCORSPreflight(t *testing.T) {
	h := newServer(t, mock.Options{})
	tests := []struct {
		path, method, headers, wantMethods string
	}{
		{"/api/v1/settings/ai", "PATCH", "content-type,authorization,x-mock-scenario,x-mock-session", "GET, HEAD, PATCH, OPTIONS"},
		{"/api/v1/settings/ai", "GET", "", "GET, HEAD, PATCH, OPTIONS"},
		{"/api/v1/feedbacks", "GET", "authorization,x-mock-session", "GET, HEAD, OPTIONS"},
		{"/api/v1/feedbacks", "GET", "x-mock-seed,x-mock-session,x-mock-scenario", "GET, HEAD, OPTIONS"},
		{"/__mock/faults", "POST", "content-type,x-mock-admin-token", "DELETE, GET, HEAD, POST, PUT, OPTIONS"},
		{"/__mock/scenario", "PUT", "content-type", "PUT, OPTIONS"},
		{"/__mock/reset", "POST", "", "POST, OPTIONS"},
	}
	for _, tc := range tests {
		hdr := []string{"Origin", "http://localhost:5173", "Access-Control-Request-Method", tc.method}
		if tc.headers != "" {
			hdr = append(hdr, "Access-Control-Request-Headers", tc.headers)
		}
		r := do(t, h, http.MethodOptions, tc.path, "", hdr...)
		what := "preflight " + tc.method + " " + tc.path
		if r.status != http.StatusNoContent {
			t.Errorf("%s: status %d, want 204", what, r.status)
		}
		for k, want := range map[string]string{
			"Access-Control-Allow-Origin":      "http://localhost:5173",
			"Access-Control-Allow-Credentials": "true",
			"Access-Control-Allow-Methods":     tc.wantMethods,
			"Access-Control-Allow-Headers":     tc.headers,
			"Access-Control-Max-Age":           "600",
		} {
			if got := r.header.Get(k); got != want {
				t.Errorf("%s: %s = %q, want %q", what, k, got, want)
			}
		}
		if !strings.Contains(strings.Join(r.header.Values("Vary"), ","), "Origin") {
			t.Errorf("%s: Vary %q lacks Origin", what, r.header.Values("Vary"))
		}
	}
	// A preflight is not an API request: the down scenario's fault does not
	// hit it, and the real answer then carries the CORS headers.
	r := do(t, h, http.MethodOptions, "/api/v1/feedbacks", "", "Origin", "http://127.0.0.1:3000", "Access-Control-Request-Method", "GET", "X-Mock-Scenario", "down")
	if r.status != http.StatusNoContent {
		t.Errorf("preflight in the down scenario: %d", r.status)
	}
	r = get(t, h, "/api/v1/feedbacks", "Origin", "http://127.0.0.1:3000", "X-Mock-Scenario", "down")
	if r.status != 503 || r.header.Get("Access-Control-Allow-Origin") != "http://127.0.0.1:3000" {
		t.Errorf("503 without CORS headers: a browser could not read it (%d, %q)", r.status, r.header.Get("Access-Control-Allow-Origin"))
	}
}

func TestCORSActualRequests(t *testing.T) {
	h := newServer(t, mock.Options{})
	r := get(t, h, "/api/v1/feedbacks?limit=1", "Origin", "https://app.localhost:5173")
	if got := r.header.Get("Access-Control-Allow-Origin"); got != "https://app.localhost:5173" {
		t.Errorf("Allow-Origin %q: want the origin echoed, never *", got)
	}
	exposed := r.header.Get("Access-Control-Expose-Headers")
	for _, want := range []string{"Retry-After", "X-Request-Id", "WWW-Authenticate", "X-Mock-Warning"} {
		if !strings.Contains(exposed, want) {
			t.Errorf("Expose-Headers %q lacks %s", exposed, want)
		}
	}
	if r.header.Get("X-Request-Id") == "" {
		t.Error("no X-Request-Id")
	}
	if r := get(t, h, "/api/v1/feedbacks?limit=1", "X-Request-Id", "client-42"); r.header.Get("X-Request-Id") != "client-42" {
		t.Errorf("the client's X-Request-Id was not kept: %q", r.header.Get("X-Request-Id"))
	}
	if e := h.Requests(mock.JournalFilter{Limit: 1}); len(e) != 1 || e[0].RequestID != "client-42" {
		t.Errorf("journal request id: %+v", e)
	}
	if r := get(t, h, "/api/v1/feedbacks?limit=1"); r.header.Get("Access-Control-Allow-Origin") != "" {
		t.Error("CORS headers without an Origin")
	}
}

// The API's browser origins: local dev origins and the server's own by
// default, others when listed, any with "*". A page at another origin
// is refused before its request runs: preflight, GET and PATCH alike.
func TestCORSOriginList(t *testing.T) {
	def := newServer(t, mock.Options{})
	listed := newServer(t, mock.Options{CORSOrigins: []string{"https://app.example.test", "http://*.dev.test:*"}})
	any := newServer(t, mock.Options{CORSOrigins: []string{"*"}})
	tests := []struct {
		name   string
		h      *mock.Server
		origin string
		want   bool
	}{
		{"localhost, a dev server's port", def, "http://localhost:5173", true},
		{"localhost over https", def, "https://localhost:3000", true},
		{"localhost without a port", def, "http://localhost", true},
		{"a .localhost name", def, "http://app.localhost:8080", true},
		{"127.0.0.1", def, "http://127.0.0.1:4200", true},
		{"IPv6 loopback", def, "http://[::1]:5173", true},
		{"the server's own page", def, "http://localhost:8080", true},
		{"a web page the developer visits", def, "https://evil.example.test", false},
		{"a look-alike of localhost", def, "http://localhost.evil.test", false},
		{"a look-alike with a port", def, "http://localhost.evil.test:5173", false},
		{"a LAN page", def, "http://192.168.1.5:5173", false},
		{"the opaque origin", def, "null", false},
		{"not a web origin", def, "file:///home/dev/x.html", false},
		{"an origin with a path", def, "http://localhost:5173/x", false},
		{"listed", listed, "https://app.example.test", true},
		{"listed pattern", listed, "http://pr-7.dev.test:5173", true},
		{"local still, when listed", listed, "http://localhost:3000", true},
		{"not listed", listed, "https://evil.example.test", false},
		{"a listed name, one longer", listed, "https://app.example.test.x", false},
		{"any, asked for", any, "https://evil.example.test", true},
		{"null, with any", any, "null", true},
	}
	for _, tc := range tests {
		before := get(t, tc.h, "/api/v1/settings/ai").body
		pre := arriving(t, tc.h, "127.0.0.1:8080", "localhost:8080", http.MethodOptions, "/api/v1/settings/ai", "Origin", tc.origin, "Access-Control-Request-Method", "PATCH")
		read := arriving(t, tc.h, "127.0.0.1:8080", "localhost:8080", http.MethodGet, "/api/v1/settings/ai", "Origin", tc.origin)
		write := sending(t, tc.h, "127.0.0.1:8080", "localhost:8080", http.MethodPatch, "/api/v1/settings/ai", `{"question":{"tone":"steered"}}`,
			"Origin", tc.origin, "Content-Type", "application/json")
		if tc.want {
			if pre.status != 204 || read.status != 200 || read.header.Get("Access-Control-Allow-Origin") != tc.origin || write.status != 200 {
				t.Errorf("%s (%s): preflight %d, GET %d with Allow-Origin %q, PATCH %d; want allowed", tc.name, tc.origin, pre.status, read.status, read.header.Get("Access-Control-Allow-Origin"), write.status)
			}
			if n := len(tc.h.Requests(mock.JournalFilter{Header: map[string]string{"Origin": tc.origin}})); n < 2 {
				t.Errorf("%s: %d requests in the journal, want the GET and the PATCH", tc.name, n)
			}
			continue
		}
		for what, r := range map[string]response{"preflight": pre, "GET": read, "PATCH": write} {
			checkError(t, tc.name+" ("+tc.origin+"): "+what, r, http.StatusForbidden, "forbidden", "Origin")
			if r.header.Get("Access-Control-Allow-Origin") != "" {
				t.Errorf("%s: %s: CORS headers for a refused origin", tc.name, what)
			}
			if !strings.Contains(string(r.body), "--cors-origins") {
				t.Errorf("%s: %s: the refusal does not say how to allow the origin: %s", tc.name, what, r.body)
			}
		}
		if after := get(t, tc.h, "/api/v1/settings/ai").body; string(after) != string(before) {
			t.Errorf("%s: the refused PATCH changed the settings", tc.name)
		}
		if n := len(tc.h.Requests(mock.JournalFilter{Header: map[string]string{"Origin": tc.origin}})); n != 0 {
			t.Errorf("%s: %d refused requests reached the journal", tc.name, n)
		}
	}
	// The server's own page, on a name or address it serves (a container's,
	// a compose service's, a listed one), calls it same-origin.
	own := newServer(t, mock.Options{AllowedHosts: []string{"demo.example.test"}})
	for _, host := range []string{"replymock:8080", "172.17.0.2:8080", "demo.example.test"} {
		for _, scheme := range []string{"http://", "https://"} {
			if r := arriving(t, own, "172.17.0.2:8080", host, http.MethodGet, "/api/v1/feedbacks?limit=1", "Origin", scheme+host); r.status != 200 || r.header.Get("Access-Control-Allow-Origin") != scheme+host {
				t.Errorf("the own page %s: %d %q, want allowed", scheme+host, r.status, r.header.Get("Access-Control-Allow-Origin"))
			}
		}
	}
	// Another port of the same name is another origin.
	r := arriving(t, own, "172.17.0.2:8080", "replymock:8080", http.MethodGet, "/api/v1/feedbacks?limit=1", "Origin", "http://replymock:9090")
	checkError(t, "another port of the server's name", r, http.StatusForbidden, "forbidden", "Origin")
}

// arriving sends a request to h as if it arrived on the listener address
// local ("" for none), naming host in its Host header.
func arriving(t *testing.T, h http.Handler, local, host, method, target string, header ...string) response {
	t.Helper()
	return sending(t, h, local, host, method, target, "", header...)
}

// sending is arriving with a body.
func sending(t *testing.T, h http.Handler, local, host, method, target, body string, header ...string) response {
	t.Helper()
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	req.Host = host
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	if local != "" {
		addr, err := net.ResolveTCPAddr("tcp", local)
		if err != nil {
			t.Fatal(err)
		}
		req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, addr))
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	checkContract(t, req, rec.Code, rec.Header(), rec.Body.Bytes())
	return response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

// The Host check holds whatever address a request arrived on: over
// loopback or on a container's address. A request that came over no
// connection (a Go test's recorder) is answered whatever its Host.
func TestHostCheck(t *testing.T) {
	open := newServer(t, mock.Options{})
	narrowed := newServer(t, mock.Options{AllowedHosts: []string{"demo.example.test", "*.preview.test"}})
	tests := []struct {
		name string
		h    *mock.Server
		host string
		want bool
	}{
		{"loopback by name", open, "localhost:8080", true},
		{"loopback by address", open, "127.0.0.1:8080", true},
		{"other loopback address", open, "127.1.2.3:8080", true},
		{"IPv6 loopback", open, "[::1]:8080", true},
		{"a .localhost name", open, "app.localhost:8080", true},
		{"upper case", open, "LOCALHOST:8080", true},
		{"no port", open, "localhost", true},
		{"a dev proxy keeping its Host", open, "localhost:5173", true},
		{"a container's address", open, "172.17.0.2:8080", true},
		{"a LAN address", open, "192.168.1.5:8080", true},
		{"a compose service name", open, "replymock:8080", true},
		{"a Kubernetes service name", open, "mock-api", true},
		{"DNS rebinding", open, "evil.example.test:8080", false},
		{"DNS rebinding without a port", open, "evil.example.test", false},
		{"a name that only starts like localhost", open, "localhost.evil.test:8080", false},
		{"a cluster's long name, unlisted", open, "mock-api.default.svc.cluster.local", false},
		{"listed", narrowed, "demo.example.test", true},
		{"listed pattern", narrowed, "pr-7.preview.test:443", true},
		{"not listed", narrowed, "other.example.test", false},
		{"loopback still, when narrowed", narrowed, "127.0.0.1:8080", true},
		{"a service name still, when narrowed", narrowed, "replymock:8080", true},
	}
	for _, tc := range tests {
		for _, local := range []string{"127.0.0.1:8080", "[::1]:8080", "172.17.0.2:8080", "10.0.0.7:8080"} {
			for _, path := range []string{"/api/v1/feedbacks?limit=1", "/__mock/health", "/__mock/faults"} {
				r := arriving(t, tc.h, local, tc.host, http.MethodGet, path)
				what := tc.name + " (arrived on " + local + "): " + path
				if tc.want {
					if r.status != http.StatusOK {
						t.Errorf("%s: %d, want 200: %s", what, r.status, r.body)
					}
					continue
				}
				checkError(t, what, r, http.StatusForbidden, "forbidden", "Host")
				if !strings.Contains(string(r.body), "--allowed-hosts "+strings.TrimSuffix(tc.host, ":8080")) {
					t.Errorf("%s: the message does not say how to serve the name: %s", what, r.body)
				}
			}
		}
	}
	if r := arriving(t, open, "", "evil.example.test", http.MethodGet, "/api/v1/feedbacks?limit=1"); r.status != http.StatusOK {
		t.Errorf("a request over no connection (a Go test's recorder): %d, want 200", r.status)
	}
	// A refused host changes nothing: its admin write is not applied.
	r := arriving(t, open, "172.17.0.2:8080", "evil.example.test", http.MethodPost, "/__mock/faults", "Content-Type", "application/json")
	checkError(t, "a fault from a rebound page", r, http.StatusForbidden, "forbidden", "Host")
	if f := open.Faults(mock.AllSessions); len(f) != 0 {
		t.Errorf("the refused write added faults: %+v", f)
	}
}

// containerListener is a listener whose connections report the local
// address a container's do (172.17.0.2:8080), though they come over
// loopback.
type containerListener struct{ net.Listener }

func (l containerListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return containerConn{c}, nil
}

type containerConn struct{ net.Conn }

func (containerConn) LocalAddr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4(172, 17, 0, 2), Port: 8080}
}

// A server whose listener is not loopback, as in a container published
// with -p 8080:8080, refuses a rebound name as one on a laptop does.
func TestHostCheckInAContainer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := newServer(t, mock.Options{})
	var seen atomic.Value
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Store(r.Context().Value(http.LocalAddrContextKey).(net.Addr).String())
		s.ServeHTTP(w, r)
	})}
	go hs.Serve(containerListener{ln})
	defer hs.Close()
	for _, tc := range []struct {
		host   string
		status int
	}{
		{"evil.example.test:8080", http.StatusForbidden},
		{"rebind.example.test", http.StatusForbidden},
		{"localhost:8080", http.StatusOK},
		{"172.17.0.2:8080", http.StatusOK},
		{"replymock:8080", http.StatusOK},
	} {
		for _, path := range []string{"/__mock/requests", "/__mock/snapshot", "/api/v1/feedbacks?limit=1"} {
			req, err := http.NewRequest(http.MethodGet, "http://"+ln.Addr().String()+path, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Host = tc.host
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Errorf("Host %s, GET %s on a container's listener: %d, want %d", tc.host, path, resp.StatusCode, tc.status)
			}
		}
	}
	if got := seen.Load(); got != "172.17.0.2:8080" {
		t.Errorf("the requests arrived on %v, not the container's address: the test proves nothing", got)
	}
}

func TestAdminOrigins(t *testing.T) {
	fault := `{"error":{"status":500}}`
	tests := []struct {
		name, origin, host string
		cors               []string
		want               bool
	}{
		{"a page same-origin with an unlisted Host (DNS rebinding, a container)", "http://evil.example.test:8080", "evil.example.test:8080", nil, false},
		{"a loopback dev server", "http://localhost:5173", "localhost:8080", nil, true},
		{"a loopback address", "http://127.0.0.1:3000", "localhost:8080", nil, true},
		{"IPv6 loopback", "http://[::1]:3000", "localhost:8080", nil, true},
		{"a web page the developer visits", "https://evil.example.test", "localhost:8080", nil, false},
		{"the opaque origin", "null", "localhost:8080", nil, false},
		{"null, even when * is listed", "null", "localhost:8080", []string{"*"}, false},
		{"* is not enough for the admin API", "https://evil.example.test", "localhost:8080", []string{"*"}, false},
		{"a listed origin", "https://panel.example.test", "localhost:8080", []string{"https://panel.example.test"}, true},
		{"a listed pattern", "https://pr-3.example.test", "localhost:8080", []string{"https://*.example.test"}, true},
		{"a look-alike of localhost", "http://localhost.evil.test", "localhost:8080", nil, false},
		{"a look-alike of the host", "http://demo.example.test.evil.test", "demo.example.test", nil, false},
		{"not a web origin", "file:///home/dev/x.html", "localhost:8080", nil, false},
	}
	for _, tc := range tests {
		h := newServer(t, mock.Options{CORSOrigins: tc.cors})
		// A cross-site form POST or no-cors fetch needs no preflight.
		w := arriving(t, h, "", tc.host, http.MethodPost, "/__mock/faults", "Origin", tc.origin)
		pre := arriving(t, h, "", tc.host, http.MethodOptions, "/__mock/faults", "Origin", tc.origin, "Access-Control-Request-Method", "POST")
		read := arriving(t, h, "", tc.host, http.MethodGet, "/__mock/requests", "Origin", tc.origin)
		if tc.want {
			if w.status == http.StatusForbidden || pre.status != http.StatusNoContent || read.header.Get("Access-Control-Allow-Origin") != tc.origin {
				t.Errorf("%s: write %d, preflight %d, read's Allow-Origin %q; want allowed", tc.name, w.status, pre.status, read.header.Get("Access-Control-Allow-Origin"))
			}
			continue
		}
		checkError(t, tc.name+": write", w, http.StatusForbidden, "forbidden", "Origin")
		checkError(t, tc.name+": preflight", pre, http.StatusForbidden, "forbidden", "Origin")
		// A GET has effects too: it is refused before it runs, as a write is.
		checkError(t, tc.name+": read", read, http.StatusForbidden, "forbidden", "Origin")
		if read.header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("%s: a read's answer is readable by the page", tc.name)
		}
		if f := h.Faults(mock.AllSessions); len(f) != 0 {
			t.Errorf("%s: the refused write added faults: %+v", tc.name, f)
		}
		// A long poll from the page holds no waiter: refused at once, not
		// after its 30 seconds.
		poll := arriving(t, h, "", tc.host, http.MethodGet, "/__mock/verify?path=/never&wait=30s", "Origin", tc.origin)
		checkError(t, tc.name+": a long poll", poll, http.StatusForbidden, "forbidden", "Origin")
	}
	// The server's own page, served as a listed host, may write.
	listed := newServer(t, mock.Options{AllowedHosts: []string{"demo.example.test"}})
	for _, origin := range []string{"http://demo.example.test:8080", "https://demo.example.test:8080"} {
		if r := arriving(t, listed, "10.0.0.7:8080", "demo.example.test:8080", http.MethodPost, "/__mock/reset", "Origin", origin); r.status != http.StatusOK {
			t.Errorf("the own page %s of a listed host: %d %s", origin, r.status, r.body)
		}
	}
	// The server's own page on a container's address or a compose name may
	// write too: those Hosts are served.
	h := newServer(t, mock.Options{})
	for _, host := range []string{"172.17.0.2:8080", "replymock:8080"} {
		if r := arriving(t, h, "172.17.0.2:8080", host, http.MethodPost, "/__mock/reset", "Origin", "http://"+host); r.status != http.StatusOK {
			t.Errorf("the own page http://%s: %d %s", host, r.status, r.body)
		}
	}
	// Curl (no Origin) may write.
	r := do(t, h, http.MethodPost, "/__mock/faults", fault, "Content-Type", "application/json")
	if r.status != http.StatusCreated {
		t.Errorf("a write without Origin (curl): %d %s", r.status, r.body)
	}
}

// A browser sends no Origin with a GET that is not CORS (a no-cors fetch,
// an <img>, a link): its Sec-Fetch-Site says whether a page of another
// site sent it, which may not steer the mock. Tools send neither.
func TestBrowserRequestsWithoutOrigin(t *testing.T) {
	h := newServer(t, mock.Options{AllowedHosts: []string{"demo.example.test"}})
	const (
		requests = "/__mock/requests?limit=1"
		panel    = "/__mock/"
		api      = "/api/v1/feedbacks?limit=1"
		photo    = "/__mock/media/photos/Ij2V5jHW3HW1YCswao90/1/ms.jpg"
	)
	noCors := []string{"Sec-Fetch-Mode", "no-cors", "Sec-Fetch-Dest", "image"}
	link := []string{"Sec-Fetch-Mode", "navigate", "Sec-Fetch-Dest", "document"}
	frame := []string{"Sec-Fetch-Mode", "navigate", "Sec-Fetch-Dest", "iframe"}
	tests := []struct {
		name, path, host, site string
		more                   []string
		want                   bool
	}{
		{"an <img> of another site on the admin API", requests, "localhost:8080", "cross-site", noCors, false},
		{"a link of another site to the admin API", requests, "localhost:8080", "cross-site", link, false},
		{"an <img> of another site on the API", api, "localhost:8080", "cross-site", noCors, false},
		{"a frame of another site on the API", api, "localhost:8080", "cross-site", frame, false},
		{"a link of another site to the API", api, "localhost:8080", "cross-site", link, true},
		{"a link of another site to the panel", panel, "localhost:8080", "cross-site", link, true},
		{"an <img> of another site on the panel", panel, "localhost:8080", "cross-site", noCors, false},
		{"an <img> of another site showing a photo", photo, "localhost:8080", "cross-site", noCors, true},
		{"a page of this machine (same-site with localhost)", requests, "localhost:8080", "same-site", noCors, true},
		{"a page of this machine (same-site with 127.0.0.1)", requests, "127.0.0.1:8080", "same-site", noCors, true},
		{"a sibling site of a listed name", requests, "demo.example.test", "same-site", noCors, false},
		{"the panel's own fetch", requests, "demo.example.test", "same-origin", []string{"Sec-Fetch-Mode", "cors"}, true},
		{"typed in the address bar", requests, "localhost:8080", "none", link, true},
		{"a tool (no Sec-Fetch-Site)", requests, "localhost:8080", "", nil, true},
	}
	for _, tc := range tests {
		hdr := tc.more
		if tc.site != "" {
			hdr = append([]string{"Sec-Fetch-Site", tc.site}, hdr...)
		}
		r := arriving(t, h, "127.0.0.1:8080", tc.host, http.MethodGet, tc.path, hdr...)
		if tc.want {
			if r.status != http.StatusOK {
				t.Errorf("%s: GET %s: %d, want 200: %s", tc.name, tc.path, r.status, r.body)
			}
			continue
		}
		checkError(t, tc.name+": GET "+tc.path, r, http.StatusForbidden, "forbidden", "Sec-Fetch-Site")
	}
	// A refused long poll holds no waiter, and a refused API request
	// reaches no session nor the journal.
	poll := arriving(t, h, "127.0.0.1:8080", "localhost:8080", http.MethodGet, "/__mock/requests?path=/never&wait=30s", append([]string{"Sec-Fetch-Site", "cross-site"}, noCors...)...)
	checkError(t, "a long poll from an <img>", poll, http.StatusForbidden, "forbidden", "Sec-Fetch-Site")
	h.ClearRequests(mock.AllSessions)
	arriving(t, h, "127.0.0.1:8080", "localhost:8080", http.MethodGet, api, append([]string{"Sec-Fetch-Site", "cross-site"}, noCors...)...)
	if n := len(h.Requests(mock.JournalFilter{})); n != 0 {
		t.Errorf("a refused API request reached the journal (%d entries)", n)
	}
}
