package mock

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/wire"
)

// The values reply_mode and empty_review_mode may take.
var (
	replyModes       = []string{"disabled", "auto", "semi_auto"}
	emptyReviewModes = []string{"skip", "template", "generate"}
)

// Length limits of settings fields, in characters.
const (
	maxSignature = 255
	maxTone      = 64
	maxLongText  = 2000
)

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

// sharedFields are the feedback fields kept equal in all five elements while
// use_unified_settings is 1; reply_mode and tone stay per rating.
var sharedFields = []string{"signature", "excluded_words", "required_words", "empty_review_mode", "reply_from_date", "ai_instructions"}

// settingsRules are the scenario's constraints on settings values.
type settingsRules struct {
	tones []string // allowed tones; empty means any non-empty string
}

// fieldValue is one decoded field of a PATCH element: a string, or for
// reply_from_date a *string, or for use_unified_settings an int.
type fieldValue struct {
	str  string
	date *string
	num  int
}

// patchElement is one decoded element of a PATCH's feedback array, or the
// question object (rating 0).
type patchElement struct {
	path   string // "feedback[2]" or "question"
	rating int
	fields map[string]fieldValue
	order  []string // field names in document order
}

// settingsPatch is a decoded, individually validated PATCH body.
type settingsPatch struct {
	feedback []patchElement
	question *patchElement
}

var feedbackFields = []string{"rating", "reply_mode", "signature", "tone", "excluded_words", "required_words", "empty_review_mode", "use_unified_settings", "reply_from_date", "ai_instructions"}

var questionFields = []string{"reply_mode", "signature", "tone", "excluded_words", "required_words", "reply_from_date", "ai_instructions"}

// decodeSettingsPatch decodes and checks a PATCH body, field by field.
// Errors name the JSON path of the offending value.
func decodeSettingsPatch(body []byte, rules settingsRules) (*settingsPatch, error) {
	// Bytes that are not UTF-8 can only be inside strings (json.Valid
	// refuses them elsewhere); wire.DecodeString names the field that holds them.
	switch {
	case len(strings.TrimSpace(string(body))) == 0:
		return nil, wire.InvalidBody("", "request body is empty; send a JSON object such as {}")
	case !json.Valid(body):
		var v any
		return nil, wire.InvalidBody("", "malformed JSON: %s", wire.JSONProblem(json.Unmarshal(body, &v)))
	}
	p := &settingsPatch{}
	err := wire.EachMember(body, "", func(key string, value json.RawMessage) error {
		switch key {
		case "feedback":
			return wire.EachElement(value, "feedback", func(i int, raw json.RawMessage) error {
				e, err := decodePatchElement(raw, fmt.Sprintf("feedback[%d]", i), feedbackFields, rules)
				if err != nil {
					return err
				}
				p.feedback = append(p.feedback, *e)
				return nil
			})
		case "question":
			e, err := decodePatchElement(value, "question", questionFields, rules)
			p.question = e
			return err
		default:
			return wire.InvalidBody(key, "unknown field; the body may hold feedback and question")
		}
	})
	if err != nil {
		return nil, err
	}
	return p, p.check()
}

func decodePatchElement(raw []byte, path string, allowed []string, rules settingsRules) (*patchElement, error) {
	e := &patchElement{path: path, fields: make(map[string]fieldValue)}
	err := wire.EachMember(raw, path, func(key string, value json.RawMessage) error {
		fp := path + "." + key
		if !slices.Contains(allowed, key) {
			return wire.InvalidBody(fp, "unknown field; allowed: %s", strings.Join(allowed, ", "))
		}
		v, err := decodeField(key, value, fp, rules)
		if err != nil {
			return err
		}
		if key == "rating" {
			e.rating = v.num
			return nil
		}
		e.fields[key] = v
		e.order = append(e.order, key)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if path != "question" && e.rating == 0 {
		return nil, wire.InvalidBody(path+".rating", "required: each feedback element names its rating (1 to 5)")
	}
	return e, nil
}

func decodeField(key string, raw json.RawMessage, path string, rules settingsRules) (fieldValue, error) {
	switch key {
	case "rating", "use_unified_settings":
		n, err := wire.DecodeInt(raw, path)
		if err != nil {
			return fieldValue{}, err
		}
		if key == "rating" && (n < 1 || n > 5) {
			return fieldValue{}, wire.InvalidBody(path, "must be 1, 2, 3, 4 or 5, got %d", n)
		}
		if key == "use_unified_settings" && n != 0 && n != 1 {
			return fieldValue{}, wire.InvalidBody(path, "must be 0 or 1, got %d", n)
		}
		return fieldValue{num: int(n)}, nil
	case "reply_from_date":
		k := wire.JSONKind(raw)
		if k == "null" {
			return fieldValue{}, nil
		}
		if k != "string" {
			return fieldValue{}, wire.InvalidBody(path, "must be null or a date YYYY-MM-DD, got %s", k)
		}
		s, err := wire.DecodeString(raw, path)
		if err != nil {
			return fieldValue{}, err
		}
		if !isDate(s) {
			return fieldValue{}, wire.InvalidBody(path, "must be null or a real date YYYY-MM-DD, got %q", s)
		}
		return fieldValue{date: &s}, nil
	}
	s, err := wire.DecodeString(raw, path)
	if err != nil {
		return fieldValue{}, err
	}
	return fieldValue{str: s}, checkText(key, s, path, rules)
}

// checkText validates one string field of the settings.
func checkText(key, s, path string, rules settingsRules) error {
	if err := wire.CheckChars(s, path); err != nil {
		return err
	}
	switch key {
	case "reply_mode":
		return checkEnum(s, replyModes, path)
	case "empty_review_mode":
		return checkEnum(s, emptyReviewModes, path)
	case "tone":
		if strings.TrimSpace(s) == "" {
			return wire.InvalidBody(path, "must not be empty")
		}
		if len(rules.tones) > 0 {
			if err := checkEnum(s, rules.tones, path); err != nil {
				return err
			}
		}
		return checkLength(s, maxTone, path)
	case "signature":
		return checkLength(s, maxSignature, path)
	default: // excluded_words, required_words, ai_instructions
		return checkLength(s, maxLongText, path)
	}
}

func checkEnum(s string, allowed []string, path string) error {
	if slices.Contains(allowed, s) {
		return nil
	}
	return wire.InvalidBody(path, "must be one of %s, got %q", strings.Join(allowed, ", "), clip(s))
}

func checkLength(s string, max int, path string) error {
	if n := utf8.RuneCountInString(s); n > max {
		return wire.InvalidBody(path, "must be at most %d characters, got %d", max, n)
	}
	return nil
}

// isDate reports whether s is a real calendar date written YYYY-MM-DD.
func isDate(s string) bool {
	_, ok := reviews.ParseDate(s)
	return ok
}

// check finds conflicts between the elements of one PATCH: a rating named
// twice, different use_unified_settings values, and different values for a
// shared field when unified settings are (or are being switched) on. The
// last case needs the current state, so it is checked in apply.
func (p *settingsPatch) check() error {
	byRating := make(map[int]string)
	var unified *patchElement
	for i := range p.feedback {
		e := &p.feedback[i]
		if prev, ok := byRating[e.rating]; ok {
			return wire.InvalidBody(e.path+".rating", "rating %d is already set by %s", e.rating, prev)
		}
		byRating[e.rating] = e.path
		if v, ok := e.fields["use_unified_settings"]; ok {
			if unified != nil && unified.fields["use_unified_settings"].num != v.num {
				return wire.InvalidBody(e.path+".use_unified_settings", "conflicts with %s.use_unified_settings: the flag is one for all ratings", unified.path)
			}
			if unified == nil {
				unified = e
			}
		}
	}
	return nil
}

// apply returns cur with the patch applied; cur is not changed. It keeps
// the unified-settings invariant: while use_unified_settings is 1, the
// shared fields are equal in all five elements.
func (p *settingsPatch) apply(cur Settings) (Settings, error) {
	next := cur
	wasUnified := cur.Feedback[0].UseUnifiedSettings == 1
	unified := wasUnified
	var switcher *patchElement // the first element that carries the flag
	for i := range p.feedback {
		if v, ok := p.feedback[i].fields["use_unified_settings"]; ok {
			unified = v.num == 1
			if switcher == nil {
				switcher = &p.feedback[i]
			}
		}
	}
	if unified {
		// One value per shared field across the whole patch.
		setBy := make(map[string]*patchElement)
		for i := range p.feedback {
			e := &p.feedback[i]
			for _, f := range sharedFields {
				v, ok := e.fields[f]
				if !ok {
					continue
				}
				if prev, ok := setBy[f]; ok && !sameValue(prev.fields[f], v) {
					return cur, wire.InvalidBody(e.path+"."+f, "conflicts with %s.%s: with use_unified_settings 1 the field is shared by all ratings", prev.path, f)
				}
				setBy[f] = e
			}
		}
	}
	for _, e := range p.feedback {
		el := &next.Feedback[e.rating-1]
		for _, f := range e.order {
			setFeedbackField(el, f, e.fields[f])
		}
	}
	flag := 0
	if unified {
		flag = 1
	}
	for i := range next.Feedback {
		next.Feedback[i].UseUnifiedSettings = flag
	}
	if unified {
		// The source of the shared values: the element that switched the
		// flag on, or else any element the patch changed (all agree), or
		// else nothing changed and the elements already agree.
		src := -1
		if !wasUnified && switcher != nil {
			src = switcher.rating - 1
		}
		for _, e := range p.feedback {
			for _, f := range sharedFields {
				if _, ok := e.fields[f]; ok {
					copyShared(&next, e.rating-1, f)
				}
			}
		}
		if src >= 0 {
			// Fields the patch set were written to all above; the rest
			// come from the switching element.
			for _, f := range sharedFields {
				if !patchSets(p, f) {
					copyShared(&next, src, f)
				}
			}
		}
	}
	if q := p.question; q != nil {
		for _, f := range q.order {
			setQuestionField(&next.Question, f, q.fields[f])
		}
	}
	return next, nil
}

func patchSets(p *settingsPatch, field string) bool {
	for _, e := range p.feedback {
		if _, ok := e.fields[field]; ok {
			return true
		}
	}
	return false
}

func sameValue(a, b fieldValue) bool {
	if (a.date == nil) != (b.date == nil) {
		return false
	}
	if a.date != nil && *a.date != *b.date {
		return false
	}
	return a.str == b.str && a.num == b.num
}

// textField is a string field of the settings: where it is in a feedback
// element and in the question object (nil where it is not there).
type textField struct {
	name string
	fb   func(*FeedbackSettings) *string
	q    func(*QuestionSettings) *string
}

// textFields are the settings' string fields; rating, use_unified_settings
// and reply_from_date are handled on their own.
var textFields = []textField{
	{"reply_mode", func(e *FeedbackSettings) *string { return &e.ReplyMode }, func(q *QuestionSettings) *string { return &q.ReplyMode }},
	{"signature", func(e *FeedbackSettings) *string { return &e.Signature }, func(q *QuestionSettings) *string { return &q.Signature }},
	{"tone", func(e *FeedbackSettings) *string { return &e.Tone }, func(q *QuestionSettings) *string { return &q.Tone }},
	{"excluded_words", func(e *FeedbackSettings) *string { return &e.ExcludedWords }, func(q *QuestionSettings) *string { return &q.ExcludedWords }},
	{"required_words", func(e *FeedbackSettings) *string { return &e.RequiredWords }, func(q *QuestionSettings) *string { return &q.RequiredWords }},
	{"empty_review_mode", func(e *FeedbackSettings) *string { return &e.EmptyReviewMode }, nil},
	{"ai_instructions", func(e *FeedbackSettings) *string { return &e.AIInstructions }, func(q *QuestionSettings) *string { return &q.AIInstructions }},
}

func findTextField(name string) (textField, bool) {
	for _, f := range textFields {
		if f.name == name {
			return f, true
		}
	}
	return textField{}, false
}

// copyShared writes the shared field of element src to all five elements.
func copyShared(s *Settings, src int, field string) {
	from := s.Feedback[src]
	tf, isText := findTextField(field)
	for i := range s.Feedback {
		el := &s.Feedback[i]
		switch {
		case isText:
			*tf.fb(el) = *tf.fb(&from)
		case field == "reply_from_date":
			el.ReplyFromDate = from.ReplyFromDate
		}
	}
}

func setFeedbackField(el *FeedbackSettings, field string, v fieldValue) {
	if tf, ok := findTextField(field); ok {
		*tf.fb(el) = v.str
		return
	}
	switch field {
	case "use_unified_settings":
		el.UseUnifiedSettings = v.num
	case "reply_from_date":
		el.ReplyFromDate = v.date
	}
}

func setQuestionField(q *QuestionSettings, field string, v fieldValue) {
	if tf, ok := findTextField(field); ok && tf.q != nil {
		*tf.q(q) = v.str
		return
	}
	if field == "reply_from_date" {
		q.ReplyFromDate = v.date
	}
}

// validate checks a complete Settings value, such as a settings fixture:
// ratings in order, every enum and length, and the unified invariant.
// Problems are reported with JSON-style paths.
func (s *Settings) validate(rules settingsRules) []*APIError {
	var errs []*APIError
	add := func(err error) {
		if err != nil {
			errs = append(errs, err.(*APIError))
		}
	}
	checkDate := func(d *string, path string) {
		if d != nil && !isDate(*d) {
			add(wire.InvalidBody(path, "must be null or a real date YYYY-MM-DD, got %q", *d))
		}
	}
	first := s.Feedback[0]
	for i := range s.Feedback {
		el := &s.Feedback[i]
		p := fmt.Sprintf("feedback[%d]", i)
		if el.Rating != i+1 {
			add(wire.InvalidBody(p+".rating", "must be %d: elements are ordered by rating 1 to 5", i+1))
		}
		sameShared := sameValue(fieldValue{date: el.ReplyFromDate}, fieldValue{date: first.ReplyFromDate})
		for _, tf := range textFields {
			add(checkText(tf.name, *tf.fb(el), p+"."+tf.name, rules))
			if slices.Contains(sharedFields, tf.name) && *tf.fb(el) != *tf.fb(&first) {
				sameShared = false
			}
		}
		checkDate(el.ReplyFromDate, p+".reply_from_date")
		if el.UseUnifiedSettings != 0 && el.UseUnifiedSettings != 1 {
			add(wire.InvalidBody(p+".use_unified_settings", "must be 0 or 1, got %d", el.UseUnifiedSettings))
		} else if el.UseUnifiedSettings != first.UseUnifiedSettings {
			add(wire.InvalidBody(p+".use_unified_settings", "must equal feedback[0].use_unified_settings: the flag is one for all ratings"))
		}
		if first.UseUnifiedSettings == 1 && i > 0 && !sameShared {
			add(wire.InvalidBody(p, "with use_unified_settings 1, %s must equal those of feedback[0]", strings.Join(sharedFields, ", ")))
		}
	}
	for _, tf := range textFields {
		if tf.q != nil {
			add(checkText(tf.name, *tf.q(&s.Question), "question."+tf.name, rules))
		}
	}
	checkDate(s.Question.ReplyFromDate, "question.reply_from_date")
	return errs
}

// handleSettingsGet serves GET /api/v1/settings/ai.
func (s *Server) handleSettingsGet(w http.ResponseWriter, r *http.Request, ac apiContext) {
	wire.WriteJSON(w, http.StatusOK, wire.Envelope{Success: true, Data: ac.ss.settings(ac.sc)})
}

// handleSettingsPatch serves PATCH /api/v1/settings/ai: a partial update,
// applied atomically, answered with the full settings.
func (s *Server) handleSettingsPatch(w http.ResponseWriter, r *http.Request, ac apiContext) {
	if s.readOnly {
		s.writeError(w, r, wire.ErrReadOnly)
		return
	}
	body, err := wire.ReadJSONBody(w, r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	p, err := decodeSettingsPatch(body, ac.sc.rules)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	st, err := patchSettings(ac.ss, ac.sc, p, s.now())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	wire.WriteJSON(w, http.StatusOK, wire.Envelope{Success: true, Data: st})
}

// patchSettings applies p to the session's settings in sc atomically: on
// error nothing changes. In a living shop, a rating whose settings change
// can be answered from now.
func patchSettings(ss *session, sc *Scenario, p *settingsPatch, now time.Time) (Settings, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	st := ss.state(sc)
	next, err := p.apply(st.settings)
	if err != nil {
		return st.settings, err
	}
	if sh, err := ss.runShop(sc, now); err != nil {
		return st.settings, err
	} else if sh != nil {
		at := sh.now(now)
		for i := range next.Feedback {
			if !reflect.DeepEqual(next.Feedback[i], st.settings.Feedback[i]) {
				sh.changedAt[i] = at
			}
		}
	}
	st.settings = next
	return next, nil
}
