package generate

import (
	"hash/fnv"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/settings"
)

// Answer states of the reply engine, besides the spec's "sent"/"done":
// a semi_auto reply waits as a draft.
const (
	AnswerStateDraft = reviews.AnswerStateDraft
	StateDraft       = "draft"
)

// Due is what the reply engine does at now to a review, by s, the
// settings for its rating (in force since changed): "" nothing, else the
// rating's reply mode (auto: answer it; semi_auto: write a draft). A
// review is due delay after it arrived, or after its settings changed,
// whichever is later. It is left alone when answered, when its rating is
// disabled, when it is older than reply_from_date, and when it is
// rating-only and empty reviews are skipped. A draft waits while the mode
// is semi_auto (or disabled); switched to auto, the engine sends it. A
// living shop and a scenario's history both follow it.
func Due(m reviews.Meta, now time.Time, s *settings.FeedbackSettings, changed time.Time, delay time.Duration) string {
	if m.Answered {
		return ""
	}
	if s.ReplyMode == "disabled" || s.ReplyMode == "semi_auto" && m.Draft {
		return ""
	}
	if s.ReplyFromDate != nil && dateOf(m.Day) < *s.ReplyFromDate {
		return ""
	}
	if m.Empty && s.EmptyReviewMode == "skip" {
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

// Engine writes the replies of the reply engine: for a living
// shop as its clock moves, and for a scenario's history as it is built.
type Engine struct {
	bank *Bank
	rng  *rand.Rand
	src  *rand.PCG // the sequence State reads and SetState sets; nil for a history
	// own, for a living shop's engine (NewShopEngine): rng draws from it,
	// seeded again for each review by key and the review's id.
	own *rand.PCG
	key [2]uint64
	// clean caches whether a phrase of the bank is free of a rating's
	// excluded words (keyed by both): most replies reuse a few phrases.
	clean map[[2]string]bool
}

// NewEngine is a reply engine writing from bank with the random source
// src, whose state State and SetState read and set.
func NewEngine(bank *Bank, src *rand.PCG) *Engine {
	return &Engine{bank: bank, rng: rand.New(src), src: src}
}

// NewShopEngine is a living shop's reply engine: each reply draws from
// a sequence of its own, seeded by seed, stream and the review, so
// a review's reply is the same whenever the shop writes it and whatever
// it wrote before: a shop brought up in small steps or in one, on any
// replica of a fleet, writes the same bytes. Its State stays where seed
// and stream set it.
func NewShopEngine(bank *Bank, seed int64, stream string) *Engine {
	src := SeededPCG(seed, stream)
	state, _ := src.MarshalBinary()
	own := new(rand.PCG)
	own.UnmarshalBinary(state)
	k0, k1 := src.Uint64(), src.Uint64()
	src.UnmarshalBinary(state)
	return &Engine{bank: bank, rng: rand.New(own), src: src, own: own, key: [2]uint64{k0, k1}}
}

// forReview seeds a shop engine's sequence for the review f: by its
// feedback_id, which it has from the start (an arrival's id comes when
// it joins the shop's list), or else its id.
func (e *Engine) forReview(f *reviews.Feedback) {
	if e.own == nil {
		return
	}
	k := uint64(f.ID)
	if f.FeedbackID != "" {
		h := fnv.New64a()
		io.WriteString(h, f.FeedbackID)
		k = h.Sum64()
	}
	e.own.Seed(e.key[0], e.key[1]^uint64(ChunkSeed(int64(k), 0)))
}

// Bank is the phrase bank the engine writes from.
func (e *Engine) Bank() *Bank { return e.bank }

// State is where the engine's random sequence stands, for a snapshot.
func (e *Engine) State() ([]byte, error) { return e.src.MarshalBinary() }

// SetState sets the engine's random sequence to a State taken before.
func (e *Engine) SetState(state []byte) error { return e.src.UnmarshalBinary(state) }

// free reports whether phrase holds none of the excluded words, written
// as excludedRaw (the setting) and split as excluded.
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

// maxCleanCache bounds Engine.clean (some 50 KB): a bank's answer
// phrases times the excluded-word settings a session goes through.
const maxCleanCache = 512

// Reply does to f what Due said (mode): a draft, or an answer by the
// settings.
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

// Compose writes a reply in the review's locale: a greeting (formal for
// the tone "formal"), a body for the rating, every required word, none of
// the excluded ones (whole words), and the signature last, as entered.
// Required words and the signature win over excluded words.
func (e *Engine) Compose(f *reviews.Feedback, s settings.FeedbackSettings, empty bool) string {
	bank := e.bank
	excluded := SplitWords(s.ExcludedWords)
	// pick prefers an entry free of excluded words.
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
			parts = append(parts, p) // a phrase with an excluded word is left out, not cut
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
