package mock

import (
	"fmt"
	"sync"
	"testing"
)

// benchStores builds a generated shop of each size once per test binary.
var benchStores sync.Map // size -> *store

func benchStore(b *testing.B, n int) *store {
	if st, ok := benchStores.Load(n); ok {
		return st.(*store)
	}
	opts := Options{}.withDefaults()
	l := opts.loader()
	bank, err := l.loadPhrases("ru")
	if err != nil {
		b.Fatal(err)
	}
	def, err := l.load("default")
	if err != nil {
		b.Fatal(err)
	}
	spec := *def.file.Data.Generate
	spec.Count, spec.Products = n, max(40, n/2500)
	fbs, err := generate(spec, 20261115, bank, def.settings)
	if err != nil {
		b.Fatal(err)
	}
	st, err := newStore(fbs)
	if err != nil {
		b.Fatal(err)
	}
	benchStores.Store(n, st)
	return st
}

// benchQueries are the query shapes of the performance targets.
var benchQueries = []struct {
	name, raw string
}{
	{"first-page", ""},
	{"limit100-deep-offset", "limit=100&offset=400"},
	{"answered-rating", "answered=0&rating=1&limit=100"},
	{"dates", "date_from=2026-03-01&date_to=2026-04-30&limit=100"},
	{"all-filters", "answered=1&rating=5&date_from=2026-01-01&date_to=2026-09-30&limit=100&offset=50"},
	{"counts-only", "counts_only=1&rating=4&date_from=2026-02-01"},
	{"search-common", "search=%D0%BA%D0%B0%D1%87%D0%B5%D1%81%D1%82%D0%B2%D0%BE&limit=100"},
	{"search-rare", "search=%D0%B4%D0%B8%D1%80%D0%BA%D0%B0&limit=100"},
	{"search-and-rating", "search=%D0%BA%D0%B0%D1%87%D0%B5%D1%81%D1%82%D0%B2%D0%BE&rating=5&answered=1&limit=100"},
}

// BenchmarkFind measures filtering and counting, without HTTP or
// encoding, at each shop size. The nm_id shape uses a product of the shop.
func BenchmarkFind(b *testing.B) {
	for _, n := range []int{1_000, 100_000, 1_000_000} {
		st := benchStore(b, n)
		queries := append(benchQueries[:len(benchQueries):len(benchQueries)],
			struct{ name, raw string }{"nm_id", fmt.Sprintf("nm_id=%d&limit=100", st.records[n/2].nmID)})
		for _, bq := range queries {
			q, err := parseFeedbackQuery(bq.raw)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%s/n=%d", bq.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					st.find(q)
				}
			})
		}
	}
}

// BenchmarkPage measures assembling a page's JSON from encoded records.
func BenchmarkPage(b *testing.B) {
	for _, n := range []int{1_000, 1_000_000} {
		st := benchStore(b, n)
		for _, limit := range []string{"", "limit=100"} {
			q, _ := parseFeedbackQuery(limit)
			res := st.find(q)
			b.Run(fmt.Sprintf("limit=%d/n=%d", q.limit, n), func(b *testing.B) {
				b.ReportAllocs()
				var buf []byte
				for b.Loop() {
					buf = st.appendPage(buf[:0], res, q)
				}
				b.SetBytes(int64(len(buf)))
			})
		}
	}
}

// BenchmarkParseQuery measures validating a query string.
func BenchmarkParseQuery(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		parseFeedbackQuery("answered=1&rating=5&date_from=2026-01-01&date_to=2026-09-30&limit=100&offset=50&search=abc")
	}
}

// BenchmarkBuild measures building a store (encoding and indexing) from
// generated reviews.
func BenchmarkBuild(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		benchStore(b, n) // the phrase bank and settings, loaded once
		opts := Options{}.withDefaults()
		l := opts.loader()
		bank, _ := l.loadPhrases("ru")
		def, _ := l.load("default")
		spec := *def.file.Data.Generate
		spec.Count = n
		fbs, err := generate(spec, 1, bank, def.settings)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := newStore(fbs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/review")
		})
	}
}
