// Package mocktest runs replymock in-process for Go tests.
// In the spirit of net/http/httptest, each test gets its own server on
// loopback, closed when the test ends.
//
//	srv := mocktest.New(t, mocktest.WithScenario("flaky"))
//	client := myapi.NewClient(srv.APIURL())
//	srv.FailNext(t, 2, "GET", "/feedbacks", 503)
//	srv.SeedReviews(t, "", mocktest.Review().Rating(1).Text("Брак")) // the list is this one review
//	... exercise the client ...
//	reqs := srv.Requests(mock.JournalFilter{Path: "/api/v1/feedbacks"})
//	srv.Verify(t, mocktest.Pattern{Method: "GET", Path: "/api/v1/feedbacks"}, mock.Exactly(3))
package mocktest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
)

// Server is a replymock server listening on loopback.
type Server struct {
	// URL is the server's base URL, such as http://127.0.0.1:41234.
	URL string
	// Mock is the server itself, for everything the helpers do not cover.
	Mock *mock.Server

	ts         *httptest.Server
	adminToken string       // Options.AdminToken, for the admin routes Server.admin calls
	sessions   atomic.Int64 // the sessions Session named
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
// Unless the options name a public URL, the records' media URLs name the
// server's own address, so a client can fetch them.
func Start(opts ...Option) (*Server, error) {
	var o mock.Options
	for _, opt := range opts {
		opt(&o)
	}
	ts := httptest.NewUnstartedServer(nil)
	if o.PublicURL == "" {
		o.PublicURL = "http://" + ts.Listener.Addr().String()
	}
	m, err := mock.New(o)
	if err != nil {
		ts.Listener.Close()
		return nil, err
	}
	ts.Config.Handler = m
	ts.Start()
	return &Server{URL: ts.URL, Mock: m, ts: ts, adminToken: o.AdminToken}, nil
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

// Pattern describes requests in the journal, as GET /__mock/verify does;
// zero fields match anything. mock.JournalFilter says how each part
// compares.
type Pattern struct {
	Session string // one session's journal; "" for every session
	Method  string // in any case
	Path    string // exact, or a prefix ending in "*": "/api/v1/feedbacks"
	// Query wants query parameters, decoded: "answered" → "0".
	Query map[string]string
	// Header wants headers, names in any case: "X-Client" → "web".
	// Credentials are journaled redacted: "Authorization" → "Bearer"
	// matches by scheme; their value never matches.
	Header map[string]string
	// Body wants values in a JSON body by dotted path, arrays by index:
	// "feedback.0.tone" → "formal"; other than strings, values are their
	// JSON text ("5", "true", "null").
	Body map[string]string
	// Since skips the entries up to this sequence number (a
	// JournalEntry's Seq), to look only at later ones.
	Since int64
}

// Filter is the pattern as a mock.JournalFilter.
func (p Pattern) Filter() mock.JournalFilter {
	return mock.JournalFilter{Session: p.Session, Method: p.Method, Path: p.Path,
		Query: p.Query, Header: p.Header, Body: p.Body, Since: p.Since}
}

// String words the pattern as GET /__mock/verify's parameters would
// name it: "PATCH /api/v1/settings/ai body.feedback.0.tone=formal".
func (p Pattern) String() string {
	var parts []string
	add := func(prefix string, m map[string]string) {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			parts = append(parts, prefix+k+"="+m[k])
		}
	}
	if p.Method != "" {
		parts = append(parts, p.Method)
	}
	if p.Path != "" {
		parts = append(parts, p.Path)
	}
	add("query.", p.Query)
	add("header.", p.Header)
	add("body.", p.Body)
	if len(parts) == 0 {
		parts = append(parts, "any request")
	}
	if p.Session != "" {
		parts = append(parts, "in session "+p.Session)
	}
	if p.Since > 0 {
		parts = append(parts, fmt.Sprintf("after seq %d", p.Since))
	}
	return strings.Join(parts, " ")
}

// Verify checks that the journal holds as many requests matching p as
// want says (mock.Exactly(2), mock.AtMost(0), ...; at least one if it
// says nothing). Otherwise it fails the test with tb.Errorf, naming the
// nearest misses and the parts where they differ, and returns false.
// The server answers a request only once it is in the journal, so a
// client's finished call can be verified at once.
func (s *Server) Verify(tb testing.TB, p Pattern, want ...mock.Times) bool {
	tb.Helper()
	w := mock.AtLeast(1)
	switch len(want) {
	case 0:
	case 1:
		w = want[0]
	default:
		tb.Fatalf("mocktest: Verify takes at most one mock.Times, got %d", len(want))
	}
	v, err := s.Mock.Verify(p.Filter(), w)
	if err != nil {
		tb.Fatalf("mocktest: Verify %s: %v", p, err)
	}
	if !v.OK {
		tb.Errorf("mocktest: %s", failure(p, v))
	}
	return v.OK
}

// failure words a failed verification over several lines: the count,
// then the matching seqs or the nearest misses.
func failure(p Pattern, v mock.Verification) string {
	var b strings.Builder
	fmt.Fprintf(&b, "requests matching %s: %d, want %s", p, v.Matched, v.Want)
	if v.Incomplete {
		b.WriteString(" (the journal dropped older entries: some may be missing)")
	}
	if v.Matched > 0 {
		seqs := make([]string, len(v.Seqs))
		for i, n := range v.Seqs {
			seqs[i] = fmt.Sprint(n)
		}
		fmt.Fprintf(&b, "\nmatching seqs: %s", strings.Join(seqs, ", "))
	}
	switch {
	case v.NearMisses == nil:
	case len(v.NearMisses) == 0:
		b.WriteString("\nthe journal holds no other request")
	default:
		b.WriteString("\nnearest misses:")
		for _, nm := range v.NearMisses {
			fmt.Fprintf(&b, "\n  seq %d %s %s (session %s): %s", nm.Seq, nm.Method, nm.Path, nm.Session, nm.DiffersString())
		}
	}
	if v.Evicted != "" {
		b.WriteString("\n" + v.Evicted)
	}
	if v.Unreachable != "" {
		b.WriteString("\n" + v.Unreachable)
	}
	return b.String()
}

// WaitFor waits up to timeout for a request matching p and returns the
// oldest such entry (set p.Since to wait for a newer one). When none
// comes in time, it fails the test with tb.Fatalf, naming the nearest
// misses.
func (s *Server) WaitFor(tb testing.TB, p Pattern, timeout time.Duration) mock.JournalEntry {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	got, err := s.Mock.WaitRequests(ctx, p.Filter())
	if err == nil && len(got) > 0 {
		return got[0]
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		tb.Fatalf("mocktest: WaitFor %s: %v", p, err)
	}
	v, _ := s.Mock.Verify(p.Filter(), mock.AtLeast(1)) // the pattern is valid: WaitRequests took it
	if got := s.Mock.Requests(p.Filter()); v.OK && len(got) > 0 {
		return got[0] // it came as the time ran out
	}
	tb.Fatalf("mocktest: no request came within %s: %s", timeout, failure(p, v))
	return mock.JournalEntry{}
}
