package generate

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"io"
	mrand "math/rand"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/brianvoe/gofakeit/v6"
	"github.com/replymock/replymock/mock/internal/media"
	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/settings"
)

// generator writes reviews from a phrase bank and one seeded source.
type generator struct {
	f     *gofakeit.Faker
	spec  GenerateSpec
	bank  *Bank
	media media.URLs
	end   time.Time
}

// reseeded is a copy of g with a source of its own, of seed.
func (g *generator) reseeded(seed int64) *generator {
	c := *g
	c.f = gofakeit.NewUnlocked(seed)
	return &c
}

// generateChunk is how many reviews one random source writes. Chunks are
// written in parallel; their number depends only on the count, so the
// data is the same on any number of cores.
const generateChunk = 1 << 15

// HistoryDelay is how long after a review arrived the engine answered it
// in a history without a living shop.
const HistoryDelay = 3 * time.Hour

// Generate makes spec.Count reviews. Unless spec.Replies is "none", the
// reply engine then answers them oldest first by st and delay, as it
// would have while they arrived.
func Generate(spec GenerateSpec, seed int64, bank *Bank, st settings.Settings, urls media.URLs, delay time.Duration) ([]reviews.Feedback, error) {
	end, err := time.Parse(reviews.TimestampLayout, spec.End)
	if err != nil {
		return nil, fmt.Errorf("generate.end: %w", err)
	}
	g := &generator{f: gofakeit.NewUnlocked(seed), spec: spec, bank: bank, media: urls, end: end}
	products, weights := g.products()
	fbs := make([]reviews.Feedback, spec.Count)
	var wg sync.WaitGroup
	for c := 0; c*generateChunk < spec.Count; c++ {
		part := fbs[c*generateChunk : min((c+1)*generateChunk, spec.Count)]
		cg := g.reseeded(ChunkSeed(seed, c))
		wg.Go(func() { cg.fill(part, products, weights) })
	}
	wg.Wait()
	// No long text twice.
	g.reseeded(ChunkSeed(seed, -2)).distinct(fbs)
	if spec.Replies != RepliesNone && len(fbs) > 0 {
		// The history ends at the newest review, where a frozen shop
		// clock starts.
		newest := slices.MaxFunc(fbs, func(a, b reviews.Feedback) int { return strings.Compare(a.CreatedDate, b.CreatedDate) })
		now, err := time.Parse(reviews.TimestampLayout, newest.CreatedDate)
		if err != nil {
			return nil, fmt.Errorf("generate: %w", err)
		}
		if err := replyHistory(fbs, &Engine{bank: bank, rng: rand.New(seededPCG(seed, "history"))}, st, now, delay); err != nil {
			return nil, err
		}
	}
	return fbs, nil
}

// In a history, people have sent draftsSent of the drafts that are
// DraftsSentAfter old. The rest still wait.
const (
	DraftsSentAfter = 48 * time.Hour
	draftsSent      = 0.9
)

// replyHistory runs the reply engine over fbs, oldest first, up to now.
func replyHistory(fbs []reviews.Feedback, e *Engine, st settings.Settings, now time.Time, delay time.Duration) error {
	order := make([]int, len(fbs))
	for i := range order {
		order[i] = i
	}
	// Ties go by feedback_id, so the engine's draws never depend on the
	// chunks.
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

// seededPCG is a random source of a seed and a stream name.
func seededPCG(seed int64, stream string) *rand.PCG {
	return rand.NewPCG(uint64(seed), HashString(stream))
}

// HashString is the FNV-1a hash of s.
func HashString(s string) uint64 {
	h := fnv.New64a()
	io.WriteString(h, s)
	return h.Sum64()
}

// ChunkSeed derives chunk c's seed from seed. It is never 0, which
// gofakeit would take as "random".
func ChunkSeed(seed int64, c int) int64 {
	x := uint64(seed) + uint64(c)*0x9E3779B97F4A7C15
	return int64(SplitMix(&x) | 1)
}

// SplitMix advances the SplitMix64 state x and returns its next output.
func SplitMix(x *uint64) uint64 {
	*x += 0x9E3779B97F4A7C15
	z := *x
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

// fill writes the reviews of one chunk.
func (g *generator) fill(fbs []reviews.Feedback, products []Product, weights []float64) {
	span := int64(g.spec.Days) * 86400
	created := make([]time.Time, len(fbs))
	for i := range fbs {
		if i > 0 && g.chance(*g.spec.SameSecond) {
			created[i] = created[g.f.Rand.Intn(i)]
		} else {
			created[i] = g.end.Add(-time.Duration(g.f.Rand.Int63n(span+1)) * time.Second)
		}
		p := products[Pick(g.f.Rand, weights)]
		fbs[i] = g.review(p, Pick(g.f.Rand, g.spec.RatingWeights)+1, created[i])
	}
}

func (g *generator) chance(p float64) bool { return g.f.Rand.Float64() < p }

// Pick draws an index of weights from r, by weight.
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
