package mock

import (
	"net/http"
	"runtime/debug"

	"github.com/replymock/replymock/mock/internal/wire"
)

// Error codes of the contract's error envelope (see wire, their one source).
const (
	CodeInvalidParameter     = wire.CodeInvalidParameter
	CodeInvalidBody          = wire.CodeInvalidBody
	CodeUnauthorized         = wire.CodeUnauthorized
	CodeForbidden            = wire.CodeForbidden
	CodeNotFound             = wire.CodeNotFound
	CodeMethodNotAllowed     = wire.CodeMethodNotAllowed
	CodePayloadTooLarge      = wire.CodePayloadTooLarge
	CodeUnsupportedMediaType = wire.CodeUnsupportedMediaType
	CodeRateLimited          = wire.CodeRateLimited
	CodeTooManyFaults        = wire.CodeTooManyFaults
	CodeVerificationFailed   = wire.CodeVerificationFailed
	CodeInternal             = wire.CodeInternal
	CodeBadGateway           = wire.CodeBadGateway
	CodeServiceUnavailable   = wire.CodeServiceUnavailable
	CodeGatewayTimeout       = wire.CodeGatewayTimeout
)

// APIError mirrors the error object of the API's envelope:
// {"success":false,"data":null,"error":{"code":...,"message":...,"field":...}}.
type APIError = wire.APIError

// StatusError returns the envelope error for status with a generic
// message: the contract's code where it names one, else the status text
// in snake case ("418" gives "im_a_teapot").
func StatusError(status int) *APIError { return wire.StatusError(status) }

// writeError writes err in the error envelope; see wire.WriteError.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	wire.WriteError(w, r, s.log, err)
}

// recoverPanic, deferred, turns a handler's panic into a logged 500 in
// the envelope (if nothing was sent yet). http.ErrAbortHandler, a
// deliberately dropped connection, goes on up to net/http.
func (s *Server) recoverPanic(w http.ResponseWriter, r *http.Request) {
	v := recover()
	if v == nil {
		return
	}
	if v == http.ErrAbortHandler {
		panic(v)
	}
	s.log.Error("handler panic", "method", r.Method, "path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
	if rec, ok := w.(*recorder); ok {
		rec.discard() // an API answer is held: the 500 replaces what the handler began
	}
	wire.WriteJSON(w, http.StatusInternalServerError, wire.ErrorEnvelope{Error: StatusError(http.StatusInternalServerError)})
}

// clip shortens a value a message quotes; see wire.Clip.
func clip(s string) string { return wire.Clip(s) }
