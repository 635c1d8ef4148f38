package mock

import (
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"strings"
	"time"
)

// Error codes of the contract's error envelope.
const (
	CodeInvalidParameter     = "invalid_parameter"
	CodeInvalidBody          = "invalid_body"
	CodeUnauthorized         = "unauthorized"
	CodeForbidden            = "forbidden"
	CodeNotFound             = "not_found"
	CodeMethodNotAllowed     = "method_not_allowed"
	CodePayloadTooLarge      = "payload_too_large"
	CodeUnsupportedMediaType = "unsupported_media_type"
	CodeRateLimited          = "rate_limited"
	// CodeTooManyFaults refuses a run-time fault past MaxRuntimeFaults or
	// MaxRuntimeFaultBytes (409 Conflict: removing some makes room).
	CodeTooManyFaults = "too_many_faults"
	// CodeVerificationFailed answers GET /__mock/verify when the journal
	// does not hold what was asked (409 Conflict), with what it holds in
	// error.details.
	CodeVerificationFailed = "verification_failed"
	CodeInternal           = "internal_error"
	CodeBadGateway         = "bad_gateway"
	CodeServiceUnavailable = "service_unavailable"
	CodeGatewayTimeout     = "gateway_timeout"
)

// APIError mirrors the error object of the API's envelope:
// {"success":false,"data":null,"error":{"code":...,"message":...,"field":...}}.
type APIError struct {
	Status  int    `json:"-"`
	Code    string `json:"code"`
	Message string `json:"message"`
	Field   string `json:"field,omitempty"`
	// Details, when set, says more in a shape of the route's own (a
	// failed verification's counts and near misses).
	Details any `json:"details,omitempty"`
	// RetryAfter, when set, is sent as Retry-After in whole seconds.
	RetryAfter time.Duration `json:"-"`
}

func (e *APIError) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("%d %s: %s: %s", e.Status, e.Code, e.Field, e.Message)
	}
	return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message)
}

func invalidParameter(field, format string, args ...any) *APIError {
	return &APIError{Status: http.StatusBadRequest, Code: CodeInvalidParameter, Field: field, Message: fmt.Sprintf(format, args...)}
}

func invalidBody(field, format string, args ...any) *APIError {
	return &APIError{Status: http.StatusBadRequest, Code: CodeInvalidBody, Field: field, Message: fmt.Sprintf(format, args...)}
}

// StatusError returns the envelope error for status with a generic
// message: the contract's code where it names one, else the status text
// in snake case ("418" gives "im_a_teapot").
func StatusError(status int) *APIError {
	code, ok := statusCodes[status]
	if !ok {
		code = strings.ReplaceAll(strings.ToLower(strings.Trim(strings.Map(func(r rune) rune {
			if r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
				return r
			}
			return ' '
		}, http.StatusText(status)), " ")), " ", "_")
	}
	if code == "" {
		code = fmt.Sprintf("status_%d", status)
	}
	return &APIError{Status: status, Code: code, Message: statusMessage(status)}
}

var statusCodes = map[int]string{
	http.StatusBadRequest:            CodeInvalidParameter,
	http.StatusUnauthorized:          CodeUnauthorized,
	http.StatusForbidden:             CodeForbidden,
	http.StatusNotFound:              CodeNotFound,
	http.StatusMethodNotAllowed:      CodeMethodNotAllowed,
	http.StatusRequestEntityTooLarge: CodePayloadTooLarge,
	http.StatusUnsupportedMediaType:  CodeUnsupportedMediaType,
	http.StatusTooManyRequests:       CodeRateLimited,
	http.StatusInternalServerError:   CodeInternal,
	http.StatusBadGateway:            CodeBadGateway,
	http.StatusServiceUnavailable:    CodeServiceUnavailable,
	http.StatusGatewayTimeout:        CodeGatewayTimeout,
}

func statusMessage(status int) string {
	if t := http.StatusText(status); t != "" {
		return strings.ToLower(t)
	}
	return fmt.Sprintf("status %d", status)
}

// errReadOnly answers a change in read-only (demo) mode.
var errReadOnly = &APIError{Status: http.StatusForbidden, Code: CodeForbidden,
	Message: "this server is read-only (demo mode): changes are switched off"}

// writeError writes err in the error envelope. An *APIError keeps its status;
// anything else is logged and answered as a 500 internal_error, so no
// internal detail leaks to the client.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		s.log.Error("internal error", "method", r.Method, "path", r.URL.Path, "err", err)
		apiErr = StatusError(http.StatusInternalServerError)
	}
	if apiErr.RetryAfter > 0 {
		setRetryAfter(w.Header(), apiErr.RetryAfter)
	}
	writeJSON(w, apiErr.Status, errorEnvelope{Success: false, Data: nil, Error: apiErr})
}

type errorEnvelope struct {
	Success bool      `json:"success"`
	Data    any       `json:"data"`
	Error   *APIError `json:"error"`
}

type envelope struct {
	Success bool `json:"success"`
	Data    any  `json:"data"`
}

// fieldProblem is one problem of a value, at a field path relative to it
// ("" for the value itself).
type fieldProblem struct{ field, msg string }

// prefixed puts the path of the value in front of its problems' fields.
func prefixed(path string, probs []fieldProblem) []fieldProblem {
	out := make([]fieldProblem, len(probs))
	for i, p := range probs {
		out[i] = fieldProblem{joinPath(path, p.field), p.msg}
		if p.field == "" {
			out[i].field = path
		}
	}
	return out
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
	writeJSON(w, http.StatusInternalServerError, errorEnvelope{Error: StatusError(http.StatusInternalServerError)})
}
