// Package wire holds what every part of the server speaks: the
// contract's envelope and errors, strict JSON, and durations.
//
// JSON bodies are read strictly and written without HTML escaping.
// Durations are written as scenario files and admin requests write them.
package wire

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
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
	// CodeTooManyFaults and CodeTooManyReviews are a 409 Conflict:
	// removing some makes room.
	CodeTooManyFaults  = "too_many_faults"
	CodeTooManyReviews = "too_many_reviews"
	// CodeVerificationFailed answers GET /__mock/verify when the journal
	// does not hold what was asked (409 Conflict).
	CodeVerificationFailed = "verification_failed"
	CodeInternal           = "internal_error"
	CodeBadGateway         = "bad_gateway"
	CodeServiceUnavailable = "service_unavailable"
	CodeGatewayTimeout     = "gateway_timeout"
	// CodeStoreUnavailable refuses a write while the shared store is out
	// of reach (503): nothing changed.
	CodeStoreUnavailable = "store_unavailable"
)

// APIError mirrors the error object of the API's envelope:
// {"success":false,"data":null,"error":{"code":...,"message":...,"field":...}}.
type APIError struct {
	Status     int           `json:"-"`
	Code       string        `json:"code"`
	Message    string        `json:"message"`
	Field      string        `json:"field,omitempty"`
	Details    any           `json:"details,omitempty"` // in a shape of the route's own
	RetryAfter time.Duration `json:"-"`                 // sent as Retry-After when set
}

func (e *APIError) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("%d %s: %s: %s", e.Status, e.Code, e.Field, e.Message)
	}
	return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message)
}

// InvalidParameter is a 400 invalid_parameter naming the query parameter field.
func InvalidParameter(field, format string, args ...any) *APIError {
	return &APIError{Status: http.StatusBadRequest, Code: CodeInvalidParameter, Field: field, Message: fmt.Sprintf(format, args...)}
}

// InvalidBody is a 400 invalid_body naming the body's field path.
func InvalidBody(field, format string, args ...any) *APIError {
	return &APIError{Status: http.StatusBadRequest, Code: CodeInvalidBody, Field: field, Message: fmt.Sprintf(format, args...)}
}

// At is err with path before the field an *APIError names ("" for the
// value at path itself, "[2]", ".a" or "a.b" below it); other errors as
// they are.
func At(err error, path string) error {
	ae, ok := err.(*APIError)
	if !ok {
		return err
	}
	c := *ae
	switch {
	case c.Field == "":
		c.Field = path
	case c.Field[0] == '[' || c.Field[0] == '.' || path == "":
		c.Field = path + c.Field
	default:
		c.Field = path + "." + c.Field
	}
	return &c
}

// StatusError returns the envelope error for status with a generic
// message: the contract's code where it names one, else the status text
// in snake case ("418" gives "i_m_a_teapot").
func StatusError(status int) *APIError {
	code, ok := statusCodes[status]
	if !ok {
		code = strings.ToLower(strings.Join(strings.FieldsFunc(http.StatusText(status), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r)
		}), "_"))
	}
	if code == "" {
		code = fmt.Sprintf("status_%d", status)
	}
	return &APIError{Status: status, Code: code, Message: StatusMessage(status)}
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

// StatusMessage is the generic message of a status.
func StatusMessage(status int) string {
	if t := http.StatusText(status); t != "" {
		return strings.ToLower(t)
	}
	return fmt.Sprintf("status %d", status)
}

// ErrReadOnly answers a change in read-only (demo) mode.
var ErrReadOnly = &APIError{Status: http.StatusForbidden, Code: CodeForbidden,
	Message: "this server is read-only (demo mode): changes are switched off"}

// WriteError writes err in the error envelope. An *APIError keeps its
// status; anything else is logged and answered as a 500 internal_error,
// so no internal detail leaks to the client.
func WriteError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		log.Error("internal error", "method", r.Method, "path", r.URL.Path, "err", err)
		apiErr = StatusError(http.StatusInternalServerError)
	}
	if apiErr.RetryAfter > 0 {
		SetRetryAfter(w.Header(), apiErr.RetryAfter)
	}
	WriteJSON(w, apiErr.Status, ErrorEnvelope{Success: false, Data: nil, Error: apiErr})
}

// SetRetryAfter tells a client when to try again, in whole seconds
// rounded up, unless the answer says so already.
func SetRetryAfter(h http.Header, d time.Duration) {
	if h.Get("Retry-After") == "" {
		h.Set("Retry-After", strconv.Itoa(int(math.Ceil(d.Seconds()))))
	}
}

type ErrorEnvelope struct {
	Success bool      `json:"success"`
	Data    any       `json:"data"`
	Error   *APIError `json:"error"`
}

type Envelope struct {
	Success bool `json:"success"`
	Data    any  `json:"data"`
}

// FieldProblem is one problem of a value, at a field path relative to it
// ("" for the value itself).
type FieldProblem struct{ Field, Msg string }

// Prefixed puts the path of the value in front of its problems' fields.
func Prefixed(path string, probs []FieldProblem) []FieldProblem {
	out := make([]FieldProblem, len(probs))
	for i, p := range probs {
		out[i] = FieldProblem{JoinPath(path, p.Field), p.Msg}
		if p.Field == "" {
			out[i].Field = path
		}
	}
	return out
}
