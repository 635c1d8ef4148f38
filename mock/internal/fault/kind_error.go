package fault

import (
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/replymock/replymock/mock/internal/wire"
	"golang.org/x/net/http/httpguts"
)

// errorKind answers with an error status in place of the API.
var errorKind = Kind{
	Name:   "error",
	in:     func(f *Fault) bool { return f.Error != nil },
	check:  func(f *Fault, p *problems) { f.Error.check(p) },
	label:  func(f *Fault) string { return fmt.Sprintf("error %d", f.Error.Status) },
	size:   func(f *Fault) int64 { return f.Error.size() },
	answer: func(w http.ResponseWriter, f *Fault) { f.Error.write(w) },
}

// ErrorAnswer is an injected error answer. Without Body, the body is the
// contract's error envelope for Status.
type ErrorAnswer struct {
	Status  int               `json:"status" yaml:"status"`
	Body    *string           `json:"body,omitempty" yaml:"body"`
	Headers map[string]string `json:"headers,omitempty" yaml:"headers"`
}

func (e *ErrorAnswer) check(p *problems) {
	if e.Status < 400 || e.Status > 599 {
		p.add("error.status", "must be an error status from 400 to 599, got %d", e.Status)
	}
	for k, v := range e.Headers {
		switch {
		case !httpguts.ValidHeaderFieldName(k):
			p.add("error.headers", "bad header name %q", k)
		case !httpguts.ValidHeaderFieldValue(v):
			p.add("error.headers."+k, "bad header value %q: no control characters such as CR or LF", v)
		}
	}
}

func (e *ErrorAnswer) size() int64 {
	var n int64
	if e.Body != nil {
		n += int64(len(*e.Body))
	}
	for k, v := range e.Headers {
		n += int64(64 + len(k) + len(v))
	}
	return n
}

// write sends the injected error: its body, or the contract's envelope
// for its status. A 429 gets Retry-After and a 401 WWW-Authenticate,
// unless the answer sets them.
func (e *ErrorAnswer) write(w http.ResponseWriter) {
	h := w.Header()
	for k, v := range e.Headers {
		h.Set(k, v)
	}
	if e.Status == http.StatusTooManyRequests && h.Get("Retry-After") == "" {
		h.Set("Retry-After", "1")
	}
	if e.Status == http.StatusUnauthorized && h.Get("WWW-Authenticate") == "" {
		h.Set("WWW-Authenticate", `Bearer realm="replymock"`)
	}
	if e.Body == nil {
		wire.WriteJSON(w, e.Status, wire.ErrorEnvelope{Error: wire.StatusError(e.Status)})
		return
	}
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", wire.ContentTypeJSON)
	}
	h.Set("Content-Length", strconv.Itoa(len(*e.Body)))
	w.WriteHeader(e.Status)
	io.WriteString(w, *e.Body)
}
