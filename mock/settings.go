package mock

import (
	"github.com/replymock/replymock/mock/internal/settings"
)

// FeedbackSettings is one element of data.feedback: the settings for one rating.
type FeedbackSettings = settings.FeedbackSettings

// QuestionSettings is data.question: the settings for customer questions.
type QuestionSettings = settings.QuestionSettings

// Settings is the data of GET /settings/ai. Feedback[i] holds rating i+1.
type Settings = settings.Settings
