package generate

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"io"
	mrand "math/rand"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/brianvoe/gofakeit/v6"
	"github.com/replymock/replymock/mock/internal/media"
	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/settings"
)

// generator writes reviews from a phrase bank with one seeded source of
// randomness, so one seed gives the same bytes on every machine and run.
type generator struct {
	f     *gofakeit.Faker
	spec  GenerateSpec
	bank  *Bank
	media media.URLs
	end   time.Time
}

// generateChunk is how many reviews one source of randomness writes.
// Chunks are generated in parallel; their number depends only on the
// count, so the data is the same on any number of cores.
const generateChunk = 1 << 15

// HistoryDelay is how long after a review arrived the reply engine
// answered it in a scenario's history, unless the scenario's living shop
// names its own reply_delay.
const HistoryDelay = 3 * time.Hour

// Generate makes spec.Count reviews. The products come from the seed;
// each chunk of reviews from a source derived from the seed and the
// chunk's number. Then, unless spec.Replies is "none", the reply engine
// goes through them oldest first, as it would have while they arrived,
// up to the newest, with settings and delay: what it answers, drafts and
// leaves is what the settings say. Changing the order of draws changes
// every scenario's data.
func Generate(spec GenerateSpec, seed int64, bank *Bank, st settings.Settings, urls media.URLs, delay time.Duration) ([]reviews.Feedback, error) {
	end, err := time.Parse(reviews.TimestampLayout, spec.End)
	if err != nil {
		return nil, fmt.Errorf("generate.end: %w", err)
	}
	g := &generator{f: gofakeit.NewUnlocked(seed), spec: spec, bank: bank, media: urls, end: end}
	products, weights := g.products()
	fbs := make([]reviews.Feedback, spec.Count)
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for c := 0; c*generateChunk < spec.Count; c++ {
		part := fbs[c*generateChunk : min((c+1)*generateChunk, spec.Count)]
		cg := &generator{f: gofakeit.NewUnlocked(ChunkSeed(seed, c)), spec: spec, bank: bank, media: urls, end: end}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			cg.fill(part, products, weights)
		})
	}
	wg.Wait()
	// No long text twice: what a chunk repeats of another's, or of its
	// own, is written again, in order, from one source of its own.
	(&generator{f: gofakeit.NewUnlocked(ChunkSeed(seed, -2)), spec: spec, bank: bank, media: urls, end: end}).distinct(fbs)
	if spec.Replies != RepliesNone && len(fbs) > 0 {
		// As of the newest review, where a living shop's frozen clock
		// starts, so that no review is answered before its delay.
		newest := slices.MaxFunc(fbs, func(a, b reviews.Feedback) int { return strings.Compare(a.CreatedDate, b.CreatedDate) })
		now, err := time.Parse(reviews.TimestampLayout, newest.CreatedDate)
		if err != nil {
			return nil, fmt.Errorf("generate: %w", err)
		}
		if err := replyHistory(fbs, &Engine{bank: bank, rng: SeededRand(seed, "history")}, st, now, delay); err != nil {
			return nil, err
		}
	}
	return fbs, nil
}

// In a history, people send most drafts of semi_auto ratings once they
// are DraftsSentAfter old (draftsSent of them); the rest, and the newer
// ones, still wait.
const (
	DraftsSentAfter = 48 * time.Hour
	draftsSent      = 0.9
)

// replyHistory runs the reply engine over fbs, oldest first, as of now:
// every review is as the engine left it by now, under settings that held
// all along, but for the drafts people sent (draftsSent).
func replyHistory(fbs []reviews.Feedback, e *Engine, st settings.Settings, now time.Time, delay time.Duration) error {
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
		mode := Due(m, now, &st.Feedback[m.Rating-1], never, delay)
		if mode == "semi_auto" && now.Sub(time.Unix(m.Created, 0)) >= DraftsSentAfter && e.rng.Float64() < draftsSent {
			mode = "auto" // a person read the draft and sent it
		}
		if mode != "" {
			e.Reply(&fbs[i], mode, &st)
		}
	}
	return nil
}

// SeededRand is a source of random choices from a seed and a stream
// name: the same seed and name give the same sequence.
func SeededRand(seed int64, stream string) *rand.Rand { return rand.New(SeededPCG(seed, stream)) }

// SeededPCG is SeededRand's source.
func SeededPCG(seed int64, stream string) *rand.PCG {
	h := fnv.New64a()
	io.WriteString(h, stream)
	return rand.NewPCG(uint64(seed), h.Sum64())
}

// ChunkSeed derives chunk c's seed (splitmix64); never 0, which gofakeit
// would take as "random".
func ChunkSeed(seed int64, c int) int64 {
	z := uint64(seed) + uint64(c+1)*0x9E3779B97F4A7C15
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	z ^= z >> 31
	return int64(z | 1)
}

// fill writes the reviews of one chunk.
func (g *generator) fill(fbs []reviews.Feedback, products []Product, weights []float64) {
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
func (g *generator) pick(weights []float64) int { return Pick(g.f.Rand, weights) }

// Pick draws an index with the given weights from r.
func Pick(r *mrand.Rand, weights []float64) int {
	sum := 0.0
	for _, w := range weights {
		sum += w
	}
	x := r.Float64() * sum
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	return len(weights) - 1
}
