package mock

import (
	"github.com/replymock/replymock/mock/internal/settings"
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
