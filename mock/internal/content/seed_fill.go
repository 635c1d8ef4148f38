package content

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand"
	"reflect"
	"time"

	"github.com/replymock/replymock/mock/internal/media"
	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/wire"
)

// Filler fills what seeded reviews leave out, deterministically: each
// review's random draws come from the scenario's seed, the session and
// its position among the session's seeded reviews; its product from the
// scenario's catalogue, as the generator made it. What a field left out
// gets is its row's fill (fields). One Filler serves one request.
type Filler struct {
	Session  string
	Seed     int64                 // the scenario's
	Anchor   time.Time             // the filled created_date of the request's first review
	Base     *reviews.Store        // the scenario's data
	Kept     *reviews.Store        // the session's seeded reviews before the request; nil for none
	URLs     media.URLs            // the scenario's media
	Products int                   // the catalogue's products: the scenario's generate.products, or DefaultProducts
	Bank     func() (*Bank, error) // the scenario's phrase bank, asked for on first need

	src      splitmix
	rng      *rand.Rand // draws with src
	loaded   bool       // the catalogue, on first need
	products []Product
	weights  []float64
	byNm     map[int64]int
	bankErr  error
}

// Fill checks one review, at position pos of the session's seeded ones
// and j of the request, and fills what it leaves out. Its problems name
// the field in the request (reviews[j].nm_id).
func (f *Filler) Fill(r *SeedReview, pos, j int) (reviews.Feedback, error) {
	path := fmt.Sprintf("reviews[%d]", j)
	rv := reflect.ValueOf(r).Elem()
	for _, fl := range fields {
		if fl.fixture == required && fl.seed == asFixture && rv.FieldByIndex(fl.seedIdx).IsZero() {
			return reviews.Feedback{}, wire.InvalidBody(path+"."+fl.name, "required: %s", fl.about)
		}
	}
	if f.rng == nil {
		h := fnv.New64a()
		io.WriteString(h, f.Session)
		f.src.base = uint64(f.Seed) ^ h.Sum64()
		f.rng = rand.New(&f.src)
	}
	f.src.x = uint64(ChunkSeed(int64(f.src.base), pos))
	id := FeedbackID(f.rng)
	var p Product
	if missing := firstMissing(rv); missing != "" {
		if err := f.catalogue(); err != nil {
			return reviews.Feedback{}, wire.InvalidBody(path+"."+missing, "cannot be filled in: the scenario's phrase bank, which it comes from, cannot be read (%v); give it", err)
		}
		p = f.products[Pick(f.rng, f.weights)]
		if r.NmID != nil {
			p = f.product(*r.NmID)
		}
	}
	rf := r.fixture()
	dst := reflect.ValueOf(&rf).Elem()
	for _, fl := range fields {
		if _, ok := given(rv.FieldByIndex(fl.seedIdx)); ok {
			continue
		}
		switch d := dst.FieldByIndex(fl.fixtureIdx); fl.seed {
		case fillDrawn:
			target(d).SetString(id)
		case fillDated:
			target(d).SetString(f.Anchor.Add(-time.Duration(j) * time.Minute).Format(reviews.TimestampLayout))
		case fillProduct:
			p.fill(fl.name, target(d))
		}
	}
	fb, probs := rf.Feedback(f.URLs)
	if len(probs) > 0 {
		return reviews.Feedback{}, wire.InvalidBody(path+"."+probs[0].Field, "%s", probs[0].Msg)
	}
	return fb, nil
}

// firstMissing names the first field of the seed rv that the catalogue
// would fill, "" for none.
func firstMissing(rv reflect.Value) string {
	for _, fl := range fields {
		if _, ok := given(rv.FieldByIndex(fl.seedIdx)); !ok && fl.seed == fillProduct {
			return fl.name
		}
	}
	return ""
}

// fill sets dst to p's value of the record's product field name
// (fillProduct).
func (p Product) fill(name string, dst reflect.Value) {
	switch name {
	case "nm_id":
		dst.SetInt(p.NmID)
	case "imt_id":
		dst.SetInt(p.ImtID)
	case "product_name":
		dst.SetString(p.Name)
	case "supplier_article":
		dst.SetString(p.Article)
	case "brand_name":
		dst.SetString(p.Brand)
	default:
		panic("content: a product has no field " + name)
	}
}

// product is the product nmID names: as the session's reviews have it
// (those it seeded before, then the scenario's), else the catalogue's,
// else one of the catalogue's chosen by nmID. The caller has loaded the
// catalogue.
func (f *Filler) product(nmID int64) Product {
	for _, st := range []*reviews.Store{f.Kept, f.Base} {
		if st == nil {
			continue
		}
		if pos, ok := st.ProductOf(nmID); ok {
			var r reviews.Feedback
			if json.Unmarshal(st.JSON(pos), &r) == nil {
				return Product{NmID: nmID, ImtID: r.ImtID, Name: r.ProductName, Article: r.SupplierArticle, Brand: r.BrandName}
			}
		}
	}
	if k, ok := f.byNm[nmID]; ok {
		return f.products[k]
	}
	p := f.products[uint64(nmID)%uint64(len(f.products))]
	p.NmID = nmID
	return p
}

// catalogue loads the scenario's products, as its generator made them
// (or would, for a scenario without one), from its phrase bank.
func (f *Filler) catalogue() error {
	if f.loaded {
		return f.bankErr
	}
	f.loaded = true
	bank, err := f.Bank()
	if err != nil {
		f.bankErr = err
		return err
	}
	f.products, f.weights = Catalogue(f.Products, f.Seed, bank)
	f.byNm = make(map[int64]int, len(f.products))
	for i, p := range f.products {
		f.byNm[p.NmID] = i
	}
	return nil
}

// splitmix is a small source of random numbers (SplitMix64) whose state
// is set for each review, so that a review's draws depend on its
// position alone.
type splitmix struct{ x, base uint64 }

func (s *splitmix) Uint64() uint64 {
	s.x += 0x9E3779B97F4A7C15
	z := s.x
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

func (s *splitmix) Int63() int64    { return int64(s.Uint64() >> 1) }
func (s *splitmix) Seed(seed int64) { s.x = uint64(seed) }
