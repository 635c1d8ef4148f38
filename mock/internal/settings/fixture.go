package settings

import (
	"github.com/replymock/replymock/mock/internal/yamlfile"
)

// settingsFile is a settings fixture (kind: settings): the GET shape.
type settingsFile struct {
	Kind     string             `yaml:"kind"`
	Feedback []FeedbackSettings `yaml:"feedback"`
	Question QuestionSettings   `yaml:"question"`
}

// DecodeFixture decodes a settings fixture named display in problems.
func DecodeFixture(display string, data []byte, rules Rules) (Settings, error) {
	var sf settingsFile
	yf := yamlfile.Decode(display, data, &sf)
	if !yf.Checkable() {
		return Settings{}, yf.Err()
	}
	if sf.Kind != "settings" {
		yf.Problemf("kind", "must be \"settings\" in a settings fixture, got %q", sf.Kind)
	}
	var st Settings
	if len(sf.Feedback) != 5 {
		yf.Problemf("feedback", "must have exactly 5 elements, one per rating 1 to 5; got %d", len(sf.Feedback))
		return Settings{}, yf.Err()
	}
	copy(st.Feedback[:], sf.Feedback)
	st.Question = sf.Question
	for _, e := range st.Validate(rules) {
		yf.Problemf(e.Field, "%s", e.Message)
	}
	return st, yf.Err()
}
