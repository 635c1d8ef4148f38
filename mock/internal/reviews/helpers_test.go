package reviews

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

// marshal encodes v as encoding/json does without HTML escaping: the
// reference AppendJSON must match.
func marshal(t testing.TB, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// phrases are what synthetic reviews are written from: like a real
// shop's, few distinct sentences repeat across many reviews, in Russian.
var phrases = []string{
	"Отличное качество, рекомендую!", "Качество так себе.", "Пришло быстро, упаковано хорошо.",
	"Размер соответствует.", "Цвет как на фото.", "Ткань приятная к телу.", "Швы ровные.",
	"Через неделю появилась дирка.", "Запах сильный, пришлось стирать.", "ЁЛКА на картинке красивее.",
	"Цена отличная.", "Не подошёл размер, вернула.", "Покупаю второй раз.", "Мужу понравилось.",
	"Плед мягкий и тёплый.", "Brand new, works great.", "Straße-Qualität", "Очень доволен покупкой 👍",
}

// synthetic writes n reviews over a year, deterministically from seed:
// ratings skewed to 5, about 60% answered, 15% rating-only, several in
// some same seconds, and products with article codes.
func synthetic(n int, seed uint64) []Feedback {
	rng := rand.New(rand.NewPCG(seed, 1))
	products := max(40, n/2500)
	end := time.Date(2026, 11, 15, 21, 0, 0, 0, time.UTC)
	fbs := make([]Feedback, n)
	weights := []int{7, 3, 6, 14, 70}
	for i := range fbs {
		p := rng.IntN(products)
		rating, w := 1, rng.IntN(100)
		for w >= weights[rating-1] {
			w -= weights[rating-1]
			rating++
		}
		created := end.Add(-time.Duration(rng.Int64N(365*24*3600)) * time.Second)
		if i > 0 && rng.IntN(30) == 0 {
			created, _ = time.Parse(TimestampLayout, fbs[i-1].CreatedDate) // the same second as the previous one
		}
		f := Feedback{
			FeedbackID: fmt.Sprintf("fb%08d", i), NmID: int64(100000 + p), ImtID: int64(900 + p/3),
			ProductValuation: rating, CreatedDate: created.Format(TimestampLayout), CreatedAt: created.Format(TimestampLayout),
			ProductName: fmt.Sprintf("Товар %d", p), SupplierArticle: fmt.Sprintf("ART-%04d", p), BrandName: "Бренд",
			ValuationTags: "[]", Photos: "[]", Video: json.RawMessage("null"), WasViewed: 1, State: "new",
		}
		if rng.IntN(100) >= 15 {
			for range 1 + rng.IntN(3) {
				f.Text += phrases[rng.IntN(len(phrases))] + " "
			}
			f.Pros, f.Cons = phrases[rng.IntN(len(phrases))], phrases[rng.IntN(len(phrases))]
		}
		if rng.IntN(100) < 60 {
			f.AnswerText, f.AnswerState, f.State = "Спасибо за отзыв!", "sent", "done"
		}
		fbs[i] = f
	}
	return fbs
}

// stores builds a synthetic store of each size once per test binary.
var stores sync.Map // n -> *Store

func syntheticStore(t testing.TB, n int) *Store {
	t.Helper()
	if st, ok := stores.Load(n); ok {
		return st.(*Store)
	}
	st, err := New(synthetic(n, 20261115))
	if err != nil {
		t.Fatal(err)
	}
	stores.Store(n, st)
	return st
}
