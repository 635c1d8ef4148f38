package mock

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/brianvoe/gofakeit/v6"
	"github.com/replymock/replymock/mock/internal/reviews"
)

// shopSpec makes a scenario's shop live (scenario key "shop"): new
// reviews arrive, and the reply engine answers them by the session's
// settings, on a clock of the session's own.
type shopSpec struct {
	// ArrivalsPerHour is how many new reviews arrive in an hour of the
	// session's clock, evenly spaced; 0 means none.
	ArrivalsPerHour float64 `yaml:"arrivals_per_hour" json:"arrivals_per_hour"`
	// ReplyDelay is how long after a review can be answered (it arrived,
	// or its rating's settings changed) the engine answers it.
	ReplyDelay Duration `yaml:"reply_delay" json:"reply_delay"`
	// Clock is "real" (the default: follows time, and POST /__mock/clock
	// moves it ahead) or "frozen" (stands still until advanced).
	Clock string `yaml:"clock" json:"clock"`
}

// MaxShopReviews bounds a living shop: its scenario's data, and each
// session's arrivals, so that sessions (each with its own copy) stay small.
const MaxShopReviews = 20_000

func (sp *shopSpec) validate(yf *yamlFile, hasGenerator bool, dataSize int) {
	if !(sp.ArrivalsPerHour >= 0 && sp.ArrivalsPerHour <= 3600) {
		yf.problemf("shop.arrivals_per_hour", "must be from 0 to 3600, got %v", sp.ArrivalsPerHour)
	}
	if sp.ArrivalsPerHour > 0 && !hasGenerator {
		yf.problemf("shop.arrivals_per_hour", "needs data.generate: new reviews are written by the generator")
	}
	if sp.ReplyDelay.D() > 30*24*time.Hour {
		yf.problemf("shop.reply_delay", "must be at most 720h, got %s", sp.ReplyDelay)
	}
	if sp.Clock != "" && sp.Clock != "real" && sp.Clock != "frozen" {
		yf.problemf("shop.clock", "must be real or frozen, got %q", sp.Clock)
	}
	if dataSize > MaxShopReviews {
		yf.problemf("shop", "a living shop copies its data into every session: at most %d reviews, got %d", MaxShopReviews, dataSize)
	}
}

// Answer states of the reply engine, besides the spec's "sent"/"done":
// a semi_auto reply waits as a draft.
const (
	AnswerStateDraft = "draft"
	StateDraft       = "draft"
)

// shopState is one session's living shop in one scenario: its clock, the
// reviews as they are now, and the store built from them.
type shopState struct {
	spec      shopSpec
	origin    time.Time     // the clock's start
	frozen    time.Time     // a frozen clock's time
	advanced  time.Duration // a real clock moved ahead by POST /__mock/clock
	processed time.Time     // the engine has run up to here
	fbs       []Feedback
	st        *reviews.Store
	changedAt [5]time.Time // when each rating's settings last changed
	gen       *generator   // writes arrivals; nil without data.generate
	bank      *phraseBank  // writes replies
	products  []product
	weights   []float64
	arrived   int
	rng       *rand.Rand
}

// newShopState starts a session's shop from the scenario's data.
func newShopState(sc *Scenario, sid string, now time.Time) (*shopState, error) {
	base, err := sc.store()
	if err != nil {
		return nil, err
	}
	// Oldest first, as ids are given: rebuilding keeps every id.
	n := base.Len()
	fbs := make([]Feedback, n)
	for i := range fbs {
		if err := json.Unmarshal(base.JSON(n-1-i), &fbs[i]); err != nil {
			return nil, fmt.Errorf("shop: review %d: %w", i, err)
		}
	}
	sh := &shopState{spec: *sc.shop, fbs: fbs, st: base, bank: sc.bank, rng: sc.rng("shop:" + sid)}
	// A frozen clock starts at the newest review (or a fixed day), so
	// data and clock agree whatever the day the tests run; a real one at
	// now, but never before the newest review, so arrivals come on top.
	newest := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if n > 0 {
		t, err := time.Parse(reviews.TimestampLayout, fbs[n-1].CreatedDate)
		if err != nil {
			return nil, fmt.Errorf("shop: %w", err)
		}
		newest = t
	}
	sh.origin = newest
	if sh.spec.Clock != "frozen" && now.After(newest) {
		sh.origin = now
	}
	if sh.spec.Clock == "frozen" {
		sh.frozen = sh.origin
	} else {
		sh.advanced = sh.origin.Sub(now) // zero, unless the data is newer than now
	}
	sh.processed = sh.origin
	for i := range sh.changedAt {
		sh.changedAt[i] = sh.origin
	}
	if g := sc.file.Data.Generate; g != nil && sc.bank != nil {
		sh.gen = &generator{f: gofakeit.NewUnlocked(chunkSeed(sc.Seed, -1)), spec: *g, bank: sc.bank, settings: sc.settings}
		sh.products, sh.weights = (&generator{f: gofakeit.NewUnlocked(sc.Seed), spec: *g, bank: sc.bank}).products()
	}
	return sh, nil
}

// now is the session's clock.
func (sh *shopState) now(real time.Time) time.Time {
	if sh.spec.Clock == "frozen" {
		return sh.frozen
	}
	return real.Add(sh.advanced)
}

// advance moves the clock ahead by d.
func (sh *shopState) advance(d time.Duration) {
	if sh.spec.Clock == "frozen" {
		sh.frozen = sh.frozen.Add(d)
	} else {
		sh.advanced += d
	}
}

// run brings the shop up to the clock: arrivals, then replies by the
// settings. It rebuilds the store if anything changed.
func (sh *shopState) run(now time.Time, settings Settings) error {
	if !now.After(sh.processed) {
		return nil
	}
	changed := false
	if sh.spec.ArrivalsPerHour > 0 && sh.gen != nil {
		due := int(math.Floor(now.Sub(sh.origin).Hours()*sh.spec.ArrivalsPerHour + 1e-9))
		due = min(due, MaxShopReviews) // a session's arrivals are bounded too
		for ; sh.arrived < due; sh.arrived++ {
			at := sh.origin.Add(time.Duration(float64(sh.arrived+1) / sh.spec.ArrivalsPerHour * float64(time.Hour)))
			sh.fbs = append(sh.fbs, sh.arrival(at.Truncate(time.Second)))
			changed = true
		}
	}
	for i := range sh.fbs {
		if sh.reply(&sh.fbs[i], now, settings) {
			changed = true
		}
	}
	sh.processed = now
	if !changed {
		return nil
	}
	// fbs is oldest first and arrivals are the newest, so reviews.New gives
	// every review the id it had, and each arrival the next one.
	st, err := reviews.New(slices.Clone(sh.fbs))
	if err != nil {
		return err
	}
	for i := range sh.fbs {
		sh.fbs[i].ID = int64(i + 1)
	}
	sh.st = st
	return nil
}

// arrival writes a new review at the time at.
func (sh *shopState) arrival(at time.Time) Feedback {
	g := sh.gen
	p := sh.products[g.pick(sh.weights)]
	fb := g.review(p, g.pick(g.spec.RatingWeights)+1, at)
	// New reviews wait for the engine, unviewed.
	fb.AnswerText, fb.AnswerState, fb.State, fb.WasViewed = "", "", "new", 0
	fb.CreatedAt = fb.CreatedDate
	return fb
}

// reply answers f by the settings if it is due, and reports a change.
func (sh *shopState) reply(f *Feedback, now time.Time, settings Settings) bool {
	if f.AnswerText != "" || f.ProductValuation < 1 || f.ProductValuation > 5 {
		return false
	}
	s := settings.Feedback[f.ProductValuation-1]
	// A draft waits while the mode is semi_auto (or disabled); switched to
	// auto, the engine sends it.
	if s.ReplyMode == "disabled" || s.ReplyMode == "semi_auto" && f.AnswerState == AnswerStateDraft {
		return false
	}
	created, err := time.Parse(reviews.TimestampLayout, f.CreatedDate)
	if err != nil {
		return false
	}
	if s.ReplyFromDate != nil && f.CreatedDate[:10] < *s.ReplyFromDate {
		return false
	}
	empty := f.Text == "" && f.Pros == "" && f.Cons == ""
	if empty && s.EmptyReviewMode == "skip" {
		return false
	}
	due := created
	if c := sh.changedAt[f.ProductValuation-1]; c.After(due) {
		due = c
	}
	if due.Add(sh.spec.ReplyDelay.D()).After(now) {
		return false
	}
	if s.ReplyMode == "semi_auto" {
		f.AnswerState, f.State = AnswerStateDraft, StateDraft
		return true
	}
	f.AnswerText = sh.compose(f, s, empty)
	f.AnswerState, f.State, f.WasViewed = "sent", "done", 1
	return true
}

// compose writes a reply in the review's locale: a greeting (formal for
// the tone "formal"), a body for the rating, every required word, none of
// the excluded ones (whole words), and the signature last, as entered.
// Required words and the signature win over excluded words.
func (sh *shopState) compose(f *Feedback, s FeedbackSettings, empty bool) string {
	bank := sh.bank
	excluded := splitWords(s.ExcludedWords)
	// pick prefers an entry free of excluded words.
	pick := func(list []string) string {
		if len(list) == 0 {
			return ""
		}
		start := sh.rng.IntN(len(list))
		for i := range list {
			if c := list[(start+i)%len(list)]; !containsWord(c, excluded) {
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
		if !containsWord(p, excluded) {
			parts = append(parts, p) // a phrase with an excluded word is left out, not cut
		}
	}
	text := strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
	var missing []string
	for _, w := range splitWords(s.RequiredWords) {
		if !containsWord(text, []string{w}) {
			missing = append(missing, w)
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

// splitWords splits a word list written with commas or line breaks.
func splitWords(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '\n' || r == '\r' || r == ';' }) {
		if w = strings.TrimSpace(w); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// containsWord reports whether s holds one of words as a whole word (or
// phrase), ignoring case.
func containsWord(s string, words []string) bool {
	fs := []rune(reviews.Fold(s))
	for _, w := range words {
		fw := []rune(reviews.Fold(w))
		if len(fw) == 0 {
			continue
		}
		for i := 0; i+len(fw) <= len(fs); i++ {
			if string(fs[i:i+len(fw)]) != string(fw) {
				continue
			}
			before := i == 0 || !isWordRune(fs[i-1])
			after := i+len(fw) == len(fs) || !isWordRune(fs[i+len(fw)])
			if before && after {
				return true
			}
		}
	}
	return false
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func upperFirst(s string) string {
	r := []rune(s)
	if len(r) == 0 {
		return s
	}
	return strings.ToUpper(string(r[0])) + string(r[1:])
}
