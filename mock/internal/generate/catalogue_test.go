package generate

import (
	"testing"

	"github.com/brianvoe/gofakeit/v6"
)

// A phrase bank with one colour and few products still makes as many
// products as asked, in cards no bigger than its colours allow.
func TestProductsFromASmallBank(t *testing.T) {
	bank := *shippedBank(t, "ru")
	bank.Variants, bank.Colors, bank.Products = nil, []string{"BLK"}, bank.Products[:2]
	g := &generator{f: gofakeit.NewUnlocked(3), spec: GenerateSpec{Products: 9}, bank: &bank}
	ps, ws := g.products()
	if len(ps) != 9 || len(ws) != 9 {
		t.Fatalf("%d products, %d weights; want 9", len(ps), len(ws))
	}
	nms := map[int64]bool{}
	for _, p := range ps {
		if nms[p.NmID] {
			t.Errorf("nm_id %d twice", p.NmID)
		}
		nms[p.NmID] = true
	}
}
