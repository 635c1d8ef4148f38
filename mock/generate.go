package mock

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/brianvoe/gofakeit/v6"
	"github.com/replymock/replymock/mock/internal/media"
	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/wire"
)

// locales are the languages the generator writes reviews in.
var locales = []string{"ru", "en"}

// phraseBank is a fixture (kind: phrases) of everything the generator
// writes: product names, brands, people's names, review sentences, tags
// and seller answers, in one locale.
type phraseBank struct {
	Kind      string   `yaml:"kind"`
	Locale    string   `yaml:"locale"`
	Anonymous string   `yaml:"anonymous"`
	Names     []string `yaml:"names"`
	Brands    []string `yaml:"brands"`
	Colors    []string `yaml:"colors"`
	// Variants name the versions of one product card (colours): each is
	// a product of its own (nm_id) under the card's imt_id.
	Variants []string       `yaml:"variants"`
	Products []productEntry `yaml:"products"`
	Reviews  struct {
		Positive sentimentBank `yaml:"positive"`
		Neutral  sentimentBank `yaml:"neutral"`
		Negative sentimentBank `yaml:"negative"`
	} `yaml:"reviews"`
	// Nothing is what a buyer writes for no pros or no cons ("нет"):
	// always alone, never in a list of real ones.
	Nothing []string `yaml:"nothing"`
	// Tags are the buyer tags every product may get, short lowercase
	// praise; a product's own tags add to them.
	Tags    []string `yaml:"tags"`
	Answers struct {
		Greetings          []string `yaml:"greetings"`
		GreetingsAnonymous []string `yaml:"greetings_anonymous"`
		GreetingsFormal    []string `yaml:"greetings_formal"`
		Positive           []string `yaml:"positive"`
		Neutral            []string `yaml:"neutral"`
		Negative           []string `yaml:"negative"`
		RatingOnly         []string `yaml:"rating_only"`
	} `yaml:"answers"`
}

type productEntry struct {
	Name string   `yaml:"name"`
	Code string   `yaml:"code"`
	Tags []string `yaml:"tags"` // buyer tags of this product besides the bank's
}

type sentimentBank struct {
	Sentences []string `yaml:"sentences"`
	Short     []string `yaml:"short"` // whole texts of a word or three
	Emoji     []string `yaml:"emoji"` // what some buyers end a text with
	Pros      []string `yaml:"pros"`
	Cons      []string `yaml:"cons"`
}

func decodePhrases(display string, data []byte) (*phraseBank, error) {
	var b phraseBank
	yf := decodeYAML(display, data, &b)
	if !yf.checkable() {
		return nil, yf.err()
	}
	if b.Kind != "phrases" {
		yf.problemf("kind", "must be \"phrases\" in a phrase bank, got %q", b.Kind)
	}
	if b.Anonymous == "" {
		yf.problemf("anonymous", "required: the name shown for an anonymous reviewer")
	}
	nonEmpty := map[string][]string{
		"names": b.Names, "brands": b.Brands, "colors": b.Colors,
		"reviews.positive.sentences": b.Reviews.Positive.Sentences, "reviews.positive.pros": b.Reviews.Positive.Pros, "reviews.positive.cons": b.Reviews.Positive.Cons,
		"reviews.neutral.sentences": b.Reviews.Neutral.Sentences, "reviews.neutral.pros": b.Reviews.Neutral.Pros, "reviews.neutral.cons": b.Reviews.Neutral.Cons,
		"reviews.negative.sentences": b.Reviews.Negative.Sentences, "reviews.negative.pros": b.Reviews.Negative.Pros, "reviews.negative.cons": b.Reviews.Negative.Cons,
		"tags": b.Tags, "answers.greetings": b.Answers.Greetings, "answers.greetings_anonymous": b.Answers.GreetingsAnonymous,
		"answers.positive": b.Answers.Positive, "answers.neutral": b.Answers.Neutral, "answers.negative": b.Answers.Negative,
		"answers.rating_only": b.Answers.RatingOnly,
	}
	for _, field := range slices.Sorted(maps.Keys(nonEmpty)) {
		if len(nonEmpty[field]) == 0 {
			yf.problemf(field, "must list at least one entry")
		}
	}
	if len(b.Products) == 0 {
		yf.problemf("products", "must list at least one product")
	}
	var tagProbs []wire.FieldProblem
	for i, p := range b.Products {
		if p.Name == "" || p.Code == "" {
			yf.problemf(fmt.Sprintf("products[%d]", i), "needs a name and a code")
		}
		tagProbs = append(tagProbs, tagProblems(fmt.Sprintf("products[%d].tags", i), p.Tags)...)
	}
	for _, p := range append(tagProblems("tags", b.Tags), tagProbs...) {
		yf.problemf(p.Field, "%s", p.Msg)
	}
	for i, g := range b.Answers.Greetings {
		if !strings.Contains(g, "{name}") {
			yf.problemf(fmt.Sprintf("answers.greetings[%d]", i), "must contain {name}")
		}
	}
	if err := yf.err(); err != nil {
		return nil, err
	}
	return &b, nil
}

// maxTag bounds a buyer tag's length, in characters.
const maxTag = 40

// tagProblems lists the tags at path that are not short lowercase
// phrases, or repeat one before them.
func tagProblems(path string, tags []string) []wire.FieldProblem {
	var probs []wire.FieldProblem
	for i, t := range tags {
		at := fmt.Sprintf("%s[%d]", path, i)
		switch {
		case strings.TrimSpace(t) != t || t == "" || utf8.RuneCountInString(t) > maxTag || strings.ContainsFunc(t, unicode.IsControl):
			probs = append(probs, wire.FieldProblem{Field: at, Msg: fmt.Sprintf("must be a short phrase (1 to %d characters, no spaces at the ends), got %q", maxTag, t)})
		case strings.ToLower(t) != t:
			probs = append(probs, wire.FieldProblem{Field: at, Msg: fmt.Sprintf("must be lowercase, as buyer tags are (%q)", strings.ToLower(t))})
		case slices.Contains(tags[:i], t):
			probs = append(probs, wire.FieldProblem{Field: at, Msg: fmt.Sprintf("%q is listed twice", t)})
		}
	}
	return probs
}

// product is one generated product: every review of it shares these.
type product struct {
	nmID, imtID int64
	name        string
	article     string
	brand       string
	tags        []string // the buyer tags its reviews may carry
}

// generator writes reviews from a phrase bank with one seeded source of
// randomness, so one seed gives the same bytes on every machine and run.
type generator struct {
	f     *gofakeit.Faker
	spec  generateSpec
	bank  *phraseBank
	media media.URLs
	end   time.Time
}

// generateChunk is how many reviews one source of randomness writes.
// Chunks are generated in parallel; their number depends only on the
// count, so the data is the same on any number of cores.
const generateChunk = 1 << 15

// historyDelay is how long after a review arrived the reply engine
// answered it in a scenario's history, unless the scenario's living shop
// names its own reply_delay.
const historyDelay = 3 * time.Hour

// generate makes spec.Count reviews. The products come from the seed;
// each chunk of reviews from a source derived from the seed and the
// chunk's number. Then, unless spec.Replies is "none", the reply engine
// goes through them oldest first, as it would have while they arrived,
// up to the newest, with settings and delay: what it answers, drafts and
// leaves is what the settings say. Changing the order of draws changes every scenario's
// data.
func generate(spec generateSpec, seed int64, bank *phraseBank, settings Settings, urls media.URLs, delay time.Duration) ([]Feedback, error) {
	end, err := time.Parse(reviews.TimestampLayout, spec.End)
	if err != nil {
		return nil, fmt.Errorf("generate.end: %w", err)
	}
	g := &generator{f: gofakeit.NewUnlocked(seed), spec: spec, bank: bank, media: urls, end: end}
	products, weights := g.products()
	fbs := make([]Feedback, spec.Count)
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for c := 0; c*generateChunk < spec.Count; c++ {
		part := fbs[c*generateChunk : min((c+1)*generateChunk, spec.Count)]
		cg := &generator{f: gofakeit.NewUnlocked(chunkSeed(seed, c)), spec: spec, bank: bank, media: urls, end: end}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			cg.fill(part, products, weights)
		})
	}
	wg.Wait()
	if spec.Replies != repliesNone && len(fbs) > 0 {
		// As of the newest review, where a living shop's frozen clock
		// starts, so that no review is answered before its delay.
		newest := slices.MaxFunc(fbs, func(a, b Feedback) int { return strings.Compare(a.CreatedDate, b.CreatedDate) })
		now, err := time.Parse(reviews.TimestampLayout, newest.CreatedDate)
		if err != nil {
			return nil, fmt.Errorf("generate: %w", err)
		}
		if err := replyHistory(fbs, replyEngine{bank: bank, rng: seededRand(seed, "history")}, settings, now, delay); err != nil {
			return nil, err
		}
	}
	return fbs, nil
}

// In a history, people send most drafts of semi_auto ratings once they
// are a few days old; the rest, and the newer ones, still wait.
const (
	draftsSentAfter = 48 * time.Hour
	draftsSent      = 0.9
)

// replyHistory runs the reply engine over fbs, oldest first, as of now:
// every review is as the engine left it by now, under settings that held
// all along, but for the drafts people sent (draftsSent).
func replyHistory(fbs []Feedback, e replyEngine, settings Settings, now time.Time, delay time.Duration) error {
	order := make([]int, len(fbs))
	for i := range order {
		order[i] = i
	}
	// created_date sorts as text; ties go by feedback_id, so the order
	// (and the engine's draws) never depends on the chunks.
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(strings.Compare(fbs[a].CreatedDate, fbs[b].CreatedDate), strings.Compare(fbs[a].FeedbackID, fbs[b].FeedbackID))
	})
	var never time.Time
	for _, i := range order {
		m, err := reviews.MetaOf(&fbs[i])
		if err != nil {
			return fmt.Errorf("generate: %w", err)
		}
		if m.Rating < 1 || m.Rating > 5 {
			continue
		}
		mode := dueMode(m, now, &settings.Feedback[m.Rating-1], never, delay)
		if mode == "semi_auto" && now.Sub(time.Unix(m.Created, 0)) >= draftsSentAfter && e.rng.Float64() < draftsSent {
			mode = "auto" // a person read the draft and sent it
		}
		if mode != "" {
			e.reply(&fbs[i], mode, &settings)
		}
	}
	return nil
}

// seededRand is a source of random choices from a seed and a stream
// name: the same seed and name give the same sequence.
func seededRand(seed int64, stream string) *rand.Rand { return rand.New(seededPCG(seed, stream)) }

// seededPCG is seededRand's source.
func seededPCG(seed int64, stream string) *rand.PCG {
	h := fnv.New64a()
	io.WriteString(h, stream)
	return rand.NewPCG(uint64(seed), h.Sum64())
}

// chunkSeed derives chunk c's seed (splitmix64); never 0, which gofakeit
// would take as "random".
func chunkSeed(seed int64, c int) int64 {
	z := uint64(seed) + uint64(c+1)*0x9E3779B97F4A7C15
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	z ^= z >> 31
	return int64(z | 1)
}

// fill writes the reviews of one chunk.
func (g *generator) fill(fbs []Feedback, products []product, weights []float64) {
	span := int64(g.spec.Days) * 86400
	created := make([]time.Time, len(fbs))
	for i := range fbs {
		if i > 0 && g.chance(*g.spec.SameSecond) {
			// Another review in the same second as an earlier one.
			created[i] = created[g.f.Rand.Intn(i)]
		} else {
			created[i] = g.end.Add(-time.Duration(g.f.Rand.Int63n(span+1)) * time.Second)
		}
		p := products[g.pick(weights)]
		fbs[i] = g.review(p, g.pick(g.spec.RatingWeights)+1, created[i])
	}
}

func (g *generator) chance(p float64) bool { return g.f.Rand.Float64() < p }

// pick draws an index with the given weights.
func (g *generator) pick(weights []float64) int {
	sum := 0.0
	for _, w := range weights {
		sum += w
	}
	x := g.f.Rand.Float64() * sum
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	return len(weights) - 1
}

// products makes the shop's catalogue with popularity weights: a few
// products collect most reviews, as in a real shop. Products come in
// cards, as upstream: the variants of one card (its colours) are products
// of their own (nm_id) that share the card's imt_id, name, brand and the
// stem of their articles.
func (g *generator) products() ([]product, []float64) {
	n := g.spec.Products
	ps := make([]product, 0, n)
	ws := make([]float64, n)
	used := make(map[int64]bool, n)
	variants := g.bank.Variants
	if len(variants) == 0 {
		variants = g.bank.Colors
	}
	for card := 0; len(ps) < n; card++ {
		e := g.bank.Products[card%len(g.bank.Products)]
		size := min(g.pick(cardSizes)+1, n-len(ps), len(variants))
		if card >= len(g.bank.Products) {
			size = max(size, 2) // the bank ran out: the same kind of item, in other colours
		}
		size = min(size, n-len(ps), len(variants))
		imt := int64(g.f.Number(100_000_000, 299_999_999))
		brand := g.f.RandomString(g.bank.Brands)
		if g.chance(0.03) {
			brand = "" // upstream, a card may have no brand
		}
		style, stem := g.f.Rand.Intn(len(articleStyles)), g.f.Number(1, 9999)
		colours := g.some(variants, size, size)
		g.f.ShuffleAnySlice(colours)
		for v := range size {
			nm := int64(g.f.Number(10_000_000, 299_999_999))
			for used[nm] {
				nm++
			}
			used[nm] = true
			name := e.Name
			if size > 1 {
				name = e.Name + ", " + colours[v]
			}
			ps = append(ps, product{
				nmID: nm, imtID: imt, name: name, brand: brand,
				article: articleStyles[style](e.Code, stem, colours[v], nm),
				tags:    append(slices.Clip(g.bank.Tags), e.Tags...),
			})
		}
	}
	for i := range ws {
		ws[i] = 1 / math.Pow(float64(i+1), 0.8)
	}
	g.f.ShuffleAnySlice(ws)
	return ps, ws
}

// cardSizes weigh how many variants (nm_id) a card (imt_id) has: 1 to 4.
var cardSizes = []float64{45, 30, 15, 10}

// articleStyles are the ways sellers write a supplier_article: free form
// upstream (DP02/черный, SET-BRA/black-M, 123401), one style a card.
var articleStyles = []func(code string, stem int, colour string, nm int64) string{
	func(code string, stem int, colour string, _ int64) string {
		return fmt.Sprintf("%s-%04d-%s", code, stem, strings.ToUpper(translit(colour, 3)))
	},
	func(code string, stem int, colour string, _ int64) string {
		return fmt.Sprintf("%s%02d/%s", code, stem%100, colour)
	},
	func(_ string, stem int, _ string, nm int64) string {
		return strconv.FormatInt(nm%1_000_000+int64(stem%9)*1_000_000, 10)
	},
	func(code string, stem int, colour string, _ int64) string {
		return fmt.Sprintf("SET-%s/%s-%s", code, translit(colour, 0), []string{"S", "M", "L", "XL"}[stem%4])
	},
	func(string, int, string, int64) string { return "" }, // upstream, an article may be missing
}

// translit writes a colour name in Latin letters (for articles), cut to
// n letters when n > 0.
func translit(s string, n int) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		case cyrLatin[r] != "":
			b.WriteString(cyrLatin[r])
		}
	}
	out := b.String()
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}

var cyrLatin = map[rune]string{'а': "a", 'б': "b", 'в': "v", 'г': "g", 'д': "d", 'е': "e", 'ё': "e", 'ж': "zh", 'з': "z", 'и': "i", 'й': "y",
	'к': "k", 'л': "l", 'м': "m", 'н': "n", 'о': "o", 'п': "p", 'р': "r", 'с': "s", 'т': "t", 'у': "u", 'ф': "f", 'х': "h", 'ц': "c",
	'ч': "ch", 'ш': "sh", 'щ': "sch", 'ы': "y", 'э': "e", 'ю': "yu", 'я': "ya"}

// review writes one review of p with the given rating, unanswered: the
// reply engine answers it, in the history or in a living shop.
func (g *generator) review(p product, rating int, created time.Time) Feedback {
	f := g.f
	sb := g.sentiment(rating)
	id := g.feedbackID()
	user := g.bank.Anonymous
	if g.chance(0.9) {
		user = f.RandomString(g.bank.Names)
	}
	var text, pros, cons string
	// Upstream, only 4- and 5-star reviews may be rating-only.
	ratingOnly := rating >= 4 && g.chance(*g.spec.RatingOnly)
	if !ratingOnly {
		text = g.text(sb)
		pros, cons = g.prosCons(rating)
	}
	// Buyer tags are praise: upstream, only 4- and 5-star reviews were
	// seen with them.
	tags := []string{}
	if rating >= 4 && g.chance(tagShare) {
		tags = g.some(p.tags, 1, 3)
	}
	var photos []Photo
	if !ratingOnly && g.chance(*g.spec.Photos) {
		for n := range f.Number(1, 4) {
			photos = append(photos, Photo{FullSize: g.media.Photo(id, n+1, media.SizeFull), MiniSize: g.media.Photo(id, n+1, media.SizeMini)})
		}
	}
	video := []byte("null")
	if !ratingOnly && g.chance(*g.spec.Videos) {
		key := f.UUID()
		secs := f.Number(5, 90)
		video = media.VideoJSON(Video{PreviewImage: g.media.Preview(key), Link: g.media.Playlist(key, secs), DurationSec: secs})
	}
	wasViewed := 1
	if g.chance(0.3) {
		wasViewed = 0 // not opened yet; an answer marks it viewed
	}
	return Feedback{
		FeedbackID: id, NmID: p.nmID, ImtID: p.imtID,
		Text: text, Pros: pros, Cons: cons,
		ProductValuation: rating,
		ValuationTags:    jsonList(tags),
		CreatedDate:      created.Format(reviews.TimestampLayout),
		ProductName:      p.name, SupplierArticle: p.article, BrandName: p.brand,
		Photos: media.PhotosJSON(photos), Video: video,
		UserName:  user,
		WasViewed: wasViewed,
		State:     "new",
		CreatedAt: created.Add(time.Duration(f.Number(20, 3*3600)) * time.Second).Format(reviews.TimestampLayout),
	}
}

// text writes a review's text: from a word or three to paragraphs, as
// buyers write them, some with a typo, an emoji or no capital letter.
func (g *generator) text(sb sentimentBank) string {
	var t string
	switch x := g.f.Rand.Float64(); {
	case x < 0.15 && len(sb.Short) > 0:
		t = g.f.RandomString(sb.Short)
	case x < 0.60:
		t = strings.Join(g.some(sb.Sentences, 1, 2), " ")
	case x < 0.88:
		t = strings.Join(g.shuffled(g.some(sb.Sentences, 3, 5)), " ")
	case x < 0.97:
		t = g.paragraphs(g.some(sb.Sentences, 4, 7), 2)
	default:
		t = g.paragraphs(g.some(sb.Sentences, 8, 14), 3) // a story
	}
	if g.chance(0.1) {
		t = g.typo(t)
	}
	if g.chance(0.04) {
		t = lowerFirst(t)
	}
	if len(sb.Emoji) > 0 && g.chance(0.12) {
		t += " " + g.f.RandomString(sb.Emoji)
	}
	return t
}

// paragraphs writes sentences, shuffled, as at least least paragraphs
// (one more for some), each of a sentence or more, a line break or an
// empty line apart.
func (g *generator) paragraphs(ss []string, least int) string {
	g.shuffled(ss)
	n := min(least+g.f.Rand.Intn(2), len(ss))
	paras := make([]string, 0, n)
	for i := range n {
		from, to := i*len(ss)/n, (i+1)*len(ss)/n
		paras = append(paras, strings.Join(ss[from:to], " "))
	}
	sep := "\n\n"
	if g.chance(0.4) {
		sep = "\n"
	}
	return strings.Join(paras, sep)
}

// shuffled puts list in a random order, in place.
func (g *generator) shuffled(list []string) []string {
	g.f.ShuffleAnySlice(list)
	return list
}

// typo makes one slip of the fingers in a word of four letters or more:
// two letters swapped, one doubled or one left out.
func (g *generator) typo(t string) string {
	words := strings.Split(t, " ")
	start := g.f.Rand.Intn(len(words))
	for i := range words {
		w := []rune(words[(start+i)%len(words)])
		if len(w) < 4 || !unicode.IsLetter(w[1]) || !unicode.IsLetter(w[2]) {
			continue
		}
		switch g.f.Rand.Intn(3) {
		case 0:
			w[1], w[2] = w[2], w[1]
		case 1:
			w = slices.Insert(w, 2, w[2])
		default:
			w = slices.Delete(w, 2, 3)
		}
		words[(start+i)%len(words)] = string(w)
		break
	}
	return strings.Join(words, " ")
}

func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}

// prosCons writes a review's pros and cons as its rating has them: a
// happy buyer's cons are often "нет" or nothing, an unhappy one's pros
// too. "Nothing" stands alone; longer lists come as lines or with commas.
func (g *generator) prosCons(rating int) (pros, cons string) {
	b := &g.bank.Reviews
	list := func(from []string, least, most int) string {
		items := g.some(from, least, most)
		if len(items) > 1 && g.chance(0.35) {
			for i := range items {
				items[i] = upperFirst(items[i])
			}
			return strings.Join(items, "\n")
		}
		return strings.Join(items, ", ")
	}
	nothing := func() string {
		if len(g.bank.Nothing) == 0 {
			return ""
		}
		return g.f.RandomString(g.bank.Nothing)
	}
	switch {
	case rating >= 4:
		if g.chance(0.75) {
			pros = list(b.Positive.Pros, 1, 3)
		}
		switch x := g.f.Rand.Float64(); {
		case x < 0.35:
			cons = nothing()
		case x < 0.6:
			cons = list(b.Positive.Cons, 1, 1)
		}
	case rating == 3:
		if g.chance(0.7) {
			pros = list(b.Neutral.Pros, 1, 2)
		}
		if g.chance(0.75) {
			cons = list(b.Neutral.Cons, 1, 3)
		}
	default:
		switch x := g.f.Rand.Float64(); {
		case x < 0.35:
			pros = nothing()
		case x < 0.55:
			pros = list(b.Negative.Pros, 1, 1)
		}
		if g.chance(0.8) {
			cons = list(b.Negative.Cons, 1, 3)
		}
	}
	return pros, cons
}

// tagShare is the share of 4- and 5-star reviews with buyer tags.
const tagShare = 0.4

// sentiment picks the review phrases for a rating.
func (g *generator) sentiment(rating int) sentimentBank {
	r := &g.bank.Reviews
	switch {
	case rating >= 4:
		return r.Positive
	case rating == 3:
		return r.Neutral
	default:
		return r.Negative
	}
}

// some picks between min and max distinct entries of list, in list order.
func (g *generator) some(list []string, min, max int) []string {
	n := g.f.Number(min, max)
	if n > len(list) {
		n = len(list)
	}
	var picked [16]int // n is at most a few; rejection is cheaper than a permutation
	k := 0
	for k < n && k < len(picked) {
		j := g.f.Rand.Intn(len(list))
		if !slices.Contains(picked[:k], j) {
			picked[k] = j
			k++
		}
	}
	idx := picked[:k]
	slices.Sort(idx)
	out := make([]string, k)
	for i, j := range idx {
		out[i] = list[j]
	}
	return out
}

// idAlphabet is the upstream's: letters, digits, "_" and "-".
const idAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"

// feedbackID makes a marketplace-style review id: 20 characters of
// idAlphabet (G7Y9Y1kBAtKOitoBT_lV).
func (g *generator) feedbackID() string {
	var b [20]byte
	for i := range b {
		b[i] = idAlphabet[g.f.Rand.Intn(len(idAlphabet))]
	}
	return string(b[:])
}
