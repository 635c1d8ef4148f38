package mocktest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/mock/mocktest"
)

// send makes one API request (path relative to /api/v1; a JSON body
// unless ""; header as name, value pairs) in session, and returns its
// status.
func send(t *exampleT, srv *mocktest.Server, session, method, path, body string, header ...string) int {
	return exchange(t, srv, session, method, path, body, nil, header...)
}

// exchange is send that also decodes the answer's data into data, unless
// it is nil; an answer without data is fatal then.
func exchange(t *exampleT, srv *mocktest.Server, session, method, path, body string, data any, header ...string) int {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, srv.APIURL()+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set(mock.HeaderSession, session)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if data != nil {
		env := struct {
			Data json.RawMessage `json:"data"`
		}{}
		if err := json.NewDecoder(resp.Body).Decode(&env); err != nil || json.Unmarshal(env.Data, data) != nil {
			t.Fatalf("%s %s: status %d, no data (%v)", method, path, resp.StatusCode, err)
		}
	}
	return resp.StatusCode
}

const formalFive = `{"feedback":[{"rating":5,"tone":"formal"}]}`

// Each test takes a session of its own; what a helper changes in one,
// the others never see, so tests can share a server in parallel.
func ExampleServer_Session() {
	t := &exampleT{} // in a test: the test's *testing.T
	defer t.finish()

	srv := mocktest.New(t)
	a, b := srv.Session(t), srv.Session(t) // in a test named TestSync: "TestSync-1", "TestSync-2"
	fmt.Println(a, b)

	srv.FailNextFor(t, a, 1, "GET", "/feedbacks", 503)
	fmt.Println(a+":", send(t, srv, a, "GET", "/feedbacks", ""))
	fmt.Println(b+":", send(t, srv, b, "GET", "/feedbacks", ""))
	// Output:
	// Example-1 Example-2
	// Example-1: 503
	// Example-2: 200
}

// One session switches to another scenario; the rest keep the server's.
func ExampleServer_SetScenario() {
	t := &exampleT{} // in a test: the test's *testing.T
	defer t.finish()

	srv := mocktest.New(t)
	locked, open := srv.Session(t), srv.Session(t)
	srv.SetScenario(t, locked, "unauthorized")

	fmt.Println("locked:", send(t, srv, locked, "GET", "/feedbacks", ""))
	fmt.Println("locked, with a token:", send(t, srv, locked, "GET", "/feedbacks", "", "Authorization", "Bearer demo-token"))
	fmt.Println("open:", send(t, srv, open, "GET", "/feedbacks", ""))
	// Output:
	// locked: 401
	// locked, with a token: 200
	// open: 200
}

// A fault of one session: here its settings save fails every time, with
// the body a client must cope with.
func ExampleServer_AddFaultFor() {
	t := &exampleT{} // in a test: the test's *testing.T
	defer t.finish()

	srv := mocktest.New(t)
	sess := srv.Session(t)
	f := srv.AddFaultFor(t, sess, mock.Fault{Name: "save fails", Method: "PATCH", Path: "/settings/ai",
		Error: &mock.FaultError{Status: 500}})
	fmt.Println("fault", f.ID)

	for range 2 {
		fmt.Println(send(t, srv, sess, "PATCH", "/settings/ai", formalFive))
	}
	fmt.Println("another session:", send(t, srv, srv.Session(t), "PATCH", "/settings/ai", formalFive))
	// Output:
	// fault f1
	// 500
	// 500
	// another session: 200
}

// The next two list calls of one session fail; another session's count
// apart.
func ExampleServer_FailNextFor() {
	t := &exampleT{} // in a test: the test's *testing.T
	defer t.finish()

	srv := mocktest.New(t)
	sess := srv.Session(t)
	srv.FailNextFor(t, sess, 2, "GET", "/feedbacks", 503)
	for range 3 {
		fmt.Print(send(t, srv, sess, "GET", "/feedbacks", ""), " ")
	}
	fmt.Println()
	// Output:
	// 503 503 200
}

// A fault taken away in the middle of a test: the client's next call
// gets through.
func ExampleServer_RemoveFault() {
	t := &exampleT{} // in a test: the test's *testing.T
	defer t.finish()

	srv := mocktest.New(t)
	sess := srv.Session(t)
	down := srv.AddFaultFor(t, sess, mock.Fault{Error: &mock.FaultError{Status: 503}}) // every request, until removed
	fmt.Println(send(t, srv, sess, "GET", "/feedbacks", ""))
	srv.RemoveFault(t, down.ID)
	fmt.Println(send(t, srv, sess, "GET", "/feedbacks", ""))
	// Output:
	// 503
	// 200
}

// ClearFaults takes away a session's run-time faults at once.
func ExampleServer_ClearFaults() {
	t := &exampleT{} // in a test: the test's *testing.T
	defer t.finish()

	srv := mocktest.New(t)
	sess := srv.Session(t)
	srv.FailNextFor(t, sess, 5, "GET", "/feedbacks", 503)
	srv.FailNextFor(t, sess, 5, "GET", "/settings/ai", 502)
	fmt.Println("removed:", srv.ClearFaults(t, sess))
	fmt.Println(send(t, srv, sess, "GET", "/feedbacks", ""), send(t, srv, sess, "GET", "/settings/ai", ""))
	// Output:
	// removed: 2
	// 200 200
}

// Overrides change auth, the rate limit and strict mode whatever the
// scenario says: here one session needs its own token and may make one
// request a minute.
func ExampleServer_SetOverrides() {
	t := &exampleT{} // in a test: the test's *testing.T
	defer t.finish()

	srv := mocktest.New(t)
	sess := srv.Session(t)
	srv.SetOverrides(t, sess, mock.Overrides{
		Auth:      &mock.Auth{Type: "bearer", Tokens: []string{"t-1"}},
		RateLimit: &mock.RateLimit{Requests: 1, Window: mock.Duration(time.Minute)},
	})
	fmt.Println("no token:", send(t, srv, sess, "GET", "/feedbacks", ""))
	fmt.Println("token:", send(t, srv, sess, "GET", "/feedbacks", "", "Authorization", "Bearer t-1"))
	fmt.Println("again:", send(t, srv, sess, "GET", "/feedbacks", "", "Authorization", "Bearer t-1"))
	fmt.Println("another session:", send(t, srv, srv.Session(t), "GET", "/feedbacks", ""))
	// Output:
	// no token: 401
	// token: 200
	// again: 429
	// another session: 200
}

// In strict mode, a request the real service would take with a warning
// (here an unknown query parameter) is refused, so a test sees it.
func ExampleServer_Strict() {
	t := &exampleT{} // in a test: the test's *testing.T
	defer t.finish()

	srv := mocktest.New(t)
	sess := srv.Session(t)
	fmt.Println("lenient:", send(t, srv, sess, "GET", "/feedbacks?ratingg=5", ""))
	srv.Strict(t, sess, true)
	fmt.Println("strict:", send(t, srv, sess, "GET", "/feedbacks?ratingg=5", ""))
	// Output:
	// lenient: 200
	// strict: 400
}

// Settings reads what a session's settings are now, as the client left
// them, past any fault.
func ExampleServer_Settings() {
	t := &exampleT{} // in a test: the test's *testing.T
	defer t.finish()

	srv := mocktest.New(t)
	sess := srv.Session(t)
	send(t, srv, sess, "PATCH", "/settings/ai", formalFive) // the client under test
	srv.FailNextFor(t, sess, 1, "GET", "/settings/ai", 503)

	fmt.Println(sess+":", srv.Settings(t, sess).Feedback[4].Tone)
	fmt.Println("default:", srv.Settings(t, "").Feedback[4].Tone)
	// Output:
	// Example-1: formal
	// default: friendly
}

// ResetSession puts one session back to its start; the others keep
// what they changed.
func ExampleServer_ResetSession() {
	t := &exampleT{} // in a test: the test's *testing.T
	defer t.finish()

	srv := mocktest.New(t)
	a, b := srv.Session(t), srv.Session(t)
	send(t, srv, a, "PATCH", "/settings/ai", formalFive)
	send(t, srv, b, "PATCH", "/settings/ai", formalFive)
	srv.ResetSession(t, a)
	fmt.Println(srv.Settings(t, a).Feedback[4].Tone, srv.Settings(t, b).Feedback[4].Tone)
	// Output:
	// friendly formal
}

// ClearRequests empties a session's journal, so that what is verified
// next is only what the client does next.
func ExampleServer_ClearRequests() {
	t := &exampleT{} // in a test: the test's *testing.T
	defer t.finish()

	srv := mocktest.New(t)
	sess := srv.Session(t)
	send(t, srv, sess, "GET", "/feedbacks", "") // the test's own set-up
	srv.ClearRequests(t, sess)

	send(t, srv, sess, "GET", "/settings/ai", "") // the client under test
	for _, e := range srv.Requests(mock.JournalFilter{Session: sess}) {
		fmt.Println(e.Method, e.Path)
	}
	// Output:
	// GET /api/v1/settings/ai
}

// A living shop's clock stands still in demo-frozen until a test moves
// it.
func ExampleServer_Now() {
	t := &exampleT{} // in a test: the test's *testing.T
	defer t.finish()

	srv := mocktest.New(t, mocktest.WithScenario("demo-frozen"))
	fmt.Println(srv.Now(t, ""))
	// Output:
	// 2026-11-15 17:52:02 +0000 UTC
}

// Moving a living shop's clock ahead brings the reviews due meanwhile
// (30 an hour in demo-frozen) and the replies the settings ask for.
func ExampleServer_AdvanceClock() {
	t := &exampleT{} // in a test: the test's *testing.T
	defer t.finish()

	srv := mocktest.New(t)
	sess := srv.Session(t)
	srv.SetScenario(t, sess, "demo-frozen")
	before := feedbacks(t, srv, sess, "limit=1").Total

	fmt.Println(srv.AdvanceClock(t, sess, 2*time.Hour))
	list := feedbacks(t, srv, sess, "limit=1")
	fmt.Println("new reviews:", list.Total-before, "newest:", list.Feedbacks[0].CreatedDate)
	// Output:
	// 2026-11-15 19:52:02 +0000 UTC
	// new reviews: 60 newest: 2026-11-15 19:52:02
}

// Reset returns every session to the scenario's start between steps of
// one test: settings, faults and the journal alike.
func ExampleServer_Reset() {
	t := &exampleT{} // in a test: the test's *testing.T
	defer t.finish()

	srv := mocktest.New(t)
	a, b := srv.Session(t), srv.Session(t)
	send(t, srv, a, "PATCH", "/settings/ai", formalFive)
	send(t, srv, b, "PATCH", "/settings/ai", formalFive)
	srv.FailNext(t, 1, "GET", "/feedbacks", 503)
	srv.Reset()
	fmt.Println(srv.Settings(t, a).Feedback[4].Tone, srv.Settings(t, b).Feedback[4].Tone)
	fmt.Println("journal:", len(srv.Requests(mock.JournalFilter{Session: a})), "faults:", len(srv.Mock.Faults(mock.AllSessions)))
	// Output:
	// friendly friendly
	// journal: 0 faults: 0
}
