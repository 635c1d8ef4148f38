package mocktest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/mock/mocktest"
)

// A Go test of client code: the client must get past the two failures
// FailNext injects, and the journal shows the calls it made.
func ExampleNew() {
	t := &exampleT{} // in a test: the test's *testing.T
	defer t.finish()

	srv := mocktest.New(t)
	srv.FailNext(t, 2, "GET", "/feedbacks", 503) // the next two list calls fail

	// The client code under test: a GET that retries 5xx answers, three tries in all.
	get := func(url string) (int, error) {
		for try := 1; ; try++ {
			resp, err := srv.Client().Get(url)
			if err != nil {
				return 0, err
			}
			resp.Body.Close()
			if resp.StatusCode < 500 || try == 3 {
				return resp.StatusCode, nil
			}
		}
	}

	status, err := get(srv.APIURL() + "/feedbacks")
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests(mock.JournalFilter{Path: "/api/v1/feedbacks"})
	if status != 200 || len(reqs) != 3 {
		t.Errorf("got %d after %d calls, want 200 after 3", status, len(reqs))
	}
	for _, r := range reqs {
		fmt.Println(r.Method, r.Path, r.Status, r.Fault)
	}
	// Output:
	// GET /api/v1/feedbacks 503 error 503
	// GET /api/v1/feedbacks 503 error 503
	// GET /api/v1/feedbacks 200
}

// A scenario picked for the whole server: here every request needs a token.
func Example_scenario() {
	t := &exampleT{} // in a test: the test's *testing.T
	defer t.finish()

	srv := mocktest.New(t, mocktest.WithScenario("unauthorized"))

	resp, err := srv.Client().Get(srv.APIURL() + "/settings/ai")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println("without token:", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))

	req, err := http.NewRequest("GET", srv.APIURL()+"/settings/ai", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer demo-token")
	resp, err = srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Data mock.Settings `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	fmt.Println("with token:", resp.StatusCode, len(body.Data.Feedback), "rating settings")
	// Output:
	// without token: 401 Bearer realm="replymock"
	// with token: 200 5 rating settings
}

// Parallel tests share nothing when each has its own session: here two
// sessions of one server change their settings independently.
func Example_sessions() {
	t := &exampleT{} // in a test: the test's *testing.T
	defer t.finish()

	srv := mocktest.New(t)
	tone := func(session string) string {
		req, err := http.NewRequest("GET", srv.APIURL()+"/settings/ai", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set(mock.HeaderSession, session)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body struct {
			Data mock.Settings `json:"data"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Fatal(err)
		}
		return body.Data.Feedback[4].Tone
	}

	req, err := http.NewRequest("PATCH", srv.APIURL()+"/settings/ai",
		jsonBody(`{"feedback":[{"rating":5,"tone":"formal"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(mock.HeaderSession, "test-a")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("PATCH /settings/ai: status = %d, want 200", resp.StatusCode)
	}
	fmt.Println("test-a:", tone("test-a"))
	fmt.Println("test-b:", tone("test-b"))
	// Output:
	// test-a: formal
	// test-b: friendly
}

// Verify checks what the client sent: here, that it saved the formal
// tone for five-star reviews once, and never listed the reviews.
func ExampleServer_Verify() {
	t := &exampleT{} // in a test: the test's *testing.T
	defer t.finish()

	srv := mocktest.New(t)

	// The client code under test saves a setting.
	resp, err := srv.Client().Do(jsonRequest(t, "PATCH", srv.APIURL()+"/settings/ai",
		`{"feedback":[{"rating":5,"tone":"formal"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	saved := mocktest.Pattern{Method: "PATCH", Path: "/api/v1/settings/ai",
		Body: map[string]string{"feedback.0.rating": "5", "feedback.0.tone": "formal"}}
	fmt.Println(srv.Verify(t, saved, mock.Exactly(1)))
	fmt.Println(srv.Verify(t, mocktest.Pattern{Method: "GET", Path: "/api/v1/feedbacks"}, mock.AtMost(0)))
	// Output:
	// true
	// true
}

// A verification that fails names the requests that came closest and
// where they differ (exampleT prints what the test would report).
func ExampleServer_Verify_failure() {
	t := &exampleT{} // in a test: the test's *testing.T
	defer t.finish()

	srv := mocktest.New(t)
	for _, body := range []string{
		`{"feedback":[{"rating":5,"tone":"friendly"}]}`,
		`{"feedback":[{"rating":4,"tone":"formal"}]}`,
	} {
		resp, err := srv.Client().Do(jsonRequest(t, "PATCH", srv.APIURL()+"/settings/ai", body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}

	srv.Verify(t, mocktest.Pattern{Method: "PATCH", Path: "/api/v1/settings/ai",
		Body: map[string]string{"feedback.0.rating": "5", "feedback.0.tone": "formal"}})
	// Output:
	// FAIL: mocktest: requests matching PATCH /api/v1/settings/ai body.feedback.0.rating=5 body.feedback.0.tone=formal: 0, want at least 1
	// nearest misses:
	//   seq 2 PATCH /api/v1/settings/ai (session default): body.feedback.0.rating: want "5", got "4"
	//   seq 1 PATCH /api/v1/settings/ai (session default): body.feedback.0.tone: want "formal", got "friendly"
}

// WaitFor waits for a request the client sends in the background, and
// returns its journal entry.
func ExampleServer_WaitFor() {
	t := &exampleT{} // in a test: the test's *testing.T
	defer t.finish()

	srv := mocktest.New(t)

	// The client code under test polls the unanswered reviews in the
	// background.
	go func() {
		req, err := http.NewRequest("GET", srv.APIURL()+"/feedbacks?answered=0&limit=10", nil)
		if err != nil {
			return
		}
		req.Header.Set("X-Client", "worker")
		if resp, err := srv.Client().Do(req); err == nil {
			resp.Body.Close()
		}
	}()

	e := srv.WaitFor(t, mocktest.Pattern{Path: "/api/v1/feedbacks", Query: map[string]string{"answered": "0"}}, 5*time.Second)
	fmt.Println(e.Method, e.Path, e.Query, e.Headers["X-Client"], e.Status)
	// Output:
	// GET /api/v1/feedbacks answered=0&limit=10 worker 200
}
