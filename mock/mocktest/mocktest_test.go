package mocktest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/mock/mocktest"
)

// call sends one API request (path relative to /api/v1) with header as
// name, value pairs, and returns the status and body.
func call(t *testing.T, srv *mocktest.Server, method, path string, header ...string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, srv.APIURL()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, path, err)
	}
	return resp.StatusCode, body
}

// wantStatus checks the status of one request.
func wantStatus(t *testing.T, srv *mocktest.Server, method, path string, want int, header ...string) {
	t.Helper()
	if got, body := call(t, srv, method, path, header...); got != want {
		t.Errorf("%s %s: status = %d, want %d (body %.200s)", method, path, got, want, body)
	}
}

// recordingTB records what mocktest does with a testing.TB. Its Fatalf
// ends the goroutine, as testing.T's does, so calls that may fail run
// through run. The embedded testing.TB is nil: mocktest calls nothing else.
type recordingTB struct {
	testing.TB
	name     string // Name's answer; "TestRecording" if unset
	helpers  int
	fatals   []string
	errors   []string
	cleanups []func()
}

func (r *recordingTB) Helper()          { r.helpers++ }
func (r *recordingTB) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }
func (r *recordingTB) Name() string {
	if r.name == "" {
		return "TestRecording"
	}
	return r.name
}
func (r *recordingTB) Fatalf(format string, args ...any) {
	r.fatals = append(r.fatals, fmt.Sprintf(format, args...))
	runtime.Goexit()
}

// run calls f in a goroutine of its own, as a test body runs, and reports
// whether f returned rather than ending in Fatalf.
func (r *recordingTB) run(f func()) (returned bool) {
	done := make(chan bool)
	go func() {
		ok := false
		defer func() { done <- ok }()
		f()
		ok = true
	}()
	return <-done
}

func TestNewClosesWhenTestEnds(t *testing.T) {
	var srv *mocktest.Server
	t.Run("inner", func(t *testing.T) {
		srv = mocktest.New(t)
		wantStatus(t, srv, "GET", "/feedbacks", http.StatusOK)
	})
	if resp, err := srv.Client().Get(srv.APIURL() + "/feedbacks"); err == nil {
		resp.Body.Close()
		t.Errorf("GET /feedbacks after the test ended: status %d, want an error", resp.StatusCode)
	}
}

func TestNewRecordingTB(t *testing.T) {
	rec := &recordingTB{}
	var srv *mocktest.Server
	if !rec.run(func() { srv = mocktest.New(rec) }) {
		t.Fatalf("New failed: %q", rec.fatals)
	}
	if rec.helpers == 0 {
		t.Error("New did not call Helper")
	}
	if len(rec.cleanups) != 1 {
		t.Fatalf("New registered %d cleanups, want 1", len(rec.cleanups))
	}
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusOK)
	rec.cleanups[0]()
	if resp, err := srv.Client().Get(srv.APIURL() + "/feedbacks"); err == nil {
		resp.Body.Close()
		t.Errorf("GET /feedbacks after the cleanup: status %d, want an error", resp.StatusCode)
	}
}

func TestNewFailsOnBadOption(t *testing.T) {
	rec := &recordingTB{}
	if rec.run(func() { mocktest.New(rec, mocktest.WithScenario("no-such-scenario")) }) {
		t.Fatal("New returned for an unknown scenario")
	}
	if len(rec.fatals) != 1 || !strings.HasPrefix(rec.fatals[0], "mocktest: ") ||
		!strings.Contains(rec.fatals[0], "no-such-scenario") {
		t.Errorf("Fatalf calls = %q, want one naming the scenario", rec.fatals)
	}
	if rec.helpers == 0 {
		t.Error("New did not call Helper")
	}
	if len(rec.cleanups) != 0 {
		t.Errorf("New registered %d cleanups for a server it never started", len(rec.cleanups))
	}
}

func TestStart(t *testing.T) {
	if srv, err := mocktest.Start(mocktest.WithScenario("no-such-scenario")); err == nil {
		srv.Close()
		t.Fatal("Start with an unknown scenario: no error")
	}
	srv, err := mocktest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if want := srv.URL + "/api/v1"; srv.APIURL() != want {
		t.Errorf("APIURL() = %q, want %q", srv.APIURL(), want)
	}
	if !strings.HasPrefix(srv.URL, "http://127.0.0.1:") {
		t.Errorf("URL = %q, want a loopback address", srv.URL)
	}
	wantStatus(t, srv, "GET", "/settings/ai", http.StatusOK)
	if n := len(srv.Mock.Requests(mock.JournalFilter{})); n != 1 {
		t.Errorf("Mock journals %d requests, want 1", n)
	}
}

func TestClose(t *testing.T) {
	srv := mocktest.New(t)
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusOK)
	srv.Close() // and again in the cleanup: closing twice is fine
	if resp, err := srv.Client().Get(srv.APIURL() + "/feedbacks"); err == nil {
		resp.Body.Close()
		t.Errorf("GET /feedbacks after Close: status %d, want an error", resp.StatusCode)
	}
}

func TestFailNext(t *testing.T) {
	srv := mocktest.New(t)
	f := srv.FailNext(t, 2, "GET", "/feedbacks", http.StatusServiceUnavailable)
	if f.ID == "" || f.Times != 2 || f.Error == nil || f.Error.Status != 503 {
		t.Errorf("FailNext returned %+v, want an id, Times 2 and status 503", f)
	}
	wantStatus(t, srv, "GET", "/settings/ai", http.StatusOK) // another path
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusServiceUnavailable)
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusServiceUnavailable)
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusOK)
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusOK)

	// "" matches any method and path.
	srv.FailNext(t, 1, "", "", http.StatusInternalServerError)
	wantStatus(t, srv, "GET", "/settings/ai", http.StatusInternalServerError)
	wantStatus(t, srv, "GET", "/settings/ai", http.StatusOK)
}

func TestFailNextRecordingTB(t *testing.T) {
	srv := mocktest.New(t)
	rec := &recordingTB{}
	if !rec.run(func() { srv.FailNext(rec, 1, "GET", "/feedbacks", 502) }) {
		t.Fatalf("FailNext failed: %q", rec.fatals)
	}
	if rec.helpers == 0 {
		t.Error("FailNext did not call Helper")
	}
	if rec.run(func() { srv.FailNext(rec, 1, "GET", "/feedbacks", 200) }) {
		t.Fatal("FailNext with status 200 returned")
	}
	if len(rec.fatals) != 1 || !strings.Contains(rec.fatals[0], "status") {
		t.Errorf("Fatalf calls = %q, want one about the status", rec.fatals)
	}
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusBadGateway)
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusOK)
}

func TestAddFault(t *testing.T) {
	srv := mocktest.New(t)
	limited := srv.AddFault(t, mock.Fault{Name: "limited", Path: "/settings/*",
		Error: &mock.FaultError{Status: http.StatusTooManyRequests, Headers: map[string]string{"Retry-After": "1"}}})
	down := srv.AddFault(t, mock.Fault{Method: "PATCH", Path: "/settings/ai", Error: &mock.FaultError{Status: 500}})
	if limited.ID == "" || down.ID == "" || limited.ID == down.ID {
		t.Fatalf("fault ids %q and %q, want two different ones", limited.ID, down.ID)
	}
	var ids []string
	for _, f := range srv.Mock.Faults(mock.AllSessions) {
		ids = append(ids, f.ID)
	}
	if want := []string{limited.ID, down.ID}; fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Errorf("Mock.Faults ids = %q, want %q", ids, want)
	}
	for range 3 { // no Times: every matching request
		wantStatus(t, srv, "GET", "/settings/ai", http.StatusTooManyRequests)
	}
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusOK)
	reqs := srv.Requests(mock.JournalFilter{Path: "/api/v1/settings/ai"})
	if len(reqs) != 3 || reqs[2].Fault != "limited: error 429" {
		t.Errorf("journal of /settings/ai: %d entries, want 3 with fault %q", len(reqs), "limited: error 429")
	}

	rec := &recordingTB{}
	if rec.run(func() { srv.AddFault(rec, mock.Fault{Path: "feedbacks", Drop: true}) }) {
		t.Fatal("AddFault with a path without / returned")
	}
	if len(rec.fatals) != 1 || !strings.Contains(rec.fatals[0], "path") {
		t.Errorf("Fatalf calls = %q, want one about the path", rec.fatals)
	}
	if rec.helpers == 0 {
		t.Error("AddFault did not call Helper")
	}
	if n := len(srv.Mock.Faults(mock.AllSessions)); n != 2 {
		t.Errorf("%d faults after a bad one, want 2", n)
	}
}

func TestUseScenario(t *testing.T) {
	srv := mocktest.New(t)
	const token = "Bearer demo-token"
	wantStatus(t, srv, "GET", "/settings/ai", http.StatusOK)
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusOK, mock.HeaderSession, "s1")
	srv.UseScenario(t, "unauthorized")
	wantStatus(t, srv, "GET", "/settings/ai", http.StatusUnauthorized)
	wantStatus(t, srv, "GET", "/settings/ai", http.StatusOK, "Authorization", token)
	// A session that already existed follows the server too.
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusUnauthorized, mock.HeaderSession, "s1")

	rec := &recordingTB{}
	if rec.run(func() { srv.UseScenario(rec, "no-such-scenario") }) {
		t.Fatal("UseScenario with an unknown scenario returned")
	}
	if len(rec.fatals) != 1 || !strings.Contains(rec.fatals[0], "no-such-scenario") {
		t.Errorf("Fatalf calls = %q, want one naming the scenario", rec.fatals)
	}
	if rec.helpers == 0 {
		t.Error("UseScenario did not call Helper")
	}
	wantStatus(t, srv, "GET", "/settings/ai", http.StatusUnauthorized) // unchanged

	srv.UseScenario(t, "default")
	wantStatus(t, srv, "GET", "/settings/ai", http.StatusOK)
}

func TestReset(t *testing.T) {
	srv := mocktest.New(t)
	_, before := call(t, srv, "GET", "/settings/ai", mock.HeaderSession, "s1")
	req, err := http.NewRequest("PATCH", srv.APIURL()+"/settings/ai",
		jsonBody(`{"feedback":[{"rating":5,"tone":"formal"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(mock.HeaderSession, "s1")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("PATCH /settings/ai: status = %d, want 200", resp.StatusCode)
	}
	if _, changed := call(t, srv, "GET", "/settings/ai", mock.HeaderSession, "s1"); bytes.Equal(changed, before) {
		t.Fatal("PATCH /settings/ai changed nothing")
	}
	srv.FailNext(t, 5, "GET", "/feedbacks", http.StatusServiceUnavailable)
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusServiceUnavailable)
	srv.UseScenario(t, "unauthorized")

	srv.Reset()
	if reqs := srv.Requests(mock.JournalFilter{}); len(reqs) != 0 {
		t.Errorf("journal after Reset holds %d requests, want 0", len(reqs))
	}
	if faults := srv.Mock.Faults(mock.AllSessions); len(faults) != 0 {
		t.Errorf("faults after Reset: %+v, want none", faults)
	}
	const auth = "Bearer demo-token"
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusUnauthorized) // the scenario stays
	wantStatus(t, srv, "GET", "/feedbacks", http.StatusOK, "Authorization", auth)
	if _, after := call(t, srv, "GET", "/settings/ai", mock.HeaderSession, "s1", "Authorization", auth); !bytes.Equal(after, before) {
		t.Errorf("settings after Reset:\n%s\nwant the scenario's:\n%s", after, before)
	}
}

func TestRequests(t *testing.T) {
	srv := mocktest.New(t)
	wantStatus(t, srv, "GET", "/feedbacks?limit=1", http.StatusOK, mock.HeaderSession, "a")
	wantStatus(t, srv, "GET", "/settings/ai", http.StatusOK, mock.HeaderSession, "b")
	wantStatus(t, srv, "HEAD", "/feedbacks", http.StatusOK, mock.HeaderSession, "b")
	wantStatus(t, srv, "GET", "/feedbacks?limit=2", http.StatusOK)

	list := func(f mock.JournalFilter) string {
		var s []string
		for _, e := range srv.Requests(f) {
			s = append(s, e.Session+" "+e.Method+" "+e.Path+"?"+e.Query)
		}
		return strings.Join(s, ", ")
	}
	for _, tc := range []struct {
		f    mock.JournalFilter
		want string
	}{
		{mock.JournalFilter{}, "a GET /api/v1/feedbacks?limit=1, b GET /api/v1/settings/ai?, b HEAD /api/v1/feedbacks?, default GET /api/v1/feedbacks?limit=2"},
		{mock.JournalFilter{Path: "/api/v1/feedbacks"}, "a GET /api/v1/feedbacks?limit=1, b HEAD /api/v1/feedbacks?, default GET /api/v1/feedbacks?limit=2"},
		{mock.JournalFilter{Method: "GET", Path: "/api/v1/feedbacks"}, "a GET /api/v1/feedbacks?limit=1, default GET /api/v1/feedbacks?limit=2"},
		{mock.JournalFilter{Session: "b"}, "b GET /api/v1/settings/ai?, b HEAD /api/v1/feedbacks?"},
		{mock.JournalFilter{Path: "/api/v1/settings/*"}, "b GET /api/v1/settings/ai?"},
		{mock.JournalFilter{Limit: 1}, "default GET /api/v1/feedbacks?limit=2"},
	} {
		if got := list(tc.f); got != tc.want {
			t.Errorf("Requests(%+v) =\n%s\nwant\n%s", tc.f, got, tc.want)
		}
	}
}

func TestWithSeed(t *testing.T) {
	page := func(opts ...mocktest.Option) []byte {
		srv := mocktest.New(t, opts...)
		status, body := call(t, srv, "GET", "/feedbacks?limit=100")
		if status != http.StatusOK {
			t.Fatalf("GET /feedbacks: status %d", status)
		}
		// Media URLs name each server's own address.
		return bytes.ReplaceAll(body, []byte(srv.URL+"/"), []byte("BASE/"))
	}
	seeded, again, other, unseeded := page(mocktest.WithSeed(1)), page(mocktest.WithSeed(1)), page(mocktest.WithSeed(2)), page()
	if !bytes.Equal(seeded, again) {
		t.Error("two servers with seed 1 serve different feedbacks")
	}
	if bytes.Equal(seeded, other) {
		t.Error("seeds 1 and 2 serve the same feedbacks")
	}
	if bytes.Equal(seeded, unseeded) {
		t.Error("seed 1 serves the scenario's own feedbacks")
	}
}

func TestWithOptions(t *testing.T) {
	// WithOptions replaces what came before it...
	srv := mocktest.New(t, mocktest.WithScenario("unauthorized"), mocktest.WithOptions(mock.Options{ReadOnly: true}))
	wantStatus(t, srv, "GET", "/settings/ai", http.StatusOK)
	wantStatus(t, srv, "PATCH", "/settings/ai", http.StatusForbidden)

	// ...and what comes after it applies on top.
	srv = mocktest.New(t, mocktest.WithOptions(mock.Options{Scenario: "default", ReadOnly: true}), mocktest.WithScenario("unauthorized"))
	wantStatus(t, srv, "GET", "/settings/ai", http.StatusUnauthorized)
	wantStatus(t, srv, "PATCH", "/settings/ai", http.StatusForbidden, "Authorization", "Bearer demo-token")
}

// The records' media URLs name the in-process server, so a client can
// fetch them; a public URL in the options is kept.
func TestStartMediaURLs(t *testing.T) {
	srv := mocktest.New(t)
	_, body := call(t, srv, "GET", "/feedbacks?nm_id=555000111&limit=100")
	var env struct {
		Data struct{ Feedbacks []mock.Feedback }
	}
	if err := json.Unmarshal(body, &env); err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, f := range env.Data.Feedbacks {
		var photos []mock.Photo
		json.Unmarshal([]byte(f.Photos), &photos)
		for _, p := range photos {
			urls = append(urls, p.FullSize, p.MiniSize)
		}
		var v mock.Video
		if json.Unmarshal(f.Video, &v) == nil && v.Link != "" {
			urls = append(urls, v.PreviewImage, v.Link)
		}
	}
	if len(urls) < 6 {
		t.Fatalf("media URLs %v: want the edge cases' photos and video", urls)
	}
	for _, u := range urls {
		if !strings.HasPrefix(u, srv.URL+mock.MediaPrefix) {
			t.Errorf("%s is not on the server %s", u, srv.URL)
			continue
		}
		resp, err := srv.Client().Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d", u, resp.StatusCode)
		}
	}
	other := mocktest.New(t, mocktest.WithOptions(mock.Options{PublicURL: "https://ui.example.test"}))
	if _, body := call(t, other, "GET", "/feedbacks?nm_id=555000111&limit=100"); !bytes.Contains(body, []byte(`https://ui.example.test/__mock/media/`)) {
		t.Errorf("the public URL given in the options is not in the records")
	}
	if _, err := mocktest.Start(mocktest.WithOptions(mock.Options{PublicURL: "nope"})); err == nil || !strings.Contains(err.Error(), "public URL") {
		t.Errorf("Start with a bad public URL: %v", err)
	}
}
