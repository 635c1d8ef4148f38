package content

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/replymock/replymock/mock/internal/media"
	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/wire"
	"github.com/replymock/replymock/mock/internal/yamlfile"
)

// reviewsFile is a fixture of hand-written reviews (kind: reviews).
type reviewsFile struct {
	Kind    string          `yaml:"kind"`
	Reviews []ReviewFixture `yaml:"reviews"`
}

// ReviewFixture is a review as written in a fixture: lists are YAML lists
// (the API carries them as JSON text), and derived fields may be omitted.
type ReviewFixture struct {
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
	Photos           []PhotoFixture `yaml:"photos"`
	Video            *VideoFixture  `yaml:"video"`
	UserName         string         `yaml:"user_name"`
	WasViewed        *int           `yaml:"was_viewed"`
	State            *string        `yaml:"state"`
	CreatedAt        string         `yaml:"created_at"`
}

// DecodeReviews decodes a reviews fixture (kind: reviews) named display
// in problems: every review checked, its media under urls.
func DecodeReviews(display string, data []byte, urls media.URLs) ([]reviews.Feedback, error) {
	var rf reviewsFile
	yf := yamlfile.Decode(display, data, &rf)
	if !yf.Checkable() {
		return nil, yf.Err()
	}
	if rf.Kind != "reviews" {
		yf.Problemf("kind", "must be \"reviews\" in a reviews fixture, got %q", rf.Kind)
	}
	fbs := make([]reviews.Feedback, 0, len(rf.Reviews))
	seen := make(map[string]int)
	for i, r := range rf.Reviews {
		p := fmt.Sprintf("reviews[%d]", i)
		f, problems := r.Feedback(urls)
		for _, pr := range problems {
			yf.Problemf(p+"."+pr.Field, "%s", pr.Msg)
		}
		if j, dup := seen[r.FeedbackID]; dup && r.FeedbackID != "" {
			yf.Problemf(p+".feedback_id", "%q is already used by reviews[%d]", r.FeedbackID, j)
		}
		seen[r.FeedbackID] = i
		fbs = append(fbs, f)
	}
	if err := yf.Err(); err != nil {
		return nil, err
	}
	return fbs, nil
}

// Feedback checks a fixture review and returns its record, with its
// derived fields filled; media paths become URLs under the public URL.
// Problems name fields as the fixture writes them.
func (r ReviewFixture) Feedback(urls media.URLs) (reviews.Feedback, []wire.FieldProblem) {
	var probs []wire.FieldProblem
	bad := func(field, format string, args ...any) {
		probs = append(probs, wire.FieldProblem{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	r.checkFields(false, bad)
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
	}
	r.checkFields(true, bad)
	probs = append(probs, tagProblems("valuation_tags", r.ValuationTags)...)
	photos, video := r.resolveMedia(urls, bad)
	probs = append(probs, r.textProblems()...)
	return reviews.Feedback{
		FeedbackID: r.FeedbackID, NmID: r.NmID, ImtID: r.ImtID,
		Text: r.Text, Pros: r.Pros, Cons: r.Cons,
		ProductValuation: r.ProductValuation,
		ValuationTags:    jsonList(r.ValuationTags),
		CreatedDate:      r.CreatedDate,
		AnswerText:       r.AnswerText, AnswerState: answerState,
		ProductName: r.ProductName, SupplierArticle: r.SupplierArticle, BrandName: r.BrandName,
		Photos: photos, Video: video,
		UserName: r.UserName, WasViewed: wasViewed, State: state, CreatedAt: createdAt,
	}, probs
}

// resolveMedia resolves the review's photos and video against urls, as the
// record's JSON carries them; bad collects what is wrong.
func (r ReviewFixture) resolveMedia(urls media.URLs, bad func(field, format string, args ...any)) (string, json.RawMessage) {
	photos := make([]media.Photo, len(r.Photos))
	for i, p := range r.Photos {
		at := fmt.Sprintf("photos[%d].", i)
		var msg string
		if photos[i].FullSize, msg = urls.ResolvePhoto(p.FullSize, media.SizeFull); msg != "" {
			bad(at+"fullSize", "%s", msg)
		}
		if photos[i].MiniSize, msg = urls.ResolvePhoto(p.MiniSize, media.SizeMini); msg != "" {
			bad(at+"miniSize", "%s", msg)
		}
	}
	video := json.RawMessage("null")
	if v := r.Video; v != nil {
		var out media.Video
		var msg string
		if out.PreviewImage, msg = urls.ResolvePreview(v.PreviewImage); msg != "" {
			bad("video.previewImage", "%s", msg)
		}
		if v.DurationSec < 1 || v.DurationSec > media.MaxVideoSecs {
			bad("video.durationSec", "must be the video's length in seconds, 1 to %d, got %d", media.MaxVideoSecs, v.DurationSec)
		} else if out.Link, msg = urls.ResolvePlaylist(v.Link, v.DurationSec); msg != "" {
			bad("video.link", "%s", msg)
		}
		out.DurationSec = v.DurationSec
		video = media.VideoJSON(out)
	}
	return media.PhotosJSON(photos), video
}

// jsonList is the JSON text of a list of strings; nil gives "[]".
func jsonList(items []string) string {
	return string(reviews.AppendJSONList(nil, items))
}
