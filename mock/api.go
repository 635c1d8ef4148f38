package mock

import (
	"github.com/replymock/replymock/mock/internal/api"
	"github.com/replymock/replymock/mock/internal/reviews"
)

// Feedback is one review record, with the spec's fields in its order.
type Feedback = reviews.Feedback

// Bounds of the list's query parameters.
const (
	DefaultLimit    = api.DefaultLimit
	MaxLimit        = api.MaxLimit
	MaxSearchLength = api.MaxSearchLength
)

// HeaderWarning carries an API request's warnings, one value each.
const HeaderWarning = api.HeaderWarning

// Bounds of a request's warnings: how many, and how long each.
const (
	MaxWarnings      = api.MaxWarnings
	MaxWarningLength = api.MaxWarningLength
)
