package mock_test

import (
	"crypto/rand"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/replymock/replymock/fixtures"
	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/scenarios"
)

// shopServer serves a frozen living shop without arrivals (unless asked)
// whose reply modes are all disabled (the demo's settings otherwise), so
// that the reply engine's work can be counted exactly.
func shopServer(t *testing.T, arrivals int) http.Handler {
	t.Helper()
	files := fstest.MapFS{}
	for _, name := range []string{"default.yaml", "demo.yaml"} {
		files[name] = &fstest.MapFile{Data: mustRead(t, scenarios.FS, name)}
	}
	files["shop.yaml"] = &fstest.MapFile{Data: fmt.Appendf(nil,
		"extends: demo\ndescription: test shop\nsettings: settings/quiet.yaml\nshop: {arrivals_per_hour: %d, reply_delay: 10m, clock: frozen}\n", arrivals)}
	quiet := regexp.MustCompile(`reply_mode: \w+`).ReplaceAll(mustRead(t, fixtures.FS, "settings/demo.yaml"), []byte("reply_mode: disabled"))
	fix := fstest.MapFS{"settings/quiet.yaml": &fstest.MapFile{Data: quiet}}
	return newServer(t, mock.Options{Scenarios: files, Scenario: "shop", Fixtures: fix, ShippedFixtures: true})
}

func advance(t *testing.T, h http.Handler, session, by string) mock.Clock {
	t.Helper()
	var c mock.Clock
	decodeOK(t, "advance "+by, admin(t, h, "POST", "/__mock/clock?session="+session, `{"advance":"`+by+`"}`), &c)
	return c
}

func listAll(t *testing.T, h http.Handler, session, query string) []mock.Feedback {
	t.Helper()
	var all []mock.Feedback
	for offset := 0; ; offset += 100 {
		var d listData
		decodeOK(t, query, get(t, h, fmt.Sprintf("/api/v1/feedbacks?limit=100&offset=%d&%s", offset, query), "X-Mock-Session", session), &d)
		all = append(all, d.Feedbacks...)
		if len(d.Feedbacks) < 100 {
			return all
		}
	}
}

// Switching rating 1 to auto and advancing the clock answers exactly the
// unanswered 1-star reviews from reply_from_date on (rating-only ones are
// skipped), each with the signature last, every required word and no
// excluded one. Other ratings stay as they were.
func TestShopAnswersByTheSettings(t *testing.T) {
	h := shopServer(t, 0)
	before := listAll(t, h, "s", "")
	var want []int64
	for _, f := range before {
		if f.ProductValuation == 1 && f.AnswerText == "" && f.CreatedDate >= "2026-01-01" && (f.Text != "" || f.Pros != "" || f.Cons != "") {
			want = append(want, f.ID)
		}
	}
	if len(want) < 3 {
		t.Fatalf("only %d unanswered 1-star reviews to work on", len(want))
	}
	decodeOK(t, "PATCH", do(t, h, "PATCH", "/api/v1/settings/ai",
		`{"feedback":[{"rating":1,"reply_mode":"auto","tone":"formal","signature":"Команда теста","excluded_words":"жаль, возврат","required_words":"извините\nсвяжитесь с нами"}]}`,
		"Content-Type", "application/json", "X-Mock-Session", "s"), new(mock.Settings))
	advance(t, h, "s", "5m")
	if c := countsAs(t, h, "s"); c.Answered != countAnswered(before) {
		t.Fatalf("answered %d before the reply delay passed, want %d", c.Answered, countAnswered(before))
	}
	advance(t, h, "s", "10m")
	after := listAll(t, h, "s", "")
	byID := map[int64]mock.Feedback{}
	for _, f := range after {
		byID[f.ID] = f
	}
	for _, id := range want {
		f := byID[id]
		switch {
		case f.AnswerText == "" || f.AnswerState != "sent" || f.State != "done":
			t.Errorf("review %d not answered: %q %q %q", id, f.AnswerText, f.AnswerState, f.State)
		case !strings.HasSuffix(f.AnswerText, "Команда теста"):
			t.Errorf("review %d: answer %q does not end with the signature", id, f.AnswerText)
		case !strings.Contains(strings.ToLower(f.AnswerText), "извините") || !strings.Contains(strings.ToLower(f.AnswerText), "свяжитесь с нами"):
			t.Errorf("review %d: answer %q lacks a required word", id, f.AnswerText)
		case strings.Contains(strings.ToLower(f.AnswerText), "жаль") || strings.Contains(strings.ToLower(f.AnswerText), "возврат"):
			t.Errorf("review %d: answer %q has an excluded word", id, f.AnswerText)
		}
	}
	if got := countAnswered(after) - countAnswered(before); got != len(want) {
		t.Errorf("%d reviews answered, want exactly the %d due", got, len(want))
	}
	for _, f := range before {
		if g := byID[f.ID]; f.ProductValuation != 1 && g.AnswerText != f.AnswerText {
			t.Errorf("review %d of rating %d changed with rating 1's settings", f.ID, f.ProductValuation)
		}
	}
	// The list's counts move with it, and another session saw nothing.
	if c := countsAs(t, h, "s"); c.Answered != countAnswered(before)+len(want) {
		t.Errorf("counts_only answered %d, want %d", c.Answered, countAnswered(before)+len(want))
	}
	if c := countsAs(t, h, "other"); c.Answered != countAnswered(before) {
		t.Errorf("session other sees %d answered, want the untouched %d", c.Answered, countAnswered(before))
	}
}

func countAnswered(fbs []mock.Feedback) int {
	n := 0
	for _, f := range fbs {
		if f.AnswerText != "" {
			n++
		}
	}
	return n
}

func countsAs(t *testing.T, h http.Handler, session string) countsData {
	t.Helper()
	return counts(t, h, "X-Mock-Session", session)
}

// semi_auto makes drafts, which are not answers; disabled does nothing.
func TestShopDraftsAndDisabled(t *testing.T) {
	h := shopServer(t, 0)
	before := countsAs(t, h, "s")
	advance(t, h, "s", "24h")
	if c := countsAs(t, h, "s"); c != before {
		t.Errorf("with every mode disabled, a day changed the counts: %+v -> %+v", before, c)
	}
	do(t, h, "PATCH", "/api/v1/settings/ai", `{"feedback":[{"rating":5,"reply_mode":"semi_auto"}]}`, "Content-Type", "application/json", "X-Mock-Session", "s")
	advance(t, h, "s", "1h")
	drafts := 0
	for _, f := range listAll(t, h, "s", "rating=5&answered=0") {
		if f.AnswerState == mock.AnswerStateDraft && f.State == mock.StateDraft && f.AnswerText == "" {
			drafts++
		}
	}
	if drafts == 0 {
		t.Error("semi_auto made no drafts")
	}
	if c := countsAs(t, h, "s"); c != before {
		t.Errorf("drafts counted as answers: %+v -> %+v", before, c)
	}
}

// Arrivals come at the rate, newest first, with new ids; out of the box
// (the demo's settings), those of 4 and 5 stars older than the reply
// delay have an answer, the others none.
func TestShopArrivals(t *testing.T) {
	h := newServer(t, mock.Options{Scenario: "demo-frozen"})
	before := listAll(t, h, "a", "")
	clock := advance(t, h, "a", "2h")
	after := listAll(t, h, "a", "")
	if len(after)-len(before) != 60 {
		t.Fatalf("%d new reviews in 2 hours at 30 an hour, want 60", len(after)-len(before))
	}
	maxID := int64(0)
	for _, f := range before {
		maxID = max(maxID, f.ID)
	}
	now, err := time.Parse(time.DateTime, clock.Now)
	if err != nil {
		t.Fatal(err)
	}
	answered := 0
	for i, f := range after[:60] {
		if f.ID <= maxID || f.CreatedDate > clock.Now || f.CreatedDate <= before[0].CreatedDate {
			t.Errorf("new review %d: id %d (old max %d), created %s (clock %s)", i, f.ID, maxID, f.CreatedDate, clock.Now)
		}
		due := f.ProductValuation >= 4 && f.CreatedDate <= now.Add(-10*time.Minute).Format(time.DateTime)
		if due != (f.AnswerText != "") {
			t.Errorf("new review %d: %d stars, created %s (clock %s): answer %q", i, f.ProductValuation, f.CreatedDate, clock.Now, f.AnswerText)
		}
		if f.AnswerText != "" {
			answered++
		}
	}
	if answered == 0 {
		t.Error("no new review answered in two hours of the demo's shop")
	}
	checkOrder(t, after)
	if got := listAll(t, h, "b", ""); len(got) != len(before) {
		t.Errorf("session b has %d reviews, want the untouched %d", len(got), len(before))
	}
	// Unchanged ids: the old reviews keep theirs.
	if after[60].ID != before[0].ID || after[len(after)-1].ID != before[len(before)-1].ID {
		t.Error("old reviews changed ids after arrivals")
	}
}

func TestShopClockErrors(t *testing.T) {
	h := newServer(t, mock.Options{})
	checkError(t, "clock of a still shop", admin(t, h, "GET", "/__mock/clock", ""), 400, mock.CodeInvalidParameter, "session")
	d := newServer(t, mock.Options{Scenario: "demo-frozen"})
	checkError(t, "bad advance", admin(t, d, "POST", "/__mock/clock", `{"advance":"-1h"}`), 400, mock.CodeInvalidBody, "advance")
	checkError(t, "zero advance", admin(t, d, "POST", "/__mock/clock", `{}`), 400, mock.CodeInvalidBody, "advance")
	var c mock.Clock
	decodeOK(t, "GET clock", admin(t, d, "GET", "/__mock/clock", ""), &c)
	if !c.Frozen || c.Scenario != "demo-frozen" || c.Now == "" {
		t.Errorf("clock %+v", c)
	}
}

// Drafts are sent once the mode turns auto; excluded words are whole
// words; a rating-only template never thanks a low rating; the data view
// follows the shop.
func TestShopDraftsThenAutoAndWords(t *testing.T) {
	h := shopServer(t, 0)
	do(t, h, "PATCH", "/api/v1/settings/ai", `{"feedback":[{"rating":2,"reply_mode":"semi_auto","empty_review_mode":"template"}]}`, "Content-Type", "application/json", "X-Mock-Session", "s")
	advance(t, h, "s", "1h")
	drafts := map[int64]bool{}
	for _, f := range listAll(t, h, "s", "rating=2") {
		if f.AnswerState == mock.AnswerStateDraft {
			drafts[f.ID] = true
		}
	}
	if len(drafts) == 0 {
		t.Fatal("no drafts")
	}
	do(t, h, "PATCH", "/api/v1/settings/ai", `{"feedback":[{"rating":2,"reply_mode":"auto","excluded_words":"ан, жаль"}]}`, "Content-Type", "application/json", "X-Mock-Session", "s")
	advance(t, h, "s", "1h")
	for _, f := range listAll(t, h, "s", "rating=2") {
		if !drafts[f.ID] {
			continue // answered in the data from the start
		}
		if f.AnswerState != "sent" || f.AnswerText == "" {
			t.Errorf("review %d is not sent after the mode turned auto: %q", f.ID, f.AnswerState)
		}
		low := strings.ToLower(f.AnswerText)
		if strings.Contains(low, "высокую оценку") {
			t.Errorf("review %d (2 stars) thanked for a high rating: %q", f.ID, f.AnswerText)
		}
		if strings.Contains(low, " жаль") || strings.Contains(low, "тон,") {
			t.Errorf("review %d: excluded word left or a name cut: %q", f.ID, f.AnswerText)
		}
	}
	var d mock.DataSummary
	decodeOK(t, "data", admin(t, h, "GET", "/__mock/data?session=s", ""), &d)
	if c := countsAs(t, h, "s"); d.Answered != c.Answered {
		t.Errorf("/__mock/data says %d answered, the list %d", d.Answered, c.Answered)
	}
}

// A living shop is the same in every session, whatever its id: the same
// settings and clock give the same replies, word for word.
func TestShopSameInEverySession(t *testing.T) {
	h := shopServer(t, 30)
	replies := func(sid string) []mock.Feedback {
		t.Helper()
		r := do(t, h, "PATCH", "/api/v1/settings/ai", `{"feedback":[{"rating":5,"reply_mode":"auto"},{"rating":1,"reply_mode":"auto"}]}`,
			"Content-Type", "application/json", "X-Mock-Session", sid)
		decodeOK(t, "PATCH", r, new(mock.Settings))
		advance(t, h, sid, "3h")
		return listAll(t, h, sid, "answered=1")
	}
	a, b := replies(rand.Text()), replies(rand.Text())
	if len(a) != len(b) || len(a) < 100 {
		t.Fatalf("answered: %d and %d reviews", len(a), len(b))
	}
	for i := range a {
		if a[i].ID != b[i].ID || a[i].AnswerText != b[i].AnswerText {
			t.Fatalf("review %d: %q\nin the other session: review %d %q", a[i].ID, a[i].AnswerText, b[i].ID, b[i].AnswerText)
		}
	}
}

// The demo's data ends when the scenario loads, and its real-clock shop
// goes on from there: no burst of arrivals fills the stretch between the
// history's newest review and the start; then 30 an hour come, as said.
// A shop whose data ended long ago fills at most the last two days.
func TestRealClockShopGoesOnFromTheDataEnd(t *testing.T) {
	clock := &fakeClock{t: time.Date(2027, 3, 1, 12, 0, 0, 0, time.UTC)}
	h := newServer(t, mock.Options{Scenario: "demo", Now: clock.now})
	total := func(scenario string) int {
		var c struct{ Total, Answered, Unanswered int }
		decodeOK(t, "counts", get(t, h, "/api/v1/feedbacks?counts_only=1", "X-Mock-Session", "s-"+scenario, "X-Mock-Scenario", scenario), &c)
		return c.Total
	}
	if n := total("demo"); n != 1009 {
		t.Errorf("demo at its start: %d reviews, want the 1,009 of its data and no burst of arrivals", n)
	}
	clock.add(time.Hour)
	if n := total("demo"); n != 1039 {
		t.Errorf("demo an hour later: %d reviews, want 1,039 (30 an hour)", n)
	}
	// The default data ends on 2026-11-15: a real-clock shop on it, months
	// later, fills the two days before now, not the months between.
	def, err := scenarios.FS.ReadFile("default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files := fstest.MapFS{"default.yaml": {Data: def}, "old.yaml": {Data: []byte("extends: default\ndescription: x\nshop: {arrivals_per_hour: 1, clock: real}\n")}}
	h = newServer(t, mock.Options{Scenarios: files, Now: clock.now})
	if n := total("old"); n != 1009+48 {
		t.Errorf("a real-clock shop on data that ended months ago: %d reviews, want 1,009 and 48 hours of arrivals", n)
	}
}
