package settings

// FeedbackSettings is one element of data.feedback: the settings for one rating.
type FeedbackSettings struct {
	Rating             int     `json:"rating" yaml:"rating"`
	ReplyMode          string  `json:"reply_mode" yaml:"reply_mode"`
	Signature          string  `json:"signature" yaml:"signature"`
	Tone               string  `json:"tone" yaml:"tone"`
	ExcludedWords      string  `json:"excluded_words" yaml:"excluded_words"`
	RequiredWords      string  `json:"required_words" yaml:"required_words"`
	EmptyReviewMode    string  `json:"empty_review_mode" yaml:"empty_review_mode"`
	UseUnifiedSettings int     `json:"use_unified_settings" yaml:"use_unified_settings"`
	ReplyFromDate      *string `json:"reply_from_date" yaml:"reply_from_date"`
	AIInstructions     string  `json:"ai_instructions" yaml:"ai_instructions"`
}

// QuestionSettings is data.question: the settings for customer questions.
type QuestionSettings struct {
	ReplyMode      string  `json:"reply_mode" yaml:"reply_mode"`
	Signature      string  `json:"signature" yaml:"signature"`
	Tone           string  `json:"tone" yaml:"tone"`
	ExcludedWords  string  `json:"excluded_words" yaml:"excluded_words"`
	RequiredWords  string  `json:"required_words" yaml:"required_words"`
	ReplyFromDate  *string `json:"reply_from_date" yaml:"reply_from_date"`
	AIInstructions string  `json:"ai_instructions" yaml:"ai_instructions"`
}

// Settings is the data of GET /settings/ai. Feedback[i] holds rating i+1.
// A Settings value is copied freely: its only pointers are to dates, which
// are replaced, never changed in place.
type Settings struct {
	Feedback [5]FeedbackSettings `json:"feedback" yaml:"feedback"`
	Question QuestionSettings    `json:"question" yaml:"question"`
}

// Rules are a scenario's constraints on settings values, beyond the
// field table's own.
type Rules struct {
	// Tones are the allowed tones; empty means any non-empty text.
	Tones []string
}

// Length limits of settings fields, in characters.
const (
	MaxSignature = 255
	MaxTone      = 64
	MaxLongText  = 2000
)
