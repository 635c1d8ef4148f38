package generate

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/brianvoe/gofakeit/v6"
	"github.com/replymock/replymock/mock/internal/media"
	"github.com/replymock/replymock/mock/internal/reviews"
)

// Product is one product of a shop's catalogue.
type Product struct {
	NmID, ImtID int64
	Name        string
	Article     string // supplier_article
	Brand       string
	Tags        []string // the buyer tags its reviews may carry
}

// Catalogue is the products of a scenario's generated data, with their
// popularity weights (see Pick).
func Catalogue(products int, seed int64, bank *Bank) ([]Product, []float64) {
	return (&generator{f: gofakeit.NewUnlocked(seed), spec: GenerateSpec{Products: products}, bank: bank}).products()
}

// products makes the shop's catalogue with popularity weights: a few
// products collect most reviews. As upstream, the variants (colours) of
// one card share its imt_id, name and brand.
func (g *generator) products() ([]Product, []float64) {
	n := g.spec.Products
	ps := make([]Product, 0, n)
	ws := make([]float64, n)
	used := make(map[int64]bool, n)
	variants := g.bank.Variants
	if len(variants) == 0 {
		variants = g.bank.Colors
	}
	for card := 0; len(ps) < n; card++ {
		e := g.bank.Products[card%len(g.bank.Products)]
		size := Pick(g.f.Rand, cardSizes) + 1
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
			ps = append(ps, Product{
				NmID: nm, ImtID: imt, Name: name, Brand: brand,
				Article: articleStyles[style](e.Code, stem, colours[v], nm),
				Tags:    append(slices.Clip(g.bank.Tags), e.Tags...),
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

// articleStyles are the ways sellers write a supplier_article
// (DP02/черный, SET-BRA/black-M, 123401), one style a card.
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

// translit writes a colour name in Latin letters, cut to n if n > 0.
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

// Arrivals writes a living shop's new reviews from the scenario's
// catalogue.
type Arrivals struct {
	gen      *generator
	products []Product
	weights  []float64
}

// NewArrivals is the writer of a scenario's new reviews.
func NewArrivals(spec GenerateSpec, seed int64, bank *Bank, urls media.URLs) *Arrivals {
	products, weights := Catalogue(spec.Products, seed, bank)
	gen := &generator{f: gofakeit.NewUnlocked(ChunkSeed(seed, -1)), spec: spec, bank: bank, media: urls}
	return &Arrivals{gen: gen, products: products, weights: weights}
}

// Next writes the next new review, created at at, unviewed.
func (a *Arrivals) Next(at time.Time) reviews.Feedback {
	g := a.gen
	p := a.products[Pick(g.f.Rand, a.weights)]
	fb := g.review(p, Pick(g.f.Rand, g.spec.RatingWeights)+1, at)
	fb.AnswerText, fb.AnswerState, fb.State, fb.WasViewed = "", "", "new", 0
	fb.CreatedAt = fb.CreatedDate
	return fb
}
