package journal

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The ring keeps the newest entries in order through any mix of adds
// and drops of the oldest, against a plain slice as the model.
func TestJournalRing(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{1, 2, 3, 7, 20} {
		j := ring{size: size}
		var model []int64
		for seq := int64(1); seq < 500; seq++ {
			if rng.IntN(3) == 0 && len(model) > 0 {
				j.dropOldest(model[0])
				model = model[1:]
			}
			j.add(&Record{Entry: Entry{Seq: seq}})
			model = append(model, seq)
			if len(model) > size {
				model = model[1:]
			}
			if got := seqs(j.all()); !slices.Equal(got, model) {
				t.Fatalf("size %d after seq %d: %v, want %v", size, seq, got, model)
			}
			if len(j.entries) > size {
				t.Fatalf("size %d: ring grew to %d", size, len(j.entries))
			}
		}
	}
}
