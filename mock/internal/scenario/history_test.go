package scenario

import (
	"fmt"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"
	"unicode/utf8"

	"github.com/replymock/replymock/fixtures"
	"github.com/replymock/replymock/mock/internal/generate"
	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/settings"
	"gopkg.in/yaml.v3"
)

// Every record of every shipped scenario follows the upstream's rules,
// and every generated one its scenario's settings: what the reply engine
// answered, drafted and left is what the settings say, checked here from
// the settings' own words, not by running the engine again.
func TestShippedDataRules(t *testing.T) {
	scs := load(t, Config{}, "").All()
	fixtureIDs := shippedFixtureIDs(t)
	checked := 0
	for _, name := range slices.Sorted(maps.Keys(scs)) {
		sc := scs[name]
		st, err := sc.Store()
		if err != nil {
			t.Fatal(err)
		}
		fbs := listFeedbacks(t, st)
		var gen []reviews.Feedback
		for i := range fbs {
			for _, p := range upstreamProblems(&fbs[i]) {
				t.Errorf("%s: %s: %s", name, fbs[i].FeedbackID, p)
			}
			if !fixtureIDs[fbs[i].FeedbackID] {
				gen = append(gen, fbs[i])
			}
		}
		if g := sc.Generate(); g != nil && len(gen) > 0 {
			// The history is as of its newest review, where a frozen
			// living shop's clock starts.
			newest := slices.MaxFunc(gen, func(a, b reviews.Feedback) int { return strings.Compare(a.CreatedDate, b.CreatedDate) })
			end, err := time.Parse(time.DateTime, newest.CreatedDate)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range historyProblems(gen, sc.history, end, sc.HistoryDelay(), g.Replies == generate.RepliesNone) {
				t.Errorf("%s: %s", name, p)
			}
			for _, p := range varietyProblems(gen, sc.Bank(), g.Products) {
				t.Errorf("%s: %s", name, p)
			}
		}
		checked += len(fbs)
	}
	if checked < 100_000 {
		t.Fatalf("checked %d records; want every shipped scenario's", checked)
	}
}

// shippedFixtureIDs are the feedback ids of the hand-written fixtures:
// they hold what a client must render, as written, not what the engine
// would write.
func shippedFixtureIDs(t *testing.T) map[string]bool {
	t.Helper()
	ids := map[string]bool{}
	err := fs.WalkDir(fixtures.FS, "reviews", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fixtures.FS, path)
		if err != nil {
			return err
		}
		var f struct {
			Reviews []struct {
				FeedbackID string `yaml:"feedback_id"`
			}
		}
		if err := yaml.Unmarshal(data, &f); err != nil {
			return err
		}
		for _, r := range f.Reviews {
			ids[r.FeedbackID] = true
		}
		return nil
	})
	if err != nil || len(ids) == 0 {
		t.Fatalf("fixture ids: %v (%d)", err, len(ids))
	}
	return ids
}

var upstreamID = regexp.MustCompile(`^[A-Za-z0-9_-]{20}$`)

// upstreamProblems are the ways f breaks what the upstream's data shows.
func upstreamProblems(f *reviews.Feedback) []string {
	var probs []string
	if !upstreamID.MatchString(f.FeedbackID) {
		probs = append(probs, "feedback_id is not 20 letters, digits, _ or -")
	}
	ratingOnly := f.Text == "" && f.Pros == "" && f.Cons == "" && f.Photos == "[]" && string(f.Video) == "null"
	if ratingOnly && f.ProductValuation < 4 {
		probs = append(probs, fmt.Sprintf("rating-only at %d stars: upstream, only 4 and 5 may be", f.ProductValuation))
	}
	if f.ValuationTags != "[]" && f.ProductValuation < 4 {
		probs = append(probs, "buyer tags on a review under 4 stars")
	}
	switch {
	case f.AnswerText != "" && (f.AnswerState != "sent" || f.State != "done"):
		probs = append(probs, fmt.Sprintf("answered with answer_state %q, state %q", f.AnswerState, f.State))
	case f.AnswerText == "" && f.AnswerState == generate.AnswerStateDraft && f.State != generate.StateDraft:
		probs = append(probs, fmt.Sprintf("a draft with state %q", f.State))
	case f.AnswerText == "" && f.AnswerState != "" && f.AnswerState != generate.AnswerStateDraft:
		probs = append(probs, fmt.Sprintf("unanswered with answer_state %q", f.AnswerState))
	}
	return probs
}

// historyProblems checks generated reviews against the settings they
// were answered by, as of end, with the engine's delay: every answer has
// a reason in the settings and follows their words; every review left
// unanswered has a reason too.
func historyProblems(fbs []reviews.Feedback, st settings.Settings, end time.Time, delay time.Duration, nobody bool) []string {
	var probs []string
	answered := map[int]int{}
	for _, f := range fbs {
		s := st.Feedback[f.ProductValuation-1]
		created, err := time.Parse(time.DateTime, f.CreatedDate)
		if err != nil {
			probs = append(probs, fmt.Sprintf("%s: created_date: %v", f.FeedbackID, err))
			continue
		}
		empty := f.Text == "" && f.Pros == "" && f.Cons == ""
		// Why the engine would leave it: one of these.
		var why []string
		if nobody {
			why = append(why, "replies: none")
		}
		if s.ReplyMode == "disabled" {
			why = append(why, "its rating is disabled")
		}
		if s.ReplyFromDate != nil && f.CreatedDate[:10] < *s.ReplyFromDate {
			why = append(why, "it is older than reply_from_date")
		}
		if empty && s.EmptyReviewMode == "skip" {
			why = append(why, "it is rating-only and empty reviews are skipped")
		}
		if created.Add(delay).After(end) {
			why = append(why, "it is newer than the reply delay")
		}
		id := f.FeedbackID
		switch {
		case f.AnswerText != "":
			answered[f.ProductValuation]++
			if len(why) > 0 {
				probs = append(probs, fmt.Sprintf("%s (%d★, %s) is answered, but %s", id, f.ProductValuation, f.CreatedDate, why[0]))
			}
			if s.ReplyMode == "semi_auto" && end.Sub(created) < generate.DraftsSentAfter {
				probs = append(probs, fmt.Sprintf("%s (%d★) is answered on semi_auto before a person would have sent its draft", id, f.ProductValuation))
			}
			probs = append(probs, answerProblems(id, f.AnswerText, s)...)
		case f.AnswerState == generate.AnswerStateDraft:
			if s.ReplyMode != "semi_auto" || len(why) > 0 {
				probs = append(probs, fmt.Sprintf("%s (%d★, %s) has a draft, with reply_mode %s, %v", id, f.ProductValuation, s.ReplyMode, f.CreatedDate, why))
			}
		default:
			if len(why) == 0 {
				probs = append(probs, fmt.Sprintf("%s (%d★, %s, reply_mode %s) is left unanswered, though nothing in the settings says why", id, f.ProductValuation, f.CreatedDate, s.ReplyMode))
			}
		}
	}
	if !nobody {
		for r := 1; r <= 5; r++ {
			if st.Feedback[r-1].ReplyMode != "disabled" && answered[r] == 0 && countRating(fbs, r) > 20 {
				probs = append(probs, fmt.Sprintf("no %d★ review is answered, on %s", r, st.Feedback[r-1].ReplyMode))
			}
		}
	}
	return probs
}

func countRating(fbs []reviews.Feedback, r int) int {
	n := 0
	for _, f := range fbs {
		if f.ProductValuation == r {
			n++
		}
	}
	return n
}

// answerProblems checks an answer against its rating's settings: the
// signature last, every required word, no excluded word but for those the
// required words or the signature hold themselves.
func answerProblems(id, answer string, s settings.FeedbackSettings) []string {
	var probs []string
	if s.Signature != "" && !strings.HasSuffix(answer, s.Signature) {
		probs = append(probs, fmt.Sprintf("%s: the answer does not end with the signature %q: %q", id, s.Signature, answer))
	}
	for _, w := range generate.SplitWords(s.RequiredWords) {
		if !generate.ContainsWord(answer, []string{w}) {
			probs = append(probs, fmt.Sprintf("%s: the answer lacks the required %q: %q", id, w, answer))
		}
	}
	for _, w := range generate.SplitWords(s.ExcludedWords) {
		if generate.ContainsWord(answer, []string{w}) && !generate.ContainsWord(s.RequiredWords+" "+s.Signature, []string{w}) {
			probs = append(probs, fmt.Sprintf("%s: the answer holds the excluded %q: %q", id, w, answer))
		}
	}
	return probs
}

// varietyProblems checks that the generated reviews vary as the
// upstream's do: cards of several products, articles of several styles,
// ids with _ and -, texts from a word to paragraphs, lists of pros and
// cons on lines, "nothing" alone, and pros and cons that fit the rating.
func varietyProblems(fbs []reviews.Feedback, bank *generate.Bank, products int) []string {
	if len(fbs) < 300 {
		return nil // too few to ask for every kind
	}
	var probs []string
	nms := map[int64]map[int64]bool{}
	imtOf := map[int64]int64{}
	styles := map[string]bool{}
	lengths := make([]int, 0, len(fbs))
	var underscore, multiline, listLines int
	nothing := map[string]bool{}
	for _, w := range bank.Nothing {
		nothing[w] = true
	}
	fit := func(r *generate.SentimentBank) map[string]bool {
		m := map[string]bool{}
		for _, w := range append(slices.Clone(r.Pros), r.Cons...) {
			m[strings.ToLower(w)] = true
		}
		return m
	}
	for _, f := range fbs {
		if nms[f.ImtID] == nil {
			nms[f.ImtID] = map[int64]bool{}
		}
		nms[f.ImtID][f.NmID] = true
		if prev, ok := imtOf[f.NmID]; ok && prev != f.ImtID {
			probs = append(probs, fmt.Sprintf("nm_id %d is under imt_id %d and %d", f.NmID, prev, f.ImtID))
		}
		imtOf[f.NmID] = f.ImtID
		styles[articleShape(f.SupplierArticle)] = true
		if strings.ContainsAny(f.FeedbackID, "_-") {
			underscore++
		}
		if f.Text != "" {
			lengths = append(lengths, utf8.RuneCountInString(f.Text))
		}
		if strings.Contains(f.Text, "\n") {
			multiline++
		}
		for field, v := range map[string]string{"pros": f.Pros, "cons": f.Cons} {
			if v == "" {
				continue
			}
			if strings.Contains(v, "\n") {
				listLines++
			}
			// One item a line; on one line, items with commas (an item
			// may hold a comma itself: itemsFrom tries both).
			items := strings.Split(v, "\n")
			if nothing[v] {
				continue
			}
			own := fit(&bank.Reviews.Positive)
			switch {
			case f.ProductValuation <= 2:
				own = fit(&bank.Reviews.Negative)
			case f.ProductValuation == 3:
				own = fit(&bank.Reviews.Neutral)
			}
			for _, item := range items {
				if nothing[strings.ToLower(item)] {
					probs = append(probs, fmt.Sprintf("%s: %s %q lists %q with other items", f.FeedbackID, field, v, item))
				}
				if !itemsFrom(strings.ToLower(item), own) {
					probs = append(probs, fmt.Sprintf("%s: %d★ %s %q does not fit its rating", f.FeedbackID, f.ProductValuation, field, v))
					break
				}
			}
		}
	}
	several := 0
	for _, set := range nms {
		if len(set) > 1 {
			several++
		}
	}
	if products >= 10 && several == 0 {
		probs = append(probs, "no imt_id groups several nm_ids")
	}
	if products >= 10 && len(styles) < 3 {
		probs = append(probs, fmt.Sprintf("articles come in %d styles: %v", len(styles), slices.Sorted(maps.Keys(styles))))
	}
	if underscore == 0 {
		probs = append(probs, "no feedback_id holds _ or -")
	}
	slices.Sort(lengths)
	if len(lengths) > 0 && (lengths[0] > 20 || lengths[len(lengths)-1] < 350) {
		probs = append(probs, fmt.Sprintf("texts run from %d to %d characters; want a word or three to paragraphs", lengths[0], lengths[len(lengths)-1]))
	}
	if multiline == 0 || listLines == 0 {
		probs = append(probs, fmt.Sprintf("%d texts and %d pros or cons on several lines; want some of each", multiline, listLines))
	}
	return probs
}

// itemsFrom reports whether item is one entry of own, or entries of own
// joined with ", " (an entry may hold a comma itself).
func itemsFrom(item string, own map[string]bool) bool {
	if own[item] {
		return true
	}
	for k := range own {
		if rest, ok := strings.CutPrefix(item, k+", "); ok && itemsFrom(rest, own) {
			return true
		}
	}
	return false
}

// articleShape is an article with letters written A and digits 9.
func articleShape(a string) string {
	if a == "" {
		return "(empty)"
	}
	var b strings.Builder
	for _, r := range a {
		switch {
		case r >= '0' && r <= '9':
			b.WriteByte('9')
		case r == '-' || r == '/':
			b.WriteRune(r)
		default:
			b.WriteByte('A')
		}
	}
	return regexp.MustCompile(`A+`).ReplaceAllString(b.String(), "A")
}

// replies: none leaves the history to nobody; answered, its older form,
// still reads: 0 is none, any other share the settings' engine, which
// alone decides what is answered.
func TestRepliesAndAnswered(t *testing.T) {
	files := fstest.MapFS{}
	for name, line := range map[string]string{"engine": "replies: settings", "nobody": "replies: none", "old-zero": "answered: 0", "old-share": "answered: 0.6"} {
		files[name+".yaml"] = &fstest.MapFile{Data: []byte("description: x\nseed: 7\nsettings: settings/default.yaml\ndata:\n  generate:\n    count: 300\n    " + line + "\n")}
	}
	scs := load(t, Config{Scenarios: files}, "engine").All()
	answered := map[string]int{}
	bodies := map[string]string{}
	for _, name := range []string{"engine", "nobody", "old-zero", "old-share"} {
		st, err := scs[name].Store()
		if err != nil {
			t.Fatal(err)
		}
		var all strings.Builder
		for _, f := range listFeedbacks(t, st) {
			if f.AnswerText != "" || f.AnswerState != "" {
				answered[name]++
			}
			all.WriteString(f.FeedbackID + f.AnswerText + f.AnswerState + "\n")
		}
		bodies[name] = all.String()
	}
	if answered["engine"] < 200 || answered["nobody"] != 0 || answered["old-zero"] != 0 {
		t.Errorf("answered or drafted: %v; want most for replies: settings, none for replies: none and answered: 0", answered)
	}
	// The same data key, so one store: answered: 0.6 is read as settings.
	if bodies["old-share"] != bodies["engine"] || bodies["old-zero"] != bodies["nobody"] {
		t.Errorf("answered: 0.6 and 0 do not give the data of replies: settings and none")
	}
}

// listFeedbacks is every review of st.
func listFeedbacks(t *testing.T, st *reviews.Store) []reviews.Feedback {
	t.Helper()
	fbs, err := st.Feedbacks()
	if err != nil {
		t.Fatal(err)
	}
	return fbs
}

// minDistinctLong is the share of a shipped scenario's long texts (of
// longText characters or more) that must be distinct: a reader scrolling
// the list does not meet a paragraph twice.
const (
	longText        = 60
	minDistinctLong = 0.98
)

// In every shipped scenario, the long review texts (text, pros and cons,
// each on its own) are at least minDistinctLong distinct.
func TestShippedLongTextsAreDistinct(t *testing.T) {
	l := NewLoader(Config{ShippedScenarios: true, ShippedFixtures: true, PublicURL: "http://localhost:8080"})
	reg, err := Load(l, time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC), "default")
	if err != nil {
		t.Fatal(err)
	}
	all := reg.All()
	for _, name := range slices.Sorted(maps.Keys(all)) {
		st, err := all[name].Store()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		fbs, err := st.Feedbacks()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, field := range []struct {
			name string
			of   func(*reviews.Feedback) string
		}{{"text", func(f *reviews.Feedback) string { return f.Text }}, {"pros", func(f *reviews.Feedback) string { return f.Pros }}, {"cons", func(f *reviews.Feedback) string { return f.Cons }}} {
			seen := map[string]int{}
			long := 0
			for i := range fbs {
				if s := field.of(&fbs[i]); utf8.RuneCountInString(s) >= longText {
					long++
					seen[s]++
				}
			}
			top, most := "", 0
			for s, n := range seen {
				if n > most || n == most && s < top {
					top, most = s, n
				}
			}
			t.Logf("%s %s: %d long, %d distinct; the most repeated %d times", name, field.name, long, len(seen), most)
			if long > 0 && float64(len(seen)) < minDistinctLong*float64(long) {
				t.Errorf("%s: of %d %s of %d characters or more, %d are distinct (%.1f%%), want %.0f%%; %q comes %d times",
					name, long, field.name, longText, len(seen), 100*float64(len(seen))/float64(long), 100*minDistinctLong, top, most)
			}
		}
	}
}
