package mock

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/replymock/replymock/mock/internal/media"
	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/settings"
	"github.com/replymock/replymock/mock/internal/wire"
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
	Photos           []photoFixture `yaml:"photos"`
	Video            *videoFixture  `yaml:"video"`
	UserName         string         `yaml:"user_name"`
	WasViewed        *int           `yaml:"was_viewed"`
	State            *string        `yaml:"state"`
	CreatedAt        string         `yaml:"created_at"`
}

func decodeReviews(display string, data []byte, urls media.URLs) ([]Feedback, error) {
	var rf reviewsFile
	yf := decodeYAML(display, data, &rf)
	if !yf.checkable() {
		return nil, yf.err()
	}
	if rf.Kind != "reviews" {
		yf.problemf("kind", "must be \"reviews\" in a reviews fixture, got %q", rf.Kind)
	}
	fbs := make([]Feedback, 0, len(rf.Reviews))
	seen := make(map[string]int)
	for i, r := range rf.Reviews {
		p := fmt.Sprintf("reviews[%d]", i)
		f, problems := r.toFeedback(urls)
		for _, pr := range problems {
			yf.problemf(p+"."+pr.Field, "%s", pr.Msg)
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

// toFeedback checks a fixture review and fills its derived fields; media
// paths become URLs under the public URL.
func (r reviewFixture) toFeedback(urls media.URLs) (Feedback, []wire.FieldProblem) {
	var probs []wire.FieldProblem
	bad := func(field, format string, args ...any) {
		probs = append(probs, wire.FieldProblem{Field: field, Msg: fmt.Sprintf(format, args...)})
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
	probs = append(probs, tagProblems("valuation_tags", r.ValuationTags)...)
	photos := make([]Photo, len(r.Photos))
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
		var out Video
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
	probs = append(probs, r.textProblems()...)
	return Feedback{
		FeedbackID: r.FeedbackID, NmID: r.NmID, ImtID: r.ImtID,
		Text: r.Text, Pros: r.Pros, Cons: r.Cons,
		ProductValuation: r.ProductValuation,
		ValuationTags:    jsonList(r.ValuationTags),
		CreatedDate:      r.CreatedDate,
		AnswerText:       r.AnswerText, AnswerState: answerState,
		ProductName: r.ProductName, SupplierArticle: r.SupplierArticle, BrandName: r.BrandName,
		Photos: media.PhotosJSON(photos), Video: video,
		UserName: r.UserName, WasViewed: wasViewed, State: state, CreatedAt: createdAt,
	}, probs
}

// Bounds of a review record's fields, in characters (lists: entries),
// for fixtures and seeded reviews alike: room for any real review (the
// longest edge case is about 4,000 characters), not for a whole file in
// one field.
const (
	maxReviewText  = 10_000 // text, pros, cons, answer_text
	maxReviewName  = 500    // product_name, supplier_article, brand_name, user_name
	maxFeedbackID  = 64
	maxReviewState = 32   // answer_state, state
	maxListEntries = 20   // valuation_tags, photos
	maxListEntry   = 2000 // a tag or a media URL
)

// textProblems checks the record's strings: clean text (no control
// characters but tab, line feed and carriage return; valid UTF-8) within
// the bounds above.
func (r reviewFixture) textProblems() []wire.FieldProblem {
	var probs []wire.FieldProblem
	check := func(field, s string, max int) {
		if err := wire.CheckChars(s, field); err != nil {
			probs = append(probs, wire.FieldProblem{Field: field, Msg: err.(*APIError).Message})
		} else if n := utf8.RuneCountInString(s); n > max {
			probs = append(probs, wire.FieldProblem{Field: field, Msg: fmt.Sprintf("must be at most %d characters, got %d", max, n)})
		}
	}
	check("feedback_id", r.FeedbackID, maxFeedbackID)
	check("text", r.Text, maxReviewText)
	check("pros", r.Pros, maxReviewText)
	check("cons", r.Cons, maxReviewText)
	check("answer_text", r.AnswerText, maxReviewText)
	check("product_name", r.ProductName, maxReviewName)
	check("supplier_article", r.SupplierArticle, maxReviewName)
	check("brand_name", r.BrandName, maxReviewName)
	check("user_name", r.UserName, maxReviewName)
	if r.AnswerState != nil {
		check("answer_state", *r.AnswerState, maxReviewState)
	}
	if r.State != nil {
		check("state", *r.State, maxReviewState)
	}
	if len(r.ValuationTags) > maxListEntries {
		probs = append(probs, wire.FieldProblem{Field: "valuation_tags", Msg: fmt.Sprintf("must list at most %d entries, got %d", maxListEntries, len(r.ValuationTags))})
	} else {
		for i, item := range r.ValuationTags {
			check(fmt.Sprintf("valuation_tags[%d]", i), item, maxListEntry)
		}
	}
	if len(r.Photos) > maxListEntries {
		probs = append(probs, wire.FieldProblem{Field: "photos", Msg: fmt.Sprintf("must list at most %d entries, got %d", maxListEntries, len(r.Photos))})
	} else {
		for i, ph := range r.Photos {
			check(fmt.Sprintf("photos[%d].fullSize", i), ph.FullSize, maxListEntry)
			check(fmt.Sprintf("photos[%d].miniSize", i), ph.MiniSize, maxListEntry)
		}
	}
	if v := r.Video; v != nil {
		check("video.previewImage", v.PreviewImage, maxListEntry)
		check("video.link", v.Link, maxListEntry)
	}
	return probs
}

// photoFixture is a photo as a fixture writes it, the upstream's shape:
// {fullSize: URL, miniSize: URL}.
type photoFixture struct {
	FullSize string
	MiniSize string
}

// UnmarshalYAML reads a photo mapping. A plain URL, the form of earlier
// versions, is refused with the form to write instead. Its errors are
// yaml.TypeErrors, so decoding goes on and each is placed at its line.
func (p *photoFixture) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		return yamlProblem(n, "a photo is a mapping {fullSize: URL, miniSize: URL}, as upstream; got the plain URL %q "+
			"(the form of earlier versions): write {fullSize: %s, miniSize: <a smaller image>}", clip(n.Value), clip(n.Value))
	}
	return decodeMapping(n, "a photo", []string{"fullSize", "miniSize"},
		map[string]*string{"fullSize": &p.FullSize, "miniSize": &p.MiniSize}, nil, nil)
}

// videoFixture is a video as a fixture writes it, the upstream's shape:
// {previewImage: URL, link: URL of an HLS playlist, durationSec: N}.
type videoFixture struct {
	PreviewImage string
	Link         string
	DurationSec  int
}

// oldVideoKeys are the video's keys in earlier versions.
var oldVideoKeys = map[string]string{"id": "", "preview_image": "previewImage", "duration_sec": "durationSec"}

// UnmarshalYAML reads a video mapping; the keys of earlier versions are
// refused with the key to write instead.
func (v *videoFixture) UnmarshalYAML(n *yaml.Node) error {
	return decodeMapping(n, "a video", []string{"previewImage", "link", "durationSec"},
		map[string]*string{"previewImage": &v.PreviewImage, "link": &v.Link}, map[string]*int{"durationSec": &v.DurationSec}, oldVideoKeys)
}

// decodeMapping decodes the mapping n of string and integer fields (keys
// lists them all, in the order messages name them), strictly: unknown
// and duplicate keys are errors, and so is a key of old, with the key
// that replaced it. what names the value in messages.
func decodeMapping(n *yaml.Node, what string, keys []string, strs map[string]*string, ints map[string]*int, old map[string]string) error {
	if n.Kind != yaml.MappingNode {
		return yamlProblem(n, "%s must be a mapping, got %s", what, describeTag(n.ShortTag()))
	}
	has := what + " has " + strings.Join(keys, ", ") + ", as upstream"
	var errs []string
	add := func(err error) {
		if te, ok := err.(*yaml.TypeError); ok {
			errs = append(errs, te.Errors...)
		}
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		str, num := strs[k.Value], ints[k.Value]
		switch {
		case seen[k.Value]:
			add(yamlProblem(k, "duplicate key"))
		case (str != nil || num != nil) && val.Kind != yaml.ScalarNode:
			add(yamlProblem(val, "must be a %s, got %s", map[bool]string{true: "string", false: "integer"}[str != nil], describeTag(val.ShortTag())))
		case str != nil:
			*str = val.Value
			if val.ShortTag() == "!!null" {
				*str = ""
			}
		case num != nil:
			v, err := strconv.Atoi(val.Value)
			if val.ShortTag() != "!!int" || err != nil {
				add(yamlProblem(val, "must be an integer, got %q", val.Value))
			}
			*num = v
		default:
			switch repl, renamed := old[k.Value]; {
			case renamed && repl != "":
				add(yamlProblem(k, "unknown field: it is %s now (%s)", repl, has))
			case renamed:
				add(yamlProblem(k, "unknown field: it is gone (%s)", has))
			default:
				add(yamlProblem(k, "unknown field (%s)", has))
			}
		}
		seen[k.Value] = true
	}
	if len(errs) > 0 {
		return &yaml.TypeError{Errors: errs}
	}
	return nil
}

// yamlProblem is a decoding problem at node n, in the form the
// decoder's messages are placed by (yamlFile.addTypeError).
func yamlProblem(n *yaml.Node, format string, args ...any) error {
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d, column %d: "+format, append([]any{n.Line, n.Column}, args...)...)}}
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

func decodeSettingsFixture(display string, data []byte, rules settings.Rules) (Settings, error) {
	var sf settingsFile
	yf := decodeYAML(display, data, &sf)
	if !yf.checkable() {
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
	for _, e := range st.Validate(rules) {
		yf.problemf(e.Field, "%s", e.Message)
	}
	return st, yf.err()
}
