package mocktest_test

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

func jsonBody(s string) io.Reader { return strings.NewReader(s) }

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
