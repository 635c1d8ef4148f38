package access

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/replymock/replymock/mock/internal/wire"
)

func TestBearerAndAllows(t *testing.T) {
	a := Auth{Type: "bearer", Tokens: []string{"t1", "t2"}}
	for header, want := range map[string]bool{
		"Bearer t1": true, "bearer t2": true, "BEARER   t1": true, "Bearer t3": false,
		"Bearer": false, "Bearer ": false, "Basic t1": false, "": false, "t1": false,
	} {
		if got := a.Allows(header); got != want {
			t.Errorf("Allows(%q) = %v, want %v", header, got, want)
		}
	}
	if !(Auth{}).Allows("") || !(Auth{Type: "none"}).Allows("Bearer x") {
		t.Error("auth none refused a request")
	}
}

func TestWindowCountsRequests(t *testing.T) {
	rl := &RateLimit{Requests: 2, Window: wire.Duration(10 * time.Second)}
	var w Window
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, tc := range []struct {
		at    time.Duration
		ok    bool
		retry time.Duration
	}{{0, true, 0}, {time.Second, true, 0}, {2 * time.Second, false, 8 * time.Second},
		{9500 * time.Millisecond, false, time.Second}, {10 * time.Second, true, 0}} {
		retry, ok := w.CountRequest(rl, t0.Add(tc.at))
		if ok != tc.ok || retry != tc.retry {
			t.Errorf("request %d at +%s: ok %v, retry in %s; want %v, %s", i, tc.at, ok, retry, tc.ok, tc.retry)
		}
	}
}

func TestOverridesLayer(t *testing.T) {
	yes, no := true, false
	scenarioAuth, scenarioRate := Auth{Type: "bearer", Tokens: []string{"s"}}, &RateLimit{Requests: 5}
	shared := Overrides{Strict: &yes, RateLimit: &RateLimit{Requests: 1}}
	own := Overrides{Strict: &no, Auth: &Auth{Type: "none"}}
	o := own.Over(shared)
	if auth, rl := o.Access(scenarioAuth, scenarioRate); auth.Type != "none" || rl.Requests != 1 {
		t.Errorf("Access = %v, %v: want the session's auth and the shared rate limit", auth, rl)
	}
	if o.Strictness(&yes, true) {
		t.Error("the session's strict: false lost to the scenario's")
	}
	if !(Overrides{}).Strictness(&yes, false) || (Overrides{}).Strictness(nil, false) {
		t.Error("without overrides, strictness is not the scenario's, else the default")
	}
	if err := (Overrides{Auth: &Auth{}}).Validate(); err == nil {
		t.Error("an override's auth without a type was taken")
	}
}

// Each Host the server answers to unasked, and each it refuses: a name
// someone outside could point at it (DNS rebinding).
func TestHostServed(t *testing.T) {
	g := NewGuard(nil, nil)
	listed := NewGuard(nil, []string{"Demo.Example.Test", "*.preview.test"})
	for _, tc := range []struct {
		g    *Guard
		host string
		want bool
	}{
		{g, "localhost", true},
		{g, "localhost:8080", true},
		{g, "LOCALHOST.:8080", true},
		{g, "app.localhost:5173", true},
		{g, "127.0.0.1:8080", true},
		{g, "127.1.2.3", true},
		{g, "[::1]:8080", true},
		{g, "[::1]", true},
		{g, "172.17.0.2:8080", true},     // a container's address: an IP is never a rebound name
		{g, "192.168.1.5", true},         // the LAN
		{g, "[2001:db8::7]:8080", true},  // IPv6
		{g, "replymock:8080", true},      // a compose service
		{g, "mock-api", true},            // a Kubernetes service in the same namespace
		{g, "myproject_mock_1:80", true}, // a compose container name
		{g, "replymock.:8080", true},     // the same, fully qualified
		{g, "evil.example.test", false},
		{g, "evil.example.test:8080", false},
		{g, "localhost.evil.test", false},
		{g, "127.0.0.1.evil.test", false},
		{g, "mock-api.default.svc.cluster.local", false},
		{g, "host.docker.internal:8080", false},
		{g, "bad name:80", false},
		{g, "demo.example.test", false},
		{listed, "demo.example.test:443", true},
		{listed, "DEMO.example.test.", true},
		{listed, "pr-7.preview.test", true},
		{listed, "preview.test", false},
		{listed, "other.example.test", false},
		{listed, "localhost:8080", true},
		{listed, "replymock", true},
		{NewGuard(nil, []string{"*"}), "anything.example.test", true},
	} {
		if got := tc.g.HostServed(tc.host); got != tc.want {
			t.Errorf("HostServed(%q) with --allowed-hosts %v = %v, want %v", tc.host, tc.g.hosts, got, tc.want)
		}
	}
}

func TestHostsAndOrigins(t *testing.T) {
	for host, want := range map[string]bool{"localhost": true, "LOCALHOST.": true, "a.localhost": true,
		"127.0.0.2": true, "[::1]": true, "::ffff:127.0.0.1": true, "localhost.example": false, "10.0.0.1": false} {
		if LoopbackHost(host) != want {
			t.Errorf("LoopbackHost(%q) = %v", host, !want)
		}
	}
	g := NewGuard([]string{"http://app.test:*"}, []string{"*.preview.test"})
	for _, tc := range []struct {
		host string
		want bool
	}{{"localhost:8080", true}, {"x.preview.test", true}, {"evil.example", false}, {"", true}} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Host = tc.host
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.IPv4(172, 17, 0, 2), Port: 8080}))
		if g.HostAllowed(r) != tc.want {
			t.Errorf("HostAllowed(%s) = %v", tc.host, !tc.want)
		}
	}
	if !g.mayCall("http://app.test:5173", "localhost:8080", API) || g.mayCall("http://evil.example", "localhost:8080", API) {
		t.Error("mayCall(API) does not follow the list")
	}
	if !g.mayCall("http://localhost:3000", "", Admin) || g.mayCall("null", "", Admin) || g.mayCall("http://evil.example", "", Admin) {
		t.Error("mayCall(Admin): loopback origins only, never null or others")
	}
}

// The API's origins by default: local dev origins (as Vite's server.cors
// since CVE-2025-24010) and the server's own page, not any web page.
func TestDefaultOrigins(t *testing.T) {
	g := NewGuard(nil, nil)
	for _, tc := range []struct {
		origin, host string
		want         bool
	}{
		{"http://localhost:5173", "localhost:8080", true},
		{"https://localhost", "localhost:8080", true},
		{"http://vite.localhost:5173", "localhost:8080", true},
		{"http://127.0.0.1:3000", "localhost:8080", true},
		{"http://[::1]:4200", "localhost:8080", true},
		{"http://replymock:8080", "replymock:8080", true},        // the own page of a compose service
		{"http://172.17.0.2:8080", "172.17.0.2:8080", true},      // the own page of a container
		{"http://evil.example:8080", "evil.example:8080", false}, // same-origin with a rebound name
		{"https://evil.example", "localhost:8080", false},
		{"http://localhost.evil.example", "localhost:8080", false},
		{"http://192.168.1.5:5173", "localhost:8080", false},
		{"null", "localhost:8080", false},
		{"http://localhost:5173/path", "localhost:8080", false},
		{"ws://localhost:5173", "localhost:8080", false},
	} {
		if got := g.mayCall(tc.origin, tc.host, API); got != tc.want {
			t.Errorf("mayCall(%q, Host %q, API) = %v, want %v", tc.origin, tc.host, got, tc.want)
		}
		if got := g.mayCall(tc.origin, tc.host, Admin); got != tc.want {
			t.Errorf("mayCall(%q, Host %q, Admin) = %v, want %v", tc.origin, tc.host, got, tc.want)
		}
	}
	star := NewGuard([]string{"*"}, nil)
	if !star.mayCall("https://evil.example", "localhost:8080", API) || star.mayCall("https://evil.example", "localhost:8080", Admin) {
		t.Error(`"*" opens the API only, never the admin API`)
	}
}
