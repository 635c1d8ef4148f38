package mock

import (
	"net/http"

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
