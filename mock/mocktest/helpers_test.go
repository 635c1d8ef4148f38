package mocktest_test

import (
	"io"
	"strings"
)

func jsonBody(s string) io.Reader { return strings.NewReader(s) }
