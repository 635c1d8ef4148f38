package generate

import (
	"math/rand/v2"
	"strings"
	"time"

	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/settings"
)

// A semi_auto reply waits as a draft.
const (
	AnswerStateDraft = reviews.AnswerStateDraft
	StateDraft       = "draft"
)

// Due is the reply mode of s, a review's rating settings, if the engine
// acts on the review at now; else "". A review is due delay after it
// arrived or its settings changed, whichever is later. A draft waits
// while the mode is semi_auto.
func Due(m reviews.Meta, now time.Time, s *settings.FeedbackSettings, changed time.Time, delay time.Duration) string {
	switch {
	case m.Answered,
		s.ReplyMode == "disabled",
		s.ReplyMode == "semi_auto" && m.Draft,
		s.ReplyFromDate != nil && dateOf(m.Day) < *s.ReplyFromDate,
		m.Empty && s.EmptyReviewMode == "skip":
		return ""
	}
	due := time.Unix(m.Created, 0)
	if changed.After(due) {
		due = changed
	}
	if due.Add(delay).After(now) {
		return ""
	}
	return s.ReplyMode
}

// dateOf writes a DayNumber as created_date's date part, YYYY-MM-DD.
func dateOf(day int32) string {
	return time.Unix(int64(day)*86400, 0).UTC().Format(time.DateOnly)
}

// Engine writes replies: a living shop's as its clock moves, and a
// scenario's history as it is built.
type Engine struct {
	bank *Bank
	rng  *rand.Rand
	// perReview is a shop engine's source for rng, seeded again for each
	// review from key and the review's id.
	perReview *rand.PCG
	key       [2]uint64
	state     []byte // a shop engine's seed, which its snapshot keeps
	// clean caches whether a phrase is free of excluded words: replies
	// reuse a few phrases.
	clean map[[2]string]bool
}

// NewShopEngine is a living shop's reply engine. Each reply draws from a
// sequence seeded by seed and the review alone, so it is the same
// whenever, and on whichever replica, the shop writes it.
func NewShopEngine(bank *Bank, seed int64) *Engine {
	src := seededPCG(seed, "shop")
	state, _ := src.MarshalBinary()
	own := new(rand.PCG)
	return &Engine{bank: bank, rng: rand.New(own), perReview: own, key: [2]uint64{src.Uint64(), src.Uint64()}, state: state}
}

// forReview seeds a shop engine's source for f: by its feedback_id, or
// else by its id.
func (e *Engine) forReview(f *reviews.Feedback) {
	if e.perReview == nil {
		return
	}
	k := uint64(f.ID)
	if f.FeedbackID != "" {
		k = HashString(f.FeedbackID)
	}
	e.perReview.Seed(e.key[0], e.key[1]^uint64(ChunkSeed(int64(k), 0)))
}

// State is a shop engine's seed, as its snapshot keeps it.
func (e *Engine) State() []byte { return e.state }

// CheckState reports whether state can be an engine's State.
func CheckState(state []byte) error { return new(rand.PCG).UnmarshalBinary(state) }

// free reports whether phrase holds none of excluded (excludedRaw split).
func (e *Engine) free(phrase, excludedRaw string, excluded []string) bool {
	if len(excluded) == 0 {
		return true
	}
	key := [2]string{phrase, excludedRaw}
	ok, seen := e.clean[key]
	if !seen {
		if e.clean == nil || len(e.clean) >= maxCleanCache {
			e.clean = make(map[[2]string]bool)
		}
		ok = !ContainsWord(phrase, excluded)
		e.clean[key] = ok
	}
	return ok
}

// maxCleanCache bounds Engine.clean to some 50 KB: a bank's answer
// phrases times the excluded-word settings a session goes through.
const maxCleanCache = 512

// Reply does to f what Due said (mode): writes a draft, or answers it.
func (e *Engine) Reply(f *reviews.Feedback, mode string, st *settings.Settings) {
	if mode == "semi_auto" {
		f.AnswerState, f.State = AnswerStateDraft, StateDraft
		return
	}
	empty := f.Text == "" && f.Pros == "" && f.Cons == ""
	e.forReview(f)
	f.AnswerText = e.Compose(f, st.Feedback[f.ProductValuation-1], empty)
	f.AnswerState, f.State, f.WasViewed = "sent", "done", 1
}

// Compose writes a reply: a greeting, a body for the rating, the
// required words it lacks and the signature. Phrases with an excluded
// word are left out; required words and the signature always stand.
func (e *Engine) Compose(f *reviews.Feedback, s settings.FeedbackSettings, empty bool) string {
	bank := e.bank
	excluded := SplitWords(s.ExcludedWords)
	pick := func(list []string) string {
		if len(list) == 0 {
			return ""
		}
		start := e.rng.IntN(len(list))
		for i := range list {
			if c := list[(start+i)%len(list)]; e.free(c, s.ExcludedWords, excluded) {
				return c
			}
		}
		return list[start]
	}
	var greeting string
	switch {
	case f.UserName == "" || f.UserName == bank.Anonymous:
		greeting = pick(bank.Answers.GreetingsAnonymous)
	case s.Tone == "formal" && len(bank.Answers.GreetingsFormal) > 0:
		greeting = strings.ReplaceAll(pick(bank.Answers.GreetingsFormal), "{name}", f.UserName)
	default:
		greeting = strings.ReplaceAll(pick(bank.Answers.Greetings), "{name}", f.UserName)
	}
	var bodies []string
	switch {
	case empty && s.EmptyReviewMode == "template" && f.ProductValuation >= 4:
		bodies = bank.Answers.RatingOnly // thanks for a high rating
	case f.ProductValuation >= 4:
		bodies = bank.Answers.Positive
	case f.ProductValuation == 3:
		bodies = bank.Answers.Neutral
	default:
		bodies = bank.Answers.Negative
	}
	var parts []string
	for _, p := range []string{greeting, pick(bodies)} {
		if !ContainsWord(p, excluded) { // with the name in it: not cached
			parts = append(parts, p)
		}
	}
	text := strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
	var missing []string
	if required := SplitWords(s.RequiredWords); len(required) > 0 {
		folded := []rune(reviews.Fold(text))
		for _, w := range required {
			if !holdsWord(folded, w) {
				missing = append(missing, w)
			}
		}
	}
	if len(missing) > 0 {
		text = strings.TrimSpace(text + " " + upperFirst(strings.Join(missing, ", ")) + ".")
	}
	if s.Signature != "" {
		text = strings.TrimSpace(text + " " + s.Signature)
	}
	return text
}
