package record_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/replymock/replymock/mock"
)

// fastRate lets tests run at the speed of the machine: the limiter's
// spacing is a microsecond.
const fastRate = 1e6

// newMock is replymock with the given options.
func newMock(t *testing.T, opts mock.Options) *mock.Server {
	t.Helper()
	s, err := mock.New(opts)
	if err != nil {
		t.Fatalf("mock.New: %v", err)
	}
	return s
}

// serve starts h on loopback and returns its URL up to /api/v1.
func serve(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL + "/api/v1"
}
