package generate

import (
	"encoding/json"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/replymock/replymock/mock/internal/media"
	"github.com/replymock/replymock/mock/internal/reviews"
)

// testSpec is a generator spec with every default, count reviews.
func testSpec(count int) GenerateSpec {
	return *GenerateSpec{Count: count}.WithDefaults(time.Time{})
}

// One seed gives the same reviews, byte for byte, on any number of
// cores: chunks (more than one here) draw from sources of their own.
func TestGenerateIsRepeatable(t *testing.T) {
	bank, st := shippedBank(t, "ru"), shippedSettings(t, "default")
	spec := testSpec(generateChunk + 500)
	run := func(procs int) []byte {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		fbs, err := Generate(spec, 42, bank, st, media.URLs{}, HistoryDelay)
		if err != nil {
			t.Fatal(err)
		}
		if len(fbs) != spec.Count {
			t.Fatalf("%d reviews, want %d", len(fbs), spec.Count)
		}
		b, err := json.Marshal(fbs)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	one, many := run(1), run(4)
	if string(one) != string(many) {
		t.Error("the reviews differ with the number of cores")
	}
	other, err := Generate(spec, 43, bank, st, media.URLs{}, HistoryDelay)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(other); string(b) == string(one) {
		t.Error("another seed gives the same reviews")
	}
}

// A living shop's new reviews are of the products its scenario's data
// is of, with their cards and articles, and wait unanswered, unviewed.
func TestArrivalsAreOfTheCatalogue(t *testing.T) {
	bank, st := shippedBank(t, "en"), shippedSettings(t, "en")
	spec := testSpec(2000)
	fbs, err := Generate(spec, 9, bank, st, media.URLs{}, HistoryDelay)
	if err != nil {
		t.Fatal(err)
	}
	type card struct {
		imt            int64
		name, art, brd string
	}
	catalogue := map[int64]card{}
	for _, f := range fbs {
		catalogue[f.NmID] = card{f.ImtID, f.ProductName, f.SupplierArticle, f.BrandName}
	}
	ps, _ := Catalogue(spec.Products, 9, bank)
	if len(ps) != spec.Products {
		t.Fatalf("%d products, want %d", len(ps), spec.Products)
	}
	for nm, c := range catalogue {
		if !slices.ContainsFunc(ps, func(p Product) bool { return p.NmID == nm && p.ImtID == c.imt && p.Article == c.art }) {
			t.Errorf("nm_id %d of the data is not of the catalogue", nm)
		}
	}
	a := NewArrivals(spec, 9, bank, media.URLs{})
	at := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 200 {
		f := a.Next(at.Add(time.Duration(i) * time.Minute))
		if c, ok := catalogue[f.NmID]; ok && c != (card{f.ImtID, f.ProductName, f.SupplierArticle, f.BrandName}) {
			t.Errorf("arrival %d: nm_id %d is %+v in the data, %+v here", i, f.NmID, c, f)
		}
		if !slices.ContainsFunc(ps, func(p Product) bool { return p.NmID == f.NmID && p.ImtID == f.ImtID && p.Name == f.ProductName }) {
			t.Errorf("arrival %d: nm_id %d is not of the catalogue", i, f.NmID)
		}
		if f.AnswerText != "" || f.AnswerState != "" || f.State != "new" || f.WasViewed != 0 || f.CreatedAt != f.CreatedDate {
			t.Errorf("arrival %d does not wait for the engine: %+v", i, f)
		}
		if f.CreatedDate != at.Add(time.Duration(i)*time.Minute).Format(reviews.TimestampLayout) {
			t.Errorf("arrival %d: created_date %s", i, f.CreatedDate)
		}
	}
}
