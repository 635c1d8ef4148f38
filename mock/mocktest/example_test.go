package mocktest_test

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/mock/mocktest"
)

// A client's retry logic meets two failures, then the real answer; the
// journal shows what the client sent.
func Example() {
	srv, err := mocktest.Start()
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	srv.Mock.AddFault(mock.AllSessions, mock.Fault{Method: "GET", Path: "/feedbacks", Times: 2,
		Error: &mock.FaultError{Status: http.StatusServiceUnavailable}})

	for attempt := 1; attempt <= 3; attempt++ {
		resp, err := srv.Client().Get(srv.APIURL() + "/feedbacks?limit=1")
		if err != nil {
			panic(err)
		}
		resp.Body.Close()
		fmt.Println("attempt", attempt, resp.StatusCode)
	}
	for _, e := range srv.Requests(mock.JournalFilter{Path: "/api/v1/feedbacks"}) {
		fmt.Println(e.Method, e.Path+"?"+e.Query, e.Status, e.Fault)
	}
	// Output:
	// attempt 1 503
	// attempt 2 503
	// attempt 3 200
	// GET /api/v1/feedbacks?limit=1 503 error 503
	// GET /api/v1/feedbacks?limit=1 503 error 503
	// GET /api/v1/feedbacks?limit=1 200
}

// A scenario picked for the whole server: here every request needs a token.
func Example_scenario() {
	srv, err := mocktest.Start(mocktest.WithScenario("unauthorized"))
	if err != nil {
		panic(err)
	}
	defer srv.Close()

	resp, err := srv.Client().Get(srv.APIURL() + "/settings/ai")
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println("without token:", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))

	req, _ := http.NewRequest("GET", srv.APIURL()+"/settings/ai", nil)
	req.Header.Set("Authorization", "Bearer demo-token")
	resp, err = srv.Client().Do(req)
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var body struct {
		Data mock.Settings `json:"data"`
	}
	json.NewDecoder(resp.Body).Decode(&body)
	fmt.Println("with token:", resp.StatusCode, len(body.Data.Feedback), "rating settings")
	// Output:
	// without token: 401 Bearer realm="replymock"
	// with token: 200 5 rating settings
}

// Parallel tests share nothing when each has its own session: here two
// sessions of one server change their settings independently.
func Example_sessions() {
	srv, err := mocktest.Start()
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	tone := func(session string) string {
		req, _ := http.NewRequest("GET", srv.APIURL()+"/settings/ai", nil)
		req.Header.Set(mock.HeaderSession, session)
		resp, err := srv.Client().Do(req)
		if err != nil {
			panic(err)
		}
		defer resp.Body.Close()
		var body struct {
			Data mock.Settings `json:"data"`
		}
		json.NewDecoder(resp.Body).Decode(&body)
		return body.Data.Feedback[4].Tone
	}
	req, _ := http.NewRequest("PATCH", srv.APIURL()+"/settings/ai",
		jsonBody(`{"feedback":[{"rating":5,"tone":"formal"}]}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(mock.HeaderSession, "test-a")
	resp, err := srv.Client().Do(req)
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	fmt.Println("test-a:", tone("test-a"))
	fmt.Println("test-b:", tone("test-b"))
	// Output:
	// test-a: formal
	// test-b: friendly
}
