package mock

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/replymock/replymock/mock/internal/api"
	"github.com/replymock/replymock/mock/internal/generate"
	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/scenario"
	"github.com/replymock/replymock/mock/internal/shop"
	"github.com/replymock/replymock/scenarios"
)

// refShop is the living shop as it was when every session copied its
// scenario's reviews: all of them decoded into the session, changed in
// place, and the whole store rebuilt after every change. It is obviously
// right and slow; the real shop, which shares the scenario's data, must
// answer exactly as it does.
type refShop struct {
	spec      scenario.ShopSpec
	origin    time.Time
	frozen    time.Time
	advanced  time.Duration
	processed time.Time
	fbs       []Feedback
	st        *reviews.Store
	changedAt [5]time.Time
	arrivals  *generate.Arrivals
	arrived   int
	words     *generate.Engine // the reply engine: a random sequence of each review's own
	settings  Settings
}

func newRefShop(t *testing.T, sc *Scenario, now time.Time) *refShop {
	t.Helper()
	base, err := sc.Store()
	if err != nil {
		t.Fatal(err)
	}
	fbs, err := base.Feedbacks()
	if err != nil {
		t.Fatal(err)
	}
	return newRefShopOn(t, sc, now, fbs)
}

// newRefShopOn is the reference shop on fbs, oldest first, with their ids.
func newRefShopOn(t *testing.T, sc *Scenario, now time.Time, fbs []Feedback) *refShop {
	t.Helper()
	st, err := reviews.NewNumbered(slices.Clone(fbs))
	if err != nil {
		t.Fatal(err)
	}
	n := len(fbs)
	sh := &refShop{spec: *sc.Shop(), fbs: fbs, st: st, settings: sc.Settings(),
		words: generate.NewShopEngine(sc.Bank(), sc.Seed)}
	newest := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if n > 0 {
		newest, err = time.Parse(reviews.TimestampLayout, fbs[n-1].CreatedDate)
		if err != nil {
			t.Fatal(err)
		}
	}
	// A real clock shows now and goes on from the newest review, at
	// most two days before the scenario loaded; a frozen one starts at
	// the newest review.
	if l := sc.Loaded(); !l.IsZero() && l.Before(now) {
		now = l
	}
	sh.origin = newest
	if sh.spec.Clock == "frozen" {
		sh.frozen = sh.origin
	} else {
		// From the data's end, or its newest review if later.
		if g := sc.Generate(); g != nil {
			if end, err := time.Parse(reviews.TimestampLayout, g.End); err == nil && end.After(sh.origin) {
				sh.origin = end
			}
		}
		if now.Sub(sh.origin) > 48*time.Hour {
			sh.origin = now.Add(-48 * time.Hour)
		}
		if newest.After(now) {
			sh.advanced = newest.Sub(now)
		}
	}
	sh.processed = sh.origin
	for i := range sh.changedAt {
		sh.changedAt[i] = sh.origin
	}
	if g := sc.Generate(); g != nil && sc.Bank() != nil {
		sh.arrivals = generate.NewArrivals(*g, sc.Seed, sc.Bank(), sc.Media())
	}
	return sh
}

func (sh *refShop) now(real time.Time) time.Time {
	if sh.spec.Clock == "frozen" {
		return sh.frozen
	}
	return real.Add(sh.advanced)
}

// runShop is what every request that reads or changes the shop does first.
func (sh *refShop) runShop(t *testing.T, real time.Time) {
	t.Helper()
	at := sh.now(real)
	if sh.spec.Clock != "frozen" {
		at = at.Truncate(time.Second) // up to the last whole second
	}
	sh.run(t, at)
}

func (sh *refShop) advance(t *testing.T, real time.Time, d time.Duration) {
	t.Helper()
	sh.runShop(t, real)
	if sh.spec.Clock == "frozen" {
		sh.frozen = sh.frozen.Add(d)
	} else {
		sh.advanced += d
	}
	sh.run(t, sh.now(real))
}

// patch is what PATCH /settings/ai does to the shop: it runs up to now
// with the old settings, then the changed ratings can be answered from now.
func (sh *refShop) patch(t *testing.T, real time.Time, next Settings) {
	t.Helper()
	sh.runShop(t, real)
	for i := range next.Feedback {
		if !reflect.DeepEqual(next.Feedback[i], sh.settings.Feedback[i]) {
			sh.changedAt[i] = sh.now(real)
		}
	}
	sh.settings = next
}

func (sh *refShop) run(t *testing.T, now time.Time) {
	t.Helper()
	if !now.After(sh.processed) {
		return
	}
	changed := false
	if sh.spec.ArrivalsPerHour > 0 && sh.arrivals != nil {
		due := int(math.Floor(now.Sub(sh.origin).Hours()*sh.spec.ArrivalsPerHour + 1e-9))
		due = min(due, MaxShopReviews)
		for ; sh.arrived < due; sh.arrived++ {
			at := sh.origin.Add(time.Duration(float64(sh.arrived+1) / sh.spec.ArrivalsPerHour * float64(time.Hour)))
			fb := sh.arrivals.Next(at.Truncate(time.Second))
			fb.AnswerText, fb.AnswerState, fb.State, fb.WasViewed = "", "", "new", 0
			fb.CreatedAt = fb.CreatedDate
			fb.ID = 1 // numbered after every review the shop has
			for i := range sh.fbs {
				fb.ID = max(fb.ID, sh.fbs[i].ID+1)
			}
			sh.fbs = append(sh.fbs, fb)
			changed = true
		}
	}
	for i := range sh.fbs {
		if sh.reply(&sh.fbs[i], now) {
			changed = true
		}
	}
	sh.processed = now
	if !changed {
		return
	}
	st, err := reviews.NewNumbered(slices.Clone(sh.fbs))
	if err != nil {
		t.Fatal(err)
	}
	sh.st = st
}

func (sh *refShop) reply(f *Feedback, now time.Time) bool {
	if f.AnswerText != "" || f.ProductValuation < 1 || f.ProductValuation > 5 {
		return false
	}
	s := sh.settings.Feedback[f.ProductValuation-1]
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
	sh.words.Reply(f, s.ReplyMode, &sh.settings)
	return true
}

// listBody is the list's answer to rawQuery from st, byte for byte.
func listBody(t *testing.T, st *reviews.Store, rawQuery string) []byte {
	t.Helper()
	q, err := api.ListQuery(rawQuery)
	if err != nil {
		t.Fatalf("%s: %v", rawQuery, err)
	}
	res := st.Find(q)
	b := []byte(`{"success":true,"data":`)
	if q.CountsOnly {
		b = reviews.AppendCounts(b, res)
	} else {
		b = reviews.NewStack(st).AppendPage(b, res, q)
	}
	return append(b, '}')
}

// serve sends one request to s and returns its answer's body; it must be 200.
func serve(t *testing.T, s *Server, method, target, session, body string) []byte {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, rd)
	req.Header.Set(HeaderSession, session)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("%s %s: status %d: %s", method, target, rec.Code, rec.Body)
	}
	return rec.Body.Bytes()
}

// shopFiles serves demo's data as a living shop with the given shop key.
func shopFiles(t *testing.T, shop string) fstest.MapFS {
	t.Helper()
	files := fstest.MapFS{}
	for _, name := range []string{"default.yaml", "demo.yaml"} {
		data, err := fs.ReadFile(scenarios.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = &fstest.MapFile{Data: data}
	}
	files["shop.yaml"] = &fstest.MapFile{Data: []byte("extends: demo\ndescription: test shop\nshop: " + shop + "\n")}
	return files
}

// randomPatch writes a valid PATCH body changing some ratings' reply
// settings: modes, tones, dates, words, empty-review modes, signatures.
func randomPatch(rng *rand.Rand) string {
	modes := []string{"disabled", "auto", "auto", "semi_auto"}
	words := []string{"", "спасибо", "жаль, извините", "рады", "вернитесь\nждём снова", "Уютный дом"}
	var elems []string
	for r := 1; r <= 5; r++ {
		if rng.IntN(2) == 0 {
			continue
		}
		e := fmt.Sprintf(`{"rating":%d,"reply_mode":%q`, r, modes[rng.IntN(len(modes))])
		if rng.IntN(3) == 0 {
			e += fmt.Sprintf(`,"tone":%q`, []string{"formal", "friendly"}[rng.IntN(2)])
		}
		if rng.IntN(3) == 0 {
			e += fmt.Sprintf(`,"empty_review_mode":%q`, []string{"skip", "template", "generate"}[rng.IntN(3)])
		}
		switch rng.IntN(4) {
		case 0:
			e += `,"reply_from_date":null`
		case 1: // mostly where the reviews are, arrivals included, so that its day matters
			d := time.Date(2026, 11, 10, 0, 0, 0, 0, time.UTC).AddDate(0, 0, rng.IntN(15))
			if rng.IntN(4) == 0 {
				d = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, rng.IntN(365))
			}
			e += `,"reply_from_date":"` + d.Format(time.DateOnly) + `"`
		}
		if rng.IntN(3) == 0 {
			e += fmt.Sprintf(`,"excluded_words":%q`, words[rng.IntN(len(words))])
		}
		if rng.IntN(3) == 0 {
			e += fmt.Sprintf(`,"required_words":%q`, words[rng.IntN(len(words))])
		}
		if rng.IntN(4) == 0 {
			e += fmt.Sprintf(`,"signature":"Команда %d"`, rng.IntN(100))
		}
		elems = append(elems, e+"}")
	}
	return `{"feedback":[` + strings.Join(elems, ",") + `]}`
}

// randomQuery writes a list query: filters alone and combined, pages
// anywhere, counts.
func randomQuery(rng *rand.Rand, nmIDs []int64) string {
	var ps []string
	ps = append(ps, fmt.Sprintf("limit=%d", 1+rng.IntN(100)))
	if rng.IntN(2) == 0 {
		ps = append(ps, fmt.Sprintf("offset=%d", rng.IntN(3)*rng.IntN(900)))
	}
	if rng.IntN(2) == 0 {
		ps = append(ps, fmt.Sprintf("answered=%d", rng.IntN(2)))
	}
	if rng.IntN(2) == 0 {
		ps = append(ps, fmt.Sprintf("rating=%d", 1+rng.IntN(5)))
	}
	if rng.IntN(4) == 0 && len(nmIDs) > 0 {
		ps = append(ps, fmt.Sprintf("nm_id=%d", nmIDs[rng.IntN(len(nmIDs))]))
	}
	day := func() string {
		return time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, rng.IntN(120)).Format(time.DateOnly)
	}
	from, to := day(), day()
	if from > to {
		from, to = to, from
	}
	if rng.IntN(3) == 0 {
		ps = append(ps, "date_from="+from)
	}
	if rng.IntN(4) == 0 {
		ps = append(ps, "date_to="+to)
	}
	if rng.IntN(4) == 0 {
		ps = append(ps, "search="+url.QueryEscape([]string{"плед", "ОТЛИЧНО", "качество", "555", "а", "нет такого"}[rng.IntN(6)]))
	}
	if rng.IntN(6) == 0 {
		ps = append(ps, "counts_only=1")
	}
	rng.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
	return strings.Join(ps, "&")
}

// A living shop session answers every list query, page and count exactly
// as the full-copy reference does, through arrivals, drafts, answers,
// settings changes and clock advances, on a frozen and a real clock.
func TestShopMatchesFullCopy(t *testing.T) {
	for _, c := range []struct{ name, shop string }{
		{"frozen", "{arrivals_per_hour: 60, reply_delay: 10m, clock: frozen}"},
		{"real", "{arrivals_per_hour: 120, reply_delay: 1m, clock: real}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			clock := time.Date(2026, 11, 20, 9, 30, 0, 250, time.UTC)
			now := func() time.Time { return clock }
			s, err := New(Options{Scenarios: shopFiles(t, c.shop), Scenario: "shop", Now: now, SessionTTL: 10000 * time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			sc := s.scenarioMap()["shop"]
			base, _ := sc.Store()
			var nmIDs []int64
			for _, f := range listFeedbacks(t, base) {
				if !slices.Contains(nmIDs, f.NmID) {
					nmIDs = append(nmIDs, f.NmID)
				}
			}
			rng := rand.New(rand.NewPCG(uint64(len(c.name)), 9))
			for _, sid := range []string{"a", "b"} {
				shopAgainstRef(t, s, sid, newRefShop(t, sc, clock), &clock, rng, nmIDs)
			}
		})
	}
}

// shopAgainstRef runs steps of PATCHes, clock advances and time passing
// on session sid of s and on ref, checking the list, pages, counts and
// the clock against the reference after each. The server's clock is
// *clock.
func shopAgainstRef(t *testing.T, s *Server, sid string, ref *refShop, clockp *time.Time, rng *rand.Rand, nmIDs []int64) {
	t.Helper()
	clock := *clockp
	check := func(step int, what string) {
		t.Helper()
		// Now and then the whole list, page by page; always random queries.
		for off := 0; step%6 == 0; off += 100 {
			raw := fmt.Sprintf("limit=100&offset=%d", off)
			got := serve(t, s, "GET", "/api/v1/feedbacks?"+raw, sid, "")
			ref.runShop(t, clock)
			if want := listBody(t, ref.st, raw); !bytes.Equal(got, want) {
				t.Fatalf("session %s, step %d (%s): GET ?%s:\n got %.300s\nwant %.300s", sid, step, what, raw, got, want)
			}
			if off >= ref.st.Len() {
				break
			}
		}
		for range 12 {
			raw := randomQuery(rng, nmIDs)
			got := serve(t, s, "GET", "/api/v1/feedbacks?"+raw, sid, "")
			ref.runShop(t, clock)
			if want := listBody(t, ref.st, raw); !bytes.Equal(got, want) {
				t.Fatalf("session %s, step %d (%s): GET ?%s:\n got %.300s\nwant %.300s", sid, step, what, raw, got, want)
			}
		}
		var cl struct{ Data Clock }
		if err := json.Unmarshal(serve(t, s, "GET", "/__mock/clock", sid, ""), &cl); err != nil {
			t.Fatal(err)
		}
		ref.runShop(t, clock)
		if want := ref.now(clock).Format(reviews.TimestampLayout); cl.Data.Now != want {
			t.Fatalf("session %s, step %d: clock %s, want %s", sid, step, cl.Data.Now, want)
		}
	}
	check(0, "start")
	for step := 1; step <= 24; step++ {
		var what string
		switch k := rng.IntN(10); {
		case k < 3:
			body := randomPatch(rng)
			what = "PATCH " + body
			var env struct{ Data Settings }
			if err := json.Unmarshal(serve(t, s, "PATCH", "/api/v1/settings/ai", sid, body), &env); err != nil {
				t.Fatal(err)
			}
			ref.patch(t, clock, env.Data)
		case k < 6:
			d := time.Duration(1+rng.IntN(40)) * time.Minute
			what = "advance " + d.String()
			serve(t, s, "POST", "/__mock/clock", sid, `{"advance":"`+d.String()+`"}`)
			ref.advance(t, clock, d)
		case k < 8:
			d := time.Duration(1+rng.IntN(6)) * time.Hour
			what = "advance " + d.String()
			serve(t, s, "POST", "/__mock/clock", sid, `{"advance":"`+d.String()+`"}`)
			ref.advance(t, clock, d)
		default:
			d := time.Duration(rng.Int64N(int64(20 * time.Minute)))
			what = "time passes " + d.String()
			clock = clock.Add(d)
			*clockp = clock
		}
		check(step, what)
	}
	drafts, answered := 0, 0
	for _, f := range ref.fbs {
		if f.AnswerState == AnswerStateDraft {
			drafts++
		}
		if f.AnswerText != "" {
			answered++
		}
	}
	t.Logf("session %s: %d reviews at the end, %d answered, %d drafts", sid, ref.st.Len(), answered, drafts)
}

// listFeedbacks decodes every review of st, in the list's order.
func listFeedbacks(t *testing.T, st *reviews.Store) []Feedback {
	t.Helper()
	q := reviews.All()
	q.Limit = int64(st.Len())
	var out []Feedback
	for _, pos := range st.Find(q).Page {
		var f Feedback
		if err := json.Unmarshal(st.JSON(pos), &f); err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}

// Sessions advancing their shops differently, at the same time, each see
// exactly their own shop (as their own full-copy reference does), the
// default session sees the scenario's data, and the scenario's store, which
// they all stand on, never changes. Run it with -race.
func TestShopSessionsShareNothing(t *testing.T) {
	clock := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	s, err := New(Options{Scenarios: shopFiles(t, "{arrivals_per_hour: 60, reply_delay: 1m, clock: frozen}"), Scenario: "shop",
		Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	sc := s.scenarioMap()["shop"]
	base, _ := sc.Store()
	before := allJSON(base)
	baseList := listBody(t, base, "limit=100&offset=40")
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			sid := fmt.Sprintf("s%d", i)
			ref := newRefShop(t, sc, clock)
			rng := rand.New(rand.NewPCG(uint64(i), 1))
			body := fmt.Sprintf(`{"feedback":[{"rating":%d,"reply_mode":"auto","reply_from_date":null},{"rating":%d,"reply_mode":"semi_auto"}]}`, i%5+1, (i+2)%5+1)
			var env struct{ Data Settings }
			if err := json.Unmarshal(serve(t, s, "PATCH", "/api/v1/settings/ai", sid, body), &env); err != nil {
				t.Error(err)
				return
			}
			ref.patch(t, clock, env.Data)
			for step := range 6 {
				d := time.Duration(1+i) * time.Duration(1+step) * 9 * time.Minute
				serve(t, s, "POST", "/__mock/clock", sid, `{"advance":"`+d.String()+`"}`)
				ref.advance(t, clock, d)
				for range 5 {
					raw := randomQuery(rng, nil)
					got := serve(t, s, "GET", "/api/v1/feedbacks?"+raw, sid, "")
					ref.runShop(t, clock)
					if want := listBody(t, ref.st, raw); !bytes.Equal(got, want) {
						t.Errorf("session %s, step %d: GET ?%s:\n got %.300s\nwant %.300s", sid, step, raw, got, want)
						return
					}
				}
			}
		})
	}
	wg.Go(func() {
		for range 20 {
			if got := serve(t, s, "GET", "/api/v1/feedbacks?limit=100&offset=40", DefaultSession, ""); !bytes.Equal(got, baseList) {
				t.Errorf("the default session sees another session's shop:\n got %.300s\nwant %.300s", got, baseList)
				return
			}
		}
	})
	wg.Wait()
	if !bytes.Equal(allJSON(base), before) || !bytes.Equal(listBody(t, base, "limit=100&offset=40"), baseList) {
		t.Error("the scenario's store changed")
	}
}

func allJSON(st *reviews.Store) []byte {
	var b []byte
	for i := range st.Len() {
		b = append(append(b, st.JSON(i)...), '\n')
	}
	return b
}

// logRecords keeps the records logged at warn level and above.
type logRecords struct {
	mu      sync.Mutex
	records []slog.Record
}

func (l *logRecords) Enabled(_ context.Context, level slog.Level) bool {
	return level >= slog.LevelWarn
}
func (l *logRecords) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = append(l.records, r.Clone())
	return nil
}
func (l *logRecords) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logRecords) WithGroup(string) slog.Handler      { return l }

// evictions are the logged shop evictions: each one's session, and its
// attributes.
func (l *logRecords) evictions() []map[string]any {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []map[string]any
	for _, r := range l.records {
		if r.Level != slog.LevelWarn || !strings.HasPrefix(r.Message, "living shop evicted") {
			continue
		}
		attrs := map[string]any{}
		r.Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value.Any(); return true })
		out = append(out, attrs)
	}
	return out
}

// shopsUsed is the shops' accounted total, checked against the sizes of
// the shops it lists.
func shopsUsed(t *testing.T, s *Server) int64 {
	t.Helper()
	sum, used := s.st.Shops().Audit()
	if sum != used {
		t.Fatalf("shops account %d bytes, their sizes add up to %d", used, sum)
	}
	return used
}

// Many sessions advancing their shops past a small MaxShopBytes: the
// accounted total stays within it after every request, the least recently
// used shops are evicted (and logged with their session and sizes), an
// evicted shop starts again from the scenario's start while its session
// keeps its settings, the default session's shop goes last and keeps
// answering, and dropped sessions give their bytes back.
func TestShopBudget(t *testing.T) {
	clock := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	// One shop advanced a day: how big it is.
	probe, err := New(Options{Scenario: "demo-frozen", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	serve(t, probe, "POST", "/__mock/clock", "probe", `{"advance":"24h"}`)
	day := shopsUsed(t, probe)
	if day < 200<<10 || day > 8<<20 {
		t.Fatalf("a shop a day old accounts %d bytes: not the size of 720 reviews", day)
	}

	logs := &logRecords{}
	maxBytes := 3*day + day/2
	s, err := New(Options{Scenario: "demo-frozen", Now: now, MaxShopBytes: maxBytes, Logger: slog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	start := func() string {
		var env struct{ Data Clock }
		json.Unmarshal(serve(t, s, "GET", "/__mock/clock?session=nobody", "", ""), &env)
		return env.Data.Now
	}()
	clockOf := func(sid string) string {
		var env struct{ Data Clock }
		if err := json.Unmarshal(serve(t, s, "GET", "/__mock/clock", sid, ""), &env); err != nil {
			t.Fatal(err)
		}
		return env.Data.Now
	}
	serve(t, s, "POST", "/__mock/clock", DefaultSession, `{"advance":"24h"}`)
	serve(t, s, "PATCH", "/api/v1/settings/ai", "s0", `{"feedback":[{"rating":5,"tone":"kept"}]}`)
	for i := range 12 {
		sid := fmt.Sprintf("s%d", i)
		serve(t, s, "POST", "/__mock/clock", sid, `{"advance":"24h"}`)
		if used := shopsUsed(t, s); used > maxBytes {
			t.Fatalf("after %s advanced a day, the shops account %d bytes, over the %d allowed", sid, used, maxBytes)
		}
		serve(t, s, "GET", "/api/v1/feedbacks", sid, "")
		if used := shopsUsed(t, s); used > maxBytes {
			t.Fatalf("after %s listed, the shops account %d bytes, over the %d allowed", sid, used, maxBytes)
		}
	}
	ev := logs.evictions()
	if len(ev) < 9 {
		t.Fatalf("%d evictions logged, want at least 9 of the 12 sessions' shops", len(ev))
	}
	evicted := map[string]bool{}
	for _, a := range ev {
		sid, _ := a["session"].(string)
		evicted[sid] = true
		if a["scenario"] != "demo-frozen" || a["shop_bytes"].(int64) < day/2 || a["max_shop_bytes"].(int64) != maxBytes || a["shops_bytes"].(int64) > maxBytes {
			t.Errorf("eviction logged as %v", a)
		}
	}
	if evicted[DefaultSession] || evicted["s11"] || evicted["s10"] || !evicted["s0"] || !evicted["s5"] {
		t.Errorf("evicted %v: want the least recently used, never the default session's while others can go", evicted)
	}
	// The kept ones keep their day; an evicted one starts again, with its settings.
	if got := clockOf("s11"); got == start {
		t.Errorf("the most recent session's shop lost its day: clock %s", got)
	}
	if got := clockOf(DefaultSession); got == start {
		t.Errorf("the default session's shop lost its day: clock %s", got)
	}
	if got := clockOf("s0"); got != start {
		t.Errorf("an evicted shop's clock is %s, want the start %s", got, start)
	}
	var settings struct{ Data Settings }
	json.Unmarshal(serve(t, s, "GET", "/api/v1/settings/ai", "s0", ""), &settings)
	if settings.Data.Feedback[4].Tone != "kept" {
		t.Errorf("an evicted shop's session lost its settings: tone %q", settings.Data.Feedback[4].Tone)
	}
	if c := serve(t, s, "GET", "/api/v1/feedbacks?counts_only=1", "s0", ""); !bytes.Contains(c, []byte(`"total":1009`)) {
		t.Errorf("an evicted shop after its restart: %s, want the scenario's 1009 reviews", c)
	}
	if c := serve(t, s, "GET", "/api/v1/feedbacks?counts_only=1", DefaultSession, ""); !bytes.Contains(c, []byte(`"total":1729`)) {
		t.Errorf("the default session: %s, want its 1009 reviews and a day's 720 arrivals", c)
	}

	// A budget smaller than one shop: the shop itself goes, and requests still answer.
	tiny, err := New(Options{Scenario: "demo-frozen", Now: now, MaxShopBytes: day / 2, Logger: slog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	serve(t, tiny, "POST", "/__mock/clock", "big", `{"advance":"24h"}`)
	if used := shopsUsed(t, tiny); used > day/2 {
		t.Errorf("a shop over the whole budget is kept: %d bytes", used)
	}
	if c := serve(t, tiny, "GET", "/api/v1/feedbacks?counts_only=1", "big", ""); !bytes.Contains(c, []byte(`"total":1009`)) {
		t.Errorf("after its shop went over the whole budget: %s", c)
	}

	// Dropped sessions give their shops' bytes back.
	s.Reset(AllSessions)
	if used := shopsUsed(t, s); used != 0 {
		t.Errorf("after a reset of every session, the shops account %d bytes", used)
	}
	capped, err := New(Options{Scenario: "demo-frozen", Now: now, MaxSessions: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		serve(t, capped, "POST", "/__mock/clock", fmt.Sprintf("c%d", i), `{"advance":"24h"}`)
	}
	if used := shopsUsed(t, capped); used > 2*day+day/2 {
		t.Errorf("with 2 sessions kept, the shops account %d bytes (a shop: %d)", used, day)
	}
}

// BenchmarkShopRun compares the shop's engine with the full-copy
// reference (every session before stacks), on the demo's data with every
// rating answered automatically: a day at once, and a day hour by hour.
func BenchmarkShopRun(b *testing.B) {
	s, err := New(Options{Scenario: "demo-frozen"})
	if err != nil {
		b.Fatal(err)
	}
	sc := s.scenarioMap()["demo-frozen"]
	settings := sc.Settings()
	for i := range settings.Feedback {
		settings.Feedback[i].ReplyMode = "auto"
	}
	t := &testing.T{}
	for _, c := range []struct {
		name  string
		steps int
		each  time.Duration
	}{{"day-at-once", 1, 24 * time.Hour}, {"day-hourly", 24, time.Hour}} {
		b.Run(c.name+"/full-copy", func(b *testing.B) {
			for b.Loop() {
				ref := newRefShop(t, sc, time.Now())
				ref.settings = settings
				for range c.steps {
					ref.frozen = ref.frozen.Add(c.each)
					ref.run(t, ref.frozen)
				}
			}
		})
		b.Run(c.name+"/stack", func(b *testing.B) {
			for b.Loop() {
				base, err := sc.Store()
				if err != nil {
					b.Fatal(err)
				}
				sh := shop.New(sc, reviews.NewStack(base), time.Now())
				for range c.steps {
					sh.Advance(c.each)
					if err := sh.Run(time.Now(), settings); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// Sessions growing their shops at the same time past a small budget all
// get their answers, and once they are done the total is within it. Run
// it with -race: evictions take other sessions' locks.
func TestShopBudgetConcurrent(t *testing.T) {
	clock := time.Date(2026, 11, 20, 9, 30, 0, 0, time.UTC)
	logs := &logRecords{}
	const maxBytes = 2 << 20
	s, err := New(Options{Scenario: "demo-frozen", Now: func() time.Time { return clock }, MaxShopBytes: maxBytes, Logger: slog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Go(func() {
			for i := range 5 {
				sid := fmt.Sprintf("g%d-%d", g, i)
				serve(t, s, "POST", "/__mock/clock", sid, `{"advance":"8h"}`)
				serve(t, s, "PATCH", "/api/v1/settings/ai", sid, `{"feedback":[{"rating":5,"reply_mode":"auto"}]}`)
				serve(t, s, "POST", "/__mock/clock", sid, `{"advance":"8h"}`)
				serve(t, s, "GET", "/api/v1/feedbacks?answered=1&rating=5", sid, "")
				serve(t, s, "GET", "/api/v1/feedbacks?counts_only=1", DefaultSession, "")
			}
		})
	}
	wg.Wait()
	serve(t, s, "GET", "/api/v1/feedbacks", "last", "") // a use of a shop evicts what busy sessions kept
	if used := shopsUsed(t, s); used > maxBytes {
		t.Errorf("the shops account %d bytes, over the %d allowed", used, maxBytes)
	}
	if len(logs.evictions()) == 0 {
		t.Error("no eviction logged")
	}
}
