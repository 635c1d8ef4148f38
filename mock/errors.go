package mock

import (
	"net/http"

	"github.com/replymock/replymock/mock/internal/wire"
)

// Error codes of the contract's error envelope.
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

// APIError is the error object of the API's envelope.
type APIError = wire.APIError

// StatusError returns the envelope error for status, with a generic
// message.
func StatusError(status int) *APIError { return wire.StatusError(status) }

// writeError writes err in the error envelope.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	wire.WriteError(w, r, s.log, err)
}
