package mocktest_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

func jsonBody(s string) io.Reader { return strings.NewReader(s) }

// jsonRequest makes a request with a JSON body.
func jsonRequest(t testing.TB, method, url, body string) *http.Request {
	req, err := http.NewRequest(method, url, jsonBody(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	return req
}

// exampleT stands in for a test's *testing.T in the examples, which get
// none, so that an example's body reads as a test's does. Fatal and
// Fatalf panic, which fails the example; Errorf prints, which fails it by
// its output; finish runs the cleanups, last first, as a test's end does.
// The embedded testing.TB is nil: other methods are not for examples.
type exampleT struct {
	testing.TB
	cleanups []func()
}

func (t *exampleT) Helper()                           {}
func (t *exampleT) Name() string                      { return "Example" }
func (t *exampleT) Cleanup(f func())                  { t.cleanups = append(t.cleanups, f) }
func (t *exampleT) Fatal(args ...any)                 { panic(fmt.Sprint(args...)) }
func (t *exampleT) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (t *exampleT) Errorf(format string, args ...any) {
	fmt.Printf("FAIL: "+format+"\n", args...)
}

func (t *exampleT) finish() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}
