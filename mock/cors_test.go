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
	r := do(t, h, http.MethodOptions, "/api/v1/feedbacks", "", "Origin", "http://a.test", "Access-Control-Request-Method", "GET", "X-Mock-Scenario", "down")
	if r.status != http.StatusNoContent {
		t.Errorf("preflight in the down scenario: %d", r.status)
	}
	r = get(t, h, "/api/v1/feedbacks", "Origin", "http://a.test", "X-Mock-Scenario", "down")
	if r.status != 503 || r.header.Get("Access-Control-Allow-Origin") != "http://a.test" {
		t.Errorf("503 without CORS headers: a browser could not read it (%d, %q)", r.status, r.header.Get("Access-Control-Allow-Origin"))
	}
}

func TestCORSActualRequests(t *testing.T) {
	h := newServer(t, mock.Options{})
	r := get(t, h, "/api/v1/feedbacks?limit=1", "Origin", "https://admin.example.test")
	if got := r.header.Get("Access-Control-Allow-Origin"); got != "https://admin.example.test" {
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

func TestCORSOriginList(t *testing.T) {
	h := newServer(t, mock.Options{CORSOrigins: []string{"https://app.example.test", "http://localhost:*"}})
	for origin, allowed := range map[string]bool{
		"https://app.example.test":   true,
		"http://localhost:3000":      true,
		"http://localhost:5173":      true,
		"https://evil.example.test":  false,
		"http://localhost.evil.test": false,
		"https://app.example.test.x": false,
	} {
		pre := do(t, h, http.MethodOptions, "/api/v1/settings/ai", "", "Origin", origin, "Access-Control-Request-Method", "PATCH")
		got := get(t, h, "/api/v1/settings/ai", "Origin", origin)
		if allowed {
			if pre.status != 204 || got.header.Get("Access-Control-Allow-Origin") != origin {
				t.Errorf("%s: preflight %d, Allow-Origin %q; want allowed", origin, pre.status, got.header.Get("Access-Control-Allow-Origin"))
			}
			continue
		}
		checkError(t, "preflight from "+origin, pre, http.StatusForbidden, "forbidden", "Origin")
		if pre.header.Get("Access-Control-Allow-Origin") != "" || got.header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("%s: CORS headers for a disallowed origin", origin)
		}
		if got.status != 200 {
			t.Errorf("%s: the request itself still answers (the browser hides it): %d", origin, got.status)
		}
	}
}

// arriving sends a request to h as if it arrived on the listener address
// local ("" for none), naming host in its Host header.
func arriving(t *testing.T, h http.Handler, local, host, method, target string, header ...string) response {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
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
		if read.header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("%s: a read's answer is readable by the page", tc.name)
		}
		if f := h.Faults(mock.AllSessions); len(f) != 0 {
			t.Errorf("%s: the refused write added faults: %+v", tc.name, f)
		}
	}
	// The server's own page, served as a listed host, may write.
	listed := newServer(t, mock.Options{AllowedHosts: []string{"demo.example.test"}})
	for _, origin := range []string{"http://demo.example.test:8080", "https://demo.example.test:8080"} {
		if r := arriving(t, listed, "10.0.0.7:8080", "demo.example.test:8080", http.MethodPost, "/__mock/reset", "Origin", origin); r.status != http.StatusOK {
			t.Errorf("the own page %s of a listed host: %d %s", origin, r.status, r.body)
		}
	}
	// The API stays open to any dev origin, and curl (no Origin) may write.
	h := newServer(t, mock.Options{})
	if r := arriving(t, h, "", "localhost:8080", http.MethodGet, "/api/v1/feedbacks?limit=1", "Origin", "https://evil.example.test"); r.header.Get("Access-Control-Allow-Origin") != "https://evil.example.test" {
		t.Errorf("the API refused a dev origin: %d %q", r.status, r.header.Get("Access-Control-Allow-Origin"))
	}
	r := do(t, h, http.MethodPost, "/__mock/faults", fault, "Content-Type", "application/json")
	if r.status != http.StatusCreated {
		t.Errorf("a write without Origin (curl): %d %s", r.status, r.body)
	}
}
