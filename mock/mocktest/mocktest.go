// Package mocktest runs replymock in-process for Go tests of code that
// calls the auto-reply API, in the spirit of net/http/httptest: each test
// gets its own server on loopback, closed when the test ends.
//
//	srv := mocktest.New(t, mocktest.WithScenario("flaky"))
//	client := myapi.NewClient(srv.APIURL())
//	srv.FailNext(t, 2, "GET", "/feedbacks", 503)
//	... exercise the client ...
//	reqs := srv.Requests(mock.JournalFilter{Path: "/api/v1/feedbacks"})
package mocktest

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/replymock/replymock/mock"
)

// Server is a replymock server listening on loopback.
type Server struct {
	// URL is the server's base URL, such as http://127.0.0.1:41234.
	URL string
	// Mock is the server itself, for everything the helpers do not cover.
	Mock *mock.Server

	ts *httptest.Server
}

// Option changes the options a Server starts with.
type Option func(*mock.Options)

// WithScenario serves the named scenario instead of default.
func WithScenario(name string) Option { return func(o *mock.Options) { o.Scenario = name } }

// WithSeed replaces the scenarios' seeds for generated data.
func WithSeed(seed int64) Option { return func(o *mock.Options) { o.Seed = seed } }

// WithOptions replaces all options; later options still apply on top.
func WithOptions(opts mock.Options) Option { return func(o *mock.Options) { *o = opts } }

// Start starts a Server; the caller closes it. Tests use New instead.
func Start(opts ...Option) (*Server, error) {
	var o mock.Options
	for _, opt := range opts {
		opt(&o)
	}
	m, err := mock.New(o)
	if err != nil {
		return nil, err
	}
	ts := httptest.NewServer(m)
	return &Server{URL: ts.URL, Mock: m, ts: ts}, nil
}

// New starts a Server for one test and closes it when the test ends.
func New(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s, err := Start(opts...)
	if err != nil {
		tb.Fatalf("mocktest: %v", err)
	}
	tb.Cleanup(s.Close)
	return s
}

// Close shuts the server down.
func (s *Server) Close() { s.ts.Close() }

// APIURL is the base URL of the API: URL + "/api/v1".
func (s *Server) APIURL() string { return s.URL + mock.APIPrefix }

// Client returns an HTTP client for the server.
func (s *Server) Client() *http.Client { return s.ts.Client() }

// UseScenario switches the scenario for every session.
func (s *Server) UseScenario(tb testing.TB, name string) {
	tb.Helper()
	if err := s.Mock.SetScenario(mock.AllSessions, name); err != nil {
		tb.Fatalf("mocktest: %v", err)
	}
}

// AddFault adds a run-time fault for every session and returns it with its id.
func (s *Server) AddFault(tb testing.TB, f mock.Fault) mock.Fault {
	tb.Helper()
	added, err := s.Mock.AddFault(mock.AllSessions, f)
	if err != nil {
		tb.Fatalf("mocktest: %v", err)
	}
	return added
}

// FailNext makes the next n requests matching method and path (relative
// to /api/v1, e.g. "/feedbacks"; "" for any) answer status.
func (s *Server) FailNext(tb testing.TB, n int, method, path string, status int) mock.Fault {
	tb.Helper()
	return s.AddFault(tb, mock.Fault{Method: method, Path: path, Times: n, Error: &mock.FaultError{Status: status}})
}

// Requests returns the journal entries that match f, oldest first.
func (s *Server) Requests(f mock.JournalFilter) []mock.JournalEntry { return s.Mock.Requests(f) }

// Reset returns every session to the scenario's start and clears the
// journal and run-time faults.
func (s *Server) Reset() { s.Mock.Reset(mock.AllSessions) }
