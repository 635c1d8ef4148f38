package mock_test

import (
	"net/http/httptest"
	"testing"

	"github.com/replymock/replymock/mock"
)

// BenchmarkServeDefaultPage measures the whole handler for the default
// first page: routing, session, faults, journal, query, page.
func BenchmarkServeDefaultPage(b *testing.B) {
	s, err := mock.New(mock.Options{})
	if err != nil {
		b.Fatal(err)
	}
	req := httptest.NewRequest("GET", "/api/v1/feedbacks", nil)
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
	}
}
