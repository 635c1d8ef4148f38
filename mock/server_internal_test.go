package mock

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/replymock/replymock/mock/internal/wire"
)

// A panic in a handler becomes a logged 500 in the envelope, and the
// server keeps serving.
func TestHandlerPanic(t *testing.T) {
	var logs bytes.Buffer
	s, err := New(Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	s.router.HandleFunc("/api/v1/boom", func(http.ResponseWriter, *http.Request) { panic("boom") })
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("GET", "/api/v1/boom", nil))
	if rec.Code != 500 || !strings.Contains(rec.Body.String(), `"code":"internal_error"`) {
		t.Errorf("panic answered %d %s", rec.Code, rec.Body)
	}
	if !strings.Contains(logs.String(), "handler panic") || !strings.Contains(logs.String(), "boom") {
		t.Errorf("panic not logged: %s", logs.String())
	}
	rec = httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("GET", "/api/v1/feedbacks?limit=1", nil))
	if rec.Code != 200 {
		t.Errorf("after the panic: %d", rec.Code)
	}
	if e := s.Requests(JournalFilter{Path: "/api/v1/boom"}); len(e) != 1 || e[0].Status != 500 {
		t.Errorf("journal of the panicking request: %+v", e)
	}
	// A handler that began its answer and then panicked: the answer is
	// held until the journal has it, so the 500 replaces it whole.
	s.router.HandleFunc("/api/v1/halfway", func(w http.ResponseWriter, _ *http.Request) {
		wire.WriteBody(w, http.StatusOK, []byte(`{"success":true,"data":{"half":`))
		panic("halfway")
	})
	rec = httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("GET", "/api/v1/halfway", nil))
	if rec.Code != 500 || !strings.HasPrefix(rec.Body.String(), `{"success":false`) || strings.Contains(rec.Body.String(), "half") {
		t.Errorf("a panic halfway answered %d %s, want only the 500 envelope", rec.Code, rec.Body)
	}
	if e := s.Requests(JournalFilter{Path: "/api/v1/halfway"}); len(e) != 1 || e[0].Status != 500 || strings.Contains(e[0].Response, "half") {
		t.Errorf("journal of the panicking request: %+v", e)
	}
}
