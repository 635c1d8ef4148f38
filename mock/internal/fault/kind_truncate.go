package fault

import (
	"bytes"
	"net/http"
	"strconv"
)

// truncateKind sends the real answer with half its body, then closes the
// connection. It cuts any answer, a 401 or 429 too.
var truncateKind = Kind{
	Name:  "truncate",
	in:    func(f *Fault) bool { return f.Truncate },
	label: func(*Fault) string { return "truncate" },
	wrap: func(w http.ResponseWriter, _ *Fault) (http.ResponseWriter, func()) {
		buf := &bufferWriter{header: make(http.Header)}
		return buf, func() { writeTruncated(w, buf) }
	},
}

// writeTruncated sends buf's headers and a Content-Length for its whole
// body, then half the body, then closes the connection.
func writeTruncated(w http.ResponseWriter, buf *bufferWriter) {
	for k, v := range buf.header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Length", strconv.Itoa(buf.body.Len()))
	w.WriteHeader(buf.status)
	w.Write(buf.body.Bytes()[:buf.body.Len()/2])
	http.NewResponseController(w).Flush()
	panic(http.ErrAbortHandler)
}

// bufferWriter holds a whole response in memory.
type bufferWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferWriter) Header() http.Header { return b.header }

func (b *bufferWriter) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}

func (b *bufferWriter) WriteHeader(code int) {
	if b.status == 0 && code >= 200 { // an informational answer is not the answer
		b.status = code
	}
}
