package mock

import (
	"github.com/replymock/replymock/mock/internal/api"
	"github.com/replymock/replymock/mock/internal/generate"
	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/settings"
	"github.com/replymock/replymock/mock/internal/wire"
)

// Feedback is one review record, with the spec's fields in its order.
type Feedback = reviews.Feedback

// Answer states of the reply engine besides the spec's: a semi_auto
// reply waits as a draft.
const (
	AnswerStateDraft = generate.AnswerStateDraft
	StateDraft       = generate.StateDraft
)

// The auto-reply settings of GET /settings/ai.
type (
	// Settings is the data of GET /settings/ai. Feedback[i] holds rating i+1.
	Settings = settings.Settings
	// FeedbackSettings is the settings for one rating.
	FeedbackSettings = settings.FeedbackSettings
	// QuestionSettings is the settings for customer questions.
	QuestionSettings = settings.QuestionSettings
)

// MaxBodyBytes is the largest request body the API accepts.
const MaxBodyBytes = wire.MaxBodyBytes

// Duration is a time.Duration written as a string such as "250ms".
type Duration = wire.Duration

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
