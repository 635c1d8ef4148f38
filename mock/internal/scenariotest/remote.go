package scenariotest

import (
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
)

// Remote is a Target over HTTP: a replymock, or a balancer in front of a
// fleet, at URL, on its own running clock. Every request it sends picks
// Scenario (X-Mock-Scenario) and a session of its own: Session for the
// default session, Session.NAME for a check's session NAME, so that
// each scenario's checks start from fresh sessions whatever else the
// server served.
type Remote struct {
	URL      string // the base URL, http://host:port
	Scenario string // sent as X-Mock-Scenario
	Session  string // the sessions' prefix
	// Balancer is set when a balancer stands in front of the server
	// (the nginx recipe): what the server drops, it answers (502).
	Balancer bool
	// Margin is how long after the client wrote a request Send's
	// received is called: the balancer's hop, with room for a loaded
	// machine.
	Margin time.Duration
	// Client sends Do's requests (http.DefaultClient when nil); Send
	// takes its timeout.
	Client *http.Client
}

// RealClock is true: a server in another process runs on its own clock.
func (r *Remote) RealClock() bool { return true }

// Balanced is r.Balancer.
func (r *Remote) Balanced() bool { return r.Balancer }

// steer sets the scenario, and the session r maps the check's to.
func (r *Remote) steer(h http.Header) {
	h.Set(mock.HeaderScenario, r.Scenario)
	sid := r.Session
	if s := h.Get(mock.HeaderSession); s != "" {
		sid += "." + s
	}
	h.Set(mock.HeaderSession, sid)
}

func (r *Remote) client() *http.Client {
	if r.Client != nil {
		return r.Client
	}
	return http.DefaultClient
}

// Do sends the request to r.URL+target.
func (r *Remote) Do(t testing.TB, method, target, body string, header ...string) Response {
	t.Helper()
	req, err := http.NewRequest(method, r.URL+target, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	r.steer(req.Header)
	resp, err := r.client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: the body: %v", method, target, err)
	}
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// Send sends req to r.URL on a connection of its own (Go's client
// sends a GET again when a connection it kept closes with no answer:
// a dropped request would be sent twice); received is called r.Margin
// after the request was written.
func (r *Remote) Send(t testing.TB, req *http.Request, received func()) (*http.Response, error) {
	t.Helper()
	base, err := url.Parse(r.URL)
	if err != nil {
		t.Fatal(err)
	}
	req.URL, req.Host = base.ResolveReference(req.URL), ""
	r.steer(req.Header)
	if received != nil {
		var once sync.Once
		trace := &httptrace.ClientTrace{WroteRequest: func(httptrace.WroteRequestInfo) {
			once.Do(func() { time.AfterFunc(r.Margin, received) })
		}}
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DisableKeepAlives = true
	t.Cleanup(tr.CloseIdleConnections)
	return (&http.Client{Transport: tr, Timeout: r.client().Timeout}).Do(req)
}
