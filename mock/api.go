package mock

import (
	"github.com/replymock/replymock/mock/internal/api"
	"github.com/replymock/replymock/mock/internal/reviews"
)

// The API itself (its operation table, one file per operation, the way a
// request goes, the warnings, the metrics) is package api's; here are
// its public names.

// Feedback is one review record, field for field as in the spec (2.3),
// in the spec's order.
type Feedback = reviews.Feedback

// Bounds of the list's query parameters.
const (
	DefaultLimit    = api.DefaultLimit
	MaxLimit        = api.MaxLimit
	MaxSearchLength = api.MaxSearchLength
)

// HeaderWarning carries an API request's warnings in its answer, one
// value per warning: 299 replymock "TEXT", as the HTTP Warning header
// wrote them (RFC 7234), so that values a client joins with ", " stay
// apart.
const HeaderWarning = api.HeaderWarning

// Bounds of a request's warnings: past MaxWarnings, one more says how
// many were left out; a warning's text is cut to MaxWarningLength bytes.
const (
	MaxWarnings      = api.MaxWarnings
	MaxWarningLength = api.MaxWarningLength
)
