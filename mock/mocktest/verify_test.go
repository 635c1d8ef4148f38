package mocktest_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/mock/mocktest"
)

// Errorf records a failure and goes on, as testing.T's does.
func (r *recordingTB) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func TestPatternString(t *testing.T) {
	for _, tc := range []struct {
		p    mocktest.Pattern
		want string
	}{
		{mocktest.Pattern{}, "any request"},
		{mocktest.Pattern{Session: "t1"}, "any request in session t1"},
		{mocktest.Pattern{Method: "PATCH", Path: "/api/v1/settings/ai", Body: map[string]string{"b": "2", "a.0": "1"}},
			"PATCH /api/v1/settings/ai body.a.0=1 body.b=2"},
		{mocktest.Pattern{Path: "/api/v1/*", Query: map[string]string{"answered": "0"}, Header: map[string]string{"X-Client": "web"}, Since: 4},
			"/api/v1/* query.answered=0 header.X-Client=web after seq 4"},
	} {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.p, got, tc.want)
		}
	}
}

func TestVerify(t *testing.T) {
	srv := mocktest.New(t)
	wantStatus(t, srv, "GET", "/feedbacks?answered=0", http.StatusOK, "X-Client", "web", mock.HeaderSession, "s1")
	wantStatus(t, srv, "GET", "/feedbacks?answered=1", http.StatusOK)
	list := mocktest.Pattern{Method: "GET", Path: "/api/v1/feedbacks"}
	for _, tc := range []struct {
		p    mocktest.Pattern
		want []mock.Times
		ok   bool
		msgs []string // in the failure, when not ok
	}{
		{list, nil, true, nil},
		{list, []mock.Times{mock.Exactly(2)}, true, nil},
		{list, []mock.Times{mock.Exactly(1)}, false, []string{
			"requests matching GET /api/v1/feedbacks: 2, want exactly 1", "matching seqs: 1, 2"}},
		{mocktest.Pattern{Session: "s1", Query: map[string]string{"answered": "0"}, Header: map[string]string{"x-client": "web"}}, nil, true, nil},
		{mocktest.Pattern{Query: map[string]string{"answered": "2"}}, nil, false, []string{
			"requests matching query.answered=2: 0, want at least 1",
			"nearest misses:",
			`  seq 2 GET /api/v1/feedbacks (session default): query.answered: want "2", got "1"`,
			`  seq 1 GET /api/v1/feedbacks (session s1): query.answered: want "2", got "0"`}},
		{mocktest.Pattern{Method: "PATCH"}, []mock.Times{mock.AtMost(0)}, true, nil},
		{mocktest.Pattern{Session: "nobody"}, nil, false, []string{"the journal holds no other request"}},
		{mocktest.Pattern{Since: 1}, []mock.Times{mock.Exactly(1)}, true, nil},
	} {
		rec := &recordingTB{}
		var ok bool
		if !rec.run(func() { ok = srv.Verify(rec, tc.p, tc.want...) }) {
			t.Fatalf("Verify(%s) ended in Fatalf: %q", tc.p, rec.fatals)
		}
		if rec.helpers == 0 {
			t.Errorf("Verify(%s) did not call Helper", tc.p)
		}
		if ok != tc.ok || len(rec.errors) != map[bool]int{true: 0, false: 1}[tc.ok] {
			t.Errorf("Verify(%s, %v) = %v with errors %q, want %v", tc.p, tc.want, ok, rec.errors, tc.ok)
			continue
		}
		if !tc.ok {
			lines := strings.Split(strings.TrimPrefix(rec.errors[0], "mocktest: "), "\n")
			for _, want := range tc.msgs {
				if !slices.Contains(lines, want) {
					t.Errorf("Verify(%s): failure\n%s\nhas no line %q", tc.p, rec.errors[0], want)
				}
			}
		}
	}

	for _, tc := range []struct {
		p    mocktest.Pattern
		want []mock.Times
		msg  string
	}{
		{mocktest.Pattern{Body: map[string]string{"a..b": "1"}}, nil, "body.a..b"},
		{mocktest.Pattern{Header: map[string]string{"Authorization": "Bearer tok"}}, nil, "redacted"},
		{mocktest.Pattern{}, []mock.Times{mock.AtLeast(1), mock.AtMost(2)}, "at most one"},
	} {
		rec := &recordingTB{}
		if rec.run(func() { srv.Verify(rec, tc.p, tc.want...) }) {
			t.Errorf("Verify(%s, %v) returned, want Fatalf", tc.p, tc.want)
		}
		if len(rec.fatals) != 1 || !strings.Contains(rec.fatals[0], tc.msg) {
			t.Errorf("Verify(%s, %v): Fatalf calls %q, want one with %q", tc.p, tc.want, rec.fatals, tc.msg)
		}
	}
}

func TestWaitFor(t *testing.T) {
	srv := mocktest.New(t)
	wantStatus(t, srv, "GET", "/settings/ai", http.StatusOK)
	p := mocktest.Pattern{Method: "PATCH", Path: "/api/v1/settings/ai", Body: map[string]string{"question.reply_mode": "auto"}}
	done := make(chan error, 1)
	go func() {
		resp, err := srv.Client().Do(jsonRequest(t, "PATCH", srv.APIURL()+"/settings/ai", `{"question":{"reply_mode":"auto"}}`))
		if err == nil {
			resp.Body.Close()
		}
		done <- err
	}()
	e := srv.WaitFor(t, p, 10*time.Second)
	if e.Seq != 2 || e.Method != "PATCH" || e.Status != 200 || e.Body != `{"question":{"reply_mode":"auto"}}` {
		t.Errorf("WaitFor returned %+v, want the PATCH", e)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Already there: at once, the oldest.
	if e := srv.WaitFor(t, mocktest.Pattern{Path: "/api/v1/settings/ai"}, time.Minute); e.Seq != 1 {
		t.Errorf("WaitFor an entry already there: seq %d, want 1", e.Seq)
	}

	rec := &recordingTB{}
	p.Since = e.Seq // only a later one would do
	if rec.run(func() { srv.WaitFor(rec, p, 50*time.Millisecond) }) {
		t.Fatal("WaitFor returned when nothing came")
	}
	if rec.helpers == 0 {
		t.Error("WaitFor did not call Helper")
	}
	want := "mocktest: no request came within 50ms: requests matching PATCH /api/v1/settings/ai body.question.reply_mode=auto after seq 2: 0, want at least 1\nthe journal holds no other request"
	if len(rec.fatals) != 1 || rec.fatals[0] != want {
		t.Errorf("Fatalf calls %q, want\n%s", rec.fatals, want)
	}
	rec = &recordingTB{}
	if rec.run(func() { srv.WaitFor(rec, mocktest.Pattern{Path: "feedbacks"}, time.Minute) }) || len(rec.fatals) != 1 || !strings.Contains(rec.fatals[0], "path") {
		t.Errorf("WaitFor with an invalid pattern: Fatalf calls %q, want one naming the path", rec.fatals)
	}
}

// A verification that fails because its session was evicted says so.
func TestVerifyNamesAnEviction(t *testing.T) {
	srv := mocktest.New(t, mocktest.WithOptions(mock.Options{MaxSessions: 2}))
	wantStatus(t, srv, "GET", "/feedbacks?limit=1", http.StatusOK, mock.HeaderSession, "gone")
	wantStatus(t, srv, "GET", "/feedbacks?limit=1", http.StatusOK, mock.HeaderSession, "a")
	wantStatus(t, srv, "GET", "/feedbacks?limit=1", http.StatusOK, mock.HeaderSession, "b") // evicts gone
	wantStatus(t, srv, "GET", "/settings/ai", http.StatusOK, mock.HeaderSession, "gone")
	rec := &recordingTB{}
	if srv.Verify(rec, mocktest.Pattern{Session: "gone", Path: "/api/v1/feedbacks"}) {
		t.Fatal("the request the eviction took was found")
	}
	if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], "\nsession gone was evicted at ") {
		t.Errorf("the failure does not name the eviction: %q", rec.errors)
	}
}
