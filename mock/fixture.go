package mock

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/replymock/replymock/mock/internal/reviews"
)

// reviewsFile is a fixture of hand-written reviews (kind: reviews).
type reviewsFile struct {
	Kind    string          `yaml:"kind"`
	Reviews []reviewFixture `yaml:"reviews"`
}

// reviewFixture is a review as written in a fixture: lists are YAML lists
// (the API carries them as JSON text), and derived fields may be omitted.
type reviewFixture struct {
	FeedbackID       string         `yaml:"feedback_id"`
	NmID             int64          `yaml:"nm_id"`
	ImtID            int64          `yaml:"imt_id"`
	Text             string         `yaml:"text"`
	Pros             string         `yaml:"pros"`
	Cons             string         `yaml:"cons"`
	ProductValuation int            `yaml:"product_valuation"`
	ValuationTags    []string       `yaml:"valuation_tags"`
	CreatedDate      string         `yaml:"created_date"`
	AnswerText       string         `yaml:"answer_text"`
	AnswerState      *string        `yaml:"answer_state"`
	ProductName      string         `yaml:"product_name"`
	SupplierArticle  string         `yaml:"supplier_article"`
	BrandName        string         `yaml:"brand_name"`
	Photos           []string       `yaml:"photos"`
	Video            map[string]any `yaml:"video"`
	UserName         string         `yaml:"user_name"`
	WasViewed        *int           `yaml:"was_viewed"`
	State            *string        `yaml:"state"`
	CreatedAt        string         `yaml:"created_at"`
}

func decodeReviews(display string, data []byte) ([]Feedback, error) {
	var rf reviewsFile
	yf := decodeYAML(display, data, &rf)
	if yf.root == nil || len(yf.problems) > 0 {
		return nil, yf.err()
	}
	if rf.Kind != "reviews" {
		yf.problemf("kind", "must be \"reviews\" in a reviews fixture, got %q", rf.Kind)
	}
	fbs := make([]Feedback, 0, len(rf.Reviews))
	seen := make(map[string]int)
	for i, r := range rf.Reviews {
		p := fmt.Sprintf("reviews[%d]", i)
		f, problems := r.toFeedback()
		for _, pr := range problems {
			yf.problemf(p+"."+pr.field, "%s", pr.msg)
		}
		if j, dup := seen[r.FeedbackID]; dup && r.FeedbackID != "" {
			yf.problemf(p+".feedback_id", "%q is already used by reviews[%d]", r.FeedbackID, j)
		}
		seen[r.FeedbackID] = i
		fbs = append(fbs, f)
	}
	if err := yf.err(); err != nil {
		return nil, err
	}
	return fbs, nil
}

// toFeedback checks a fixture review and fills its derived fields.
func (r reviewFixture) toFeedback() (Feedback, []fieldProblem) {
	var probs []fieldProblem
	bad := func(field, format string, args ...any) {
		probs = append(probs, fieldProblem{field, fmt.Sprintf(format, args...)})
	}
	if r.FeedbackID == "" {
		bad("feedback_id", "required")
	}
	if r.NmID <= 0 {
		bad("nm_id", "required: a positive integer")
	}
	if r.ImtID < 0 {
		bad("imt_id", "must be a positive integer")
	}
	if r.ProductValuation < 1 || r.ProductValuation > 5 {
		bad("product_valuation", "must be 1 to 5, got %d", r.ProductValuation)
	}
	if r.ProductName == "" {
		bad("product_name", "required")
	}
	created, err := time.Parse(reviews.TimestampLayout, r.CreatedDate)
	if err != nil {
		bad("created_date", "must be a timestamp YYYY-MM-DD HH:MM:SS, got %q", r.CreatedDate)
	}
	createdAt := r.CreatedAt
	if createdAt == "" {
		createdAt = r.CreatedDate
	} else if t, err := time.Parse(reviews.TimestampLayout, createdAt); err != nil {
		bad("created_at", "must be a timestamp YYYY-MM-DD HH:MM:SS, got %q", createdAt)
	} else if t.Before(created) {
		bad("created_at", "must not be before created_date")
	}
	answerState, state := "", "new"
	if r.AnswerText != "" {
		answerState, state = "sent", "done"
	}
	if r.AnswerState != nil {
		answerState = *r.AnswerState
	}
	if r.State != nil {
		state = *r.State
	}
	wasViewed := 1
	if r.WasViewed != nil {
		wasViewed = *r.WasViewed
		if wasViewed != 0 && wasViewed != 1 {
			bad("was_viewed", "must be 0 or 1, got %d", wasViewed)
		}
	}
	video := json.RawMessage("null")
	if r.Video != nil {
		js, err := marshalJSON(r.Video)
		if err != nil {
			bad("video", "cannot be written as JSON: %v", err)
		}
		video = js
	}
	return Feedback{
		FeedbackID: r.FeedbackID, NmID: r.NmID, ImtID: r.ImtID,
		Text: r.Text, Pros: r.Pros, Cons: r.Cons,
		ProductValuation: r.ProductValuation,
		ValuationTags:    jsonList(r.ValuationTags),
		CreatedDate:      r.CreatedDate,
		AnswerText:       r.AnswerText, AnswerState: answerState,
		ProductName: r.ProductName, SupplierArticle: r.SupplierArticle, BrandName: r.BrandName,
		Photos: jsonList(r.Photos), Video: video,
		UserName: r.UserName, WasViewed: wasViewed, State: state, CreatedAt: createdAt,
	}, probs
}

// jsonList is the JSON text of a list of strings; nil gives "[]".
func jsonList(items []string) string {
	return string(reviews.AppendJSONList(nil, items))
}

// settingsFile is a settings fixture (kind: settings): the GET shape.
type settingsFile struct {
	Kind     string             `yaml:"kind"`
	Feedback []FeedbackSettings `yaml:"feedback"`
	Question QuestionSettings   `yaml:"question"`
}

func decodeSettingsFixture(display string, data []byte, rules settingsRules) (Settings, error) {
	var sf settingsFile
	yf := decodeYAML(display, data, &sf)
	if yf.root == nil || len(yf.problems) > 0 {
		return Settings{}, yf.err()
	}
	if sf.Kind != "settings" {
		yf.problemf("kind", "must be \"settings\" in a settings fixture, got %q", sf.Kind)
	}
	var st Settings
	if len(sf.Feedback) != 5 {
		yf.problemf("feedback", "must have exactly 5 elements, one per rating 1 to 5; got %d", len(sf.Feedback))
		return Settings{}, yf.err()
	}
	copy(st.Feedback[:], sf.Feedback)
	st.Question = sf.Question
	for _, e := range st.validate(rules) {
		yf.problemf(e.Field, "%s", e.Message)
	}
	return st, yf.err()
}
