package mock

import (
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/brianvoe/gofakeit/v6"
	"github.com/replymock/replymock/mock/internal/reviews"
)

// locales are the languages the generator writes reviews in.
var locales = []string{"ru", "en"}

// phraseBank is a fixture (kind: phrases) of everything the generator
// writes: product names, brands, people's names, review sentences, tags
// and seller answers, in one locale.
type phraseBank struct {
	Kind      string         `yaml:"kind"`
	Locale    string         `yaml:"locale"`
	Anonymous string         `yaml:"anonymous"`
	Names     []string       `yaml:"names"`
	Brands    []string       `yaml:"brands"`
	Colors    []string       `yaml:"colors"`
	Products  []productEntry `yaml:"products"`
	Reviews   struct {
		Positive sentimentBank `yaml:"positive"`
		Neutral  sentimentBank `yaml:"neutral"`
		Negative sentimentBank `yaml:"negative"`
	} `yaml:"reviews"`
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
	var tagProbs []fieldProblem
	for i, p := range b.Products {
		if p.Name == "" || p.Code == "" {
			yf.problemf(fmt.Sprintf("products[%d]", i), "needs a name and a code")
		}
		tagProbs = append(tagProbs, tagProblems(fmt.Sprintf("products[%d].tags", i), p.Tags)...)
	}
	for _, p := range append(tagProblems("tags", b.Tags), tagProbs...) {
		yf.problemf(p.field, "%s", p.msg)
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
func tagProblems(path string, tags []string) []fieldProblem {
	var probs []fieldProblem
	for i, t := range tags {
		at := fmt.Sprintf("%s[%d]", path, i)
		switch {
		case strings.TrimSpace(t) != t || t == "" || utf8.RuneCountInString(t) > maxTag || strings.ContainsFunc(t, unicode.IsControl):
			probs = append(probs, fieldProblem{at, fmt.Sprintf("must be a short phrase (1 to %d characters, no spaces at the ends), got %q", maxTag, t)})
		case strings.ToLower(t) != t:
			probs = append(probs, fieldProblem{at, fmt.Sprintf("must be lowercase, as buyer tags are (%q)", strings.ToLower(t))})
		case slices.Contains(tags[:i], t):
			probs = append(probs, fieldProblem{at, fmt.Sprintf("%q is listed twice", t)})
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
	f        *gofakeit.Faker
	spec     generateSpec
	bank     *phraseBank
	settings Settings
	media    mediaURLs
	end      time.Time
}

// generateChunk is how many reviews one source of randomness writes.
// Chunks are generated in parallel; their number depends only on the
// count, so the data is the same on any number of cores.
const generateChunk = 1 << 15

// generate makes spec.Count reviews. The products come from the seed;
// each chunk of reviews from a source derived from the seed and the
// chunk's number. Changing the order of draws changes every scenario's data.
func generate(spec generateSpec, seed int64, bank *phraseBank, settings Settings, media mediaURLs) ([]Feedback, error) {
	end, err := time.Parse(reviews.TimestampLayout, spec.End)
	if err != nil {
		return nil, fmt.Errorf("generate.end: %w", err)
	}
	g := &generator{f: gofakeit.NewUnlocked(seed), spec: spec, bank: bank, settings: settings, media: media, end: end}
	products, weights := g.products()
	fbs := make([]Feedback, spec.Count)
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for c := 0; c*generateChunk < spec.Count; c++ {
		part := fbs[c*generateChunk : min((c+1)*generateChunk, spec.Count)]
		cg := &generator{f: gofakeit.NewUnlocked(chunkSeed(seed, c)), spec: spec, bank: bank, settings: settings, media: media, end: end}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			cg.fill(part, products, weights)
		})
	}
	wg.Wait()
	return fbs, nil
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
// products collect most reviews, as in a real shop.
func (g *generator) products() ([]product, []float64) {
	n := g.spec.Products
	ps := make([]product, n)
	ws := make([]float64, n)
	used := make(map[int64]bool, n)
	for i := range ps {
		e := g.bank.Products[i%len(g.bank.Products)]
		name := e.Name
		if i >= len(g.bank.Products) {
			// The bank ran out: the same kind of item in another colour.
			name = fmt.Sprintf("%s, %s", e.Name, strings.ToLower(g.f.RandomString(g.bank.Colors)))
		}
		nm := int64(g.f.Number(10_000_000, 299_999_999))
		for used[nm] {
			nm++
		}
		used[nm] = true
		ps[i] = product{
			nmID:    nm,
			imtID:   int64(g.f.Number(100_000_000, 299_999_999)),
			name:    name,
			article: fmt.Sprintf("%s-%04d-%s", e.Code, g.f.Number(1, 9999), g.f.RandomString(g.bank.Colors)),
			brand:   g.f.RandomString(g.bank.Brands),
			tags:    append(slices.Clip(g.bank.Tags), e.Tags...),
		}
		ws[i] = 1 / math.Pow(float64(i+1), 0.8)
	}
	g.f.ShuffleAnySlice(ws)
	return ps, ws
}

// review writes one review of p with the given rating.
func (g *generator) review(p product, rating int, created time.Time) Feedback {
	f := g.f
	sb, ab := g.sentiment(rating)
	id := g.feedbackID()
	user := g.bank.Anonymous
	if g.chance(0.9) {
		user = f.RandomString(g.bank.Names)
	}
	var text, pros, cons string
	ratingOnly := g.chance(*g.spec.RatingOnly)
	if !ratingOnly {
		text = strings.Join(g.some(sb.Sentences, 1, 3), " ")
		if g.chance(0.7) {
			pros = strings.Join(g.some(sb.Pros, 1, 2), ", ")
		}
		if g.chance(0.6) {
			most := 2
			if rating >= 4 {
				most = 1 // "нет" next to a real complaint reads oddly
			}
			cons = strings.Join(g.some(sb.Cons, 1, most), ", ")
		}
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
			photos = append(photos, Photo{FullSize: g.media.photo(id, n+1, "fs"), MiniSize: g.media.photo(id, n+1, "ms")})
		}
	}
	video := []byte("null")
	if !ratingOnly && g.chance(*g.spec.Videos) {
		key := f.UUID()
		secs := f.Number(5, 90)
		video = videoJSON(Video{PreviewImage: g.media.preview(key), Link: g.media.playlist(key, secs), DurationSec: secs})
	}
	fb := Feedback{
		FeedbackID: id, NmID: p.nmID, ImtID: p.imtID,
		Text: text, Pros: pros, Cons: cons,
		ProductValuation: rating,
		ValuationTags:    jsonList(tags),
		CreatedDate:      created.Format(reviews.TimestampLayout),
		ProductName:      p.name, SupplierArticle: p.article, BrandName: p.brand,
		Photos: photosJSON(photos), Video: video,
		UserName:  user,
		WasViewed: 1,
		State:     "new",
		CreatedAt: created.Add(time.Duration(f.Number(20, 3*3600)) * time.Second).Format(reviews.TimestampLayout),
	}
	answered := *g.spec.Answered
	if g.end.Sub(created) < 72*time.Hour {
		answered /= 4 // a shop answers with a delay: the newest wait at the top
	}
	if g.chance(answered) {
		fb.AnswerText = g.answer(rating, user, ratingOnly, ab)
		fb.AnswerState, fb.State = "sent", "done"
	} else if g.chance(0.3) {
		fb.WasViewed = 0
	}
	return fb
}

// tagShare is the share of 4- and 5-star reviews with buyer tags.
const tagShare = 0.4

// sentiment picks the review sentences and answer bodies for a rating.
func (g *generator) sentiment(rating int) (sentimentBank, []string) {
	r, a := &g.bank.Reviews, &g.bank.Answers
	switch {
	case rating >= 4:
		return r.Positive, a.Positive
	case rating == 3:
		return r.Neutral, a.Neutral
	default:
		return r.Negative, a.Negative
	}
}

// answer writes a seller's reply: greeting, body, and the signature the
// settings give for the rating.
func (g *generator) answer(rating int, user string, ratingOnly bool, bodies []string) string {
	f := g.f
	var greeting string
	if user == g.bank.Anonymous {
		greeting = f.RandomString(g.bank.Answers.GreetingsAnonymous)
	} else {
		greeting = strings.ReplaceAll(f.RandomString(g.bank.Answers.Greetings), "{name}", user)
	}
	body := f.RandomString(bodies)
	if ratingOnly && rating >= 4 {
		body = f.RandomString(g.bank.Answers.RatingOnly)
	}
	parts := []string{greeting, body}
	if sig := g.settings.Feedback[rating-1].Signature; sig != "" {
		parts = append(parts, sig)
	}
	return strings.Join(parts, " ")
}

// some picks between min and max distinct entries of list, in list order.
func (g *generator) some(list []string, min, max int) []string {
	n := g.f.Number(min, max)
	if n > len(list) {
		n = len(list)
	}
	var picked [8]int // n is at most a few; rejection is cheaper than a permutation
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

const idAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// feedbackID makes a marketplace-style review id: 20 letters and digits.
func (g *generator) feedbackID() string {
	var b [20]byte
	for i := range b {
		b[i] = idAlphabet[g.f.Rand.Intn(len(idAlphabet))]
	}
	return string(b[:])
}
