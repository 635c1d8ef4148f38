package access

import (
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

func TestWindowAdmits(t *testing.T) {
	rl := &RateLimit{Requests: 2, Window: wire.Duration(10 * time.Second)}
	var w Window
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, tc := range []struct {
		at    time.Duration
		ok    bool
		retry time.Duration
	}{{0, true, 0}, {time.Second, true, 0}, {2 * time.Second, false, 8 * time.Second},
		{9500 * time.Millisecond, false, time.Second}, {10 * time.Second, true, 0}} {
		retry, ok := w.Admit(rl, t0.Add(tc.at))
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
	}{{"localhost:8080", true}, {"x.preview.test", true}, {"evil.example", false}} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Host = tc.host
		if g.HostAllowed(r) != tc.want {
			t.Errorf("HostAllowed(%s) = %v", tc.host, !tc.want)
		}
	}
	if !g.OriginAllowed("http://app.test:5173") || g.OriginAllowed("http://evil.example") {
		t.Error("OriginAllowed does not follow the list")
	}
	if !g.AdminOriginAllowed("http://localhost:3000", "") || g.AdminOriginAllowed("null", "") || g.AdminOriginAllowed("http://evil.example", "") {
		t.Error("AdminOriginAllowed: loopback origins only, never null or others")
	}
}
