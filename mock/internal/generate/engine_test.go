package generate

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/settings"
)

// Due answers a review once its delay has passed since it arrived or its
// settings changed, whichever is later, and leaves it for each of the
// reasons the settings give.
func TestDue(t *testing.T) {
	created := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	meta := func(edit func(*reviews.Meta)) reviews.Meta {
		m := reviews.Meta{Created: created.Unix(), Day: reviews.DayNumber(created), Rating: 5}
		if edit != nil {
			edit(&m)
		}
		return m
	}
	from := "2026-03-11"
	delay := time.Hour
	for _, c := range []struct {
		name    string
		m       reviews.Meta
		s       settings.FeedbackSettings
		changed time.Time
		now     time.Time
		want    string
	}{
		{"auto, after the delay", meta(nil), settings.FeedbackSettings{ReplyMode: "auto"}, time.Time{}, created.Add(delay), "auto"},
		{"auto, before the delay", meta(nil), settings.FeedbackSettings{ReplyMode: "auto"}, time.Time{}, created.Add(delay - time.Second), ""},
		{"semi_auto writes a draft", meta(nil), settings.FeedbackSettings{ReplyMode: "semi_auto"}, time.Time{}, created.Add(delay), "semi_auto"},
		{"a draft waits on semi_auto", meta(func(m *reviews.Meta) { m.Draft = true }), settings.FeedbackSettings{ReplyMode: "semi_auto"}, time.Time{}, created.Add(delay), ""},
		{"a draft is sent on auto", meta(func(m *reviews.Meta) { m.Draft = true }), settings.FeedbackSettings{ReplyMode: "auto"}, time.Time{}, created.Add(delay), "auto"},
		{"answered", meta(func(m *reviews.Meta) { m.Answered = true }), settings.FeedbackSettings{ReplyMode: "auto"}, time.Time{}, created.Add(delay), ""},
		{"disabled", meta(nil), settings.FeedbackSettings{ReplyMode: "disabled"}, time.Time{}, created.Add(delay), ""},
		{"older than reply_from_date", meta(nil), settings.FeedbackSettings{ReplyMode: "auto", ReplyFromDate: &from}, time.Time{}, created.Add(delay), ""},
		{"empty, skipped", meta(func(m *reviews.Meta) { m.Empty = true }), settings.FeedbackSettings{ReplyMode: "auto", EmptyReviewMode: "skip"}, time.Time{}, created.Add(delay), ""},
		{"empty, by template", meta(func(m *reviews.Meta) { m.Empty = true }), settings.FeedbackSettings{ReplyMode: "auto", EmptyReviewMode: "template"}, time.Time{}, created.Add(delay), "auto"},
		{"settings changed since: the delay runs from the change", meta(nil), settings.FeedbackSettings{ReplyMode: "auto"}, created.Add(2 * time.Hour), created.Add(2*time.Hour + delay - time.Second), ""},
		{"settings changed since, and the delay passed", meta(nil), settings.FeedbackSettings{ReplyMode: "auto"}, created.Add(2 * time.Hour), created.Add(2*time.Hour + delay), "auto"},
	} {
		if got := Due(c.m, c.now, &c.s, c.changed, delay); got != c.want {
			t.Errorf("%s: Due = %q, want %q", c.name, got, c.want)
		}
	}
}

// A composed reply greets by name (or not, for an anonymous buyer),
// leaves out every phrase with an excluded word, adds the required words
// it lacks, and ends with the signature; a semi_auto reply is a draft.
func TestComposeFollowsTheSettings(t *testing.T) {
	bank := &Bank{Anonymous: "Покупатель"}
	bank.Answers.Greetings = []string{"Здравствуйте, {name}!"}
	bank.Answers.GreetingsAnonymous = []string{"Здравствуйте!"}
	bank.Answers.GreetingsFormal = []string{"Уважаемый {name},"}
	bank.Answers.Positive = []string{"Спасибо за отзыв, ждём снова.", "Рады, что понравилось."}
	bank.Answers.Negative = []string{"Нам жаль, возврат невозможен."}
	bank.Answers.RatingOnly = []string{"Спасибо за оценку!"}
	e := &Engine{bank: bank, rng: rand.New(rand.NewPCG(1, 2))}
	s := settings.FeedbackSettings{ReplyMode: "auto", Signature: "Команда магазина", ExcludedWords: "ждём", RequiredWords: "доставка, спасибо"}
	for range 20 {
		got := e.Compose(&reviews.Feedback{UserName: "Анна", ProductValuation: 5, Text: "ok"}, s, false)
		if !strings.HasPrefix(got, "Здравствуйте, Анна!") || !strings.HasSuffix(got, " Команда магазина") {
			t.Fatalf("greeting or signature: %q", got)
		}
		if ContainsWord(got, []string{"ждём"}) {
			t.Errorf("holds the excluded word: %q", got)
		}
		if !ContainsWord(got, []string{"доставка"}) || !ContainsWord(got, []string{"спасибо"}) {
			t.Errorf("lacks a required word: %q", got)
		}
	}
	s.Tone = "formal"
	if got := e.Compose(&reviews.Feedback{UserName: "Анна", ProductValuation: 5}, s, false); !strings.HasPrefix(got, "Уважаемый Анна,") {
		t.Errorf("formal tone: %q", got)
	}
	if got := e.Compose(&reviews.Feedback{UserName: "Покупатель", ProductValuation: 5}, s, false); !strings.HasPrefix(got, "Здравствуйте!") {
		t.Errorf("an anonymous buyer: %q", got)
	}
	neg := settings.FeedbackSettings{ReplyMode: "auto", ExcludedWords: "возврат невозможен"}
	if got := e.Compose(&reviews.Feedback{UserName: "Анна", ProductValuation: 1}, neg, false); got != "Здравствуйте, Анна!" {
		t.Errorf("a body with an excluded phrase is left out whole: %q", got)
	}
	tmpl := settings.FeedbackSettings{ReplyMode: "auto", EmptyReviewMode: "template"}
	if got := e.Compose(&reviews.Feedback{UserName: "Анна", ProductValuation: 4}, tmpl, true); got != "Здравствуйте, Анна! Спасибо за оценку!" {
		t.Errorf("a rating-only review by template: %q", got)
	}
	var st settings.Settings
	st.Feedback[4] = settings.FeedbackSettings{ReplyMode: "semi_auto"}
	f := reviews.Feedback{ProductValuation: 5, Text: "ok", State: "new"}
	e.Reply(&f, "semi_auto", &st)
	if f.AnswerText != "" || f.AnswerState != AnswerStateDraft || f.State != StateDraft {
		t.Errorf("a draft: %+v", f)
	}
	e.Reply(&f, "auto", &st)
	if f.AnswerText == "" || f.AnswerState != "sent" || f.State != "done" || f.WasViewed != 1 {
		t.Errorf("an answer: %+v", f)
	}
}

// Words are matched whole and without case; lists split on commas,
// semicolons and line breaks.
func TestWords(t *testing.T) {
	if got := SplitWords(" a, b;c\nd\r\n, ,e f "); strings.Join(got, "|") != "a|b|c|d|e f" {
		t.Errorf("SplitWords = %q", got)
	}
	for _, c := range []struct {
		s, w string
		want bool
	}{
		{"Спасибо за отзыв", "спасибо", true},
		{"Спасибо за отзыв", "за отзыв", true},
		{"Благодарим", "дар", false},
		{"вина, не ваша", "ваша вина", false},
		{"это ваша вина!", "ваша вина", true},
		{"x", "", false},
	} {
		if got := ContainsWord(c.s, []string{c.w}); got != c.want {
			t.Errorf("ContainsWord(%q, %q) = %v, want %v", c.s, c.w, got, c.want)
		}
	}
}

// A living shop's engine writes each review's reply from the review
// alone: in whatever order, after whatever other replies, by another
// engine of the same seed, the same text; another seed, or another
// review, another text; and its State stays where the seed set it.
func TestShopEngineRepliesAreTheReviews(t *testing.T) {
	bank := shippedBank(t, "ru")
	set := shippedSettings(t, "default")
	set.Feedback[4].ReplyMode = "auto"
	names := []string{"Анна", "Борис", "Вера", "Глеб", "Дина", "Егор", "Жанна", "Зоя"}
	reviewsOf := func() []reviews.Feedback {
		var fbs []reviews.Feedback
		for i, n := range names {
			fbs = append(fbs, reviews.Feedback{ID: int64(100 + i), FeedbackID: "fb-" + n, UserName: n, Text: "Отлично", ProductValuation: 5})
		}
		return fbs
	}
	reply := func(e *Engine, fbs []reviews.Feedback, order []int) map[string]string {
		out := make(map[string]string)
		for _, i := range order {
			e.Reply(&fbs[i], "auto", &set)
			out[fbs[i].FeedbackID] = fbs[i].AnswerText
		}
		return out
	}
	e := NewShopEngine(bank, 7)
	before := e.State()
	inOrder := reply(e, reviewsOf(), []int{0, 1, 2, 3, 4, 5, 6, 7})
	backwards := reply(NewShopEngine(bank, 7), reviewsOf(), []int{7, 6, 5, 4, 3, 2, 1, 0})
	// One at a time, between others' replies, some written twice.
	again := NewShopEngine(bank, 7)
	reply(again, reviewsOf(), []int{3, 3, 1})
	apart := reply(again, reviewsOf(), []int{5, 0, 2, 7, 1, 4, 6, 3})
	for id, text := range inOrder {
		if backwards[id] != text || apart[id] != text {
			t.Errorf("%s: %q in order, %q backwards, %q apart", id, text, backwards[id], apart[id])
		}
	}
	distinct := make(map[string]bool)
	for _, n := range names {
		distinct[strings.ReplaceAll(inOrder["fb-"+n], n, "")] = true // the greeting names the buyer
	}
	if len(distinct) < 2 {
		t.Errorf("every review got the same reply body: %v", inOrder)
	}
	other := reply(NewShopEngine(bank, 8), reviewsOf(), []int{0, 1, 2, 3, 4, 5, 6, 7})
	same := 0
	for id, text := range inOrder {
		if other[id] == text {
			same++
		}
	}
	if same == len(inOrder) {
		t.Error("another seed writes the same replies")
	}
	if after := e.State(); string(after) != string(before) {
		t.Error("the engine's State moved with its replies")
	}
}
