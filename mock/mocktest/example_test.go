package mocktest_test

import (
	"encoding/json"
	"fmt"
	"net/http"

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
