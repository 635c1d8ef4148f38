package reviews

import (
	"runtime"
	"slices"
	"strconv"
	"sync"
)

// build prepares numbered reviews, given oldest first by order, for
// queries; next is the id after the newest.
func build(fbs []Feedback, order []int32, created []int64, next int64) *Store {
	n := len(fbs)
	order = slices.Clone(order)
	slices.Reverse(order) // the list's order: newest first, then the higher id

	st := &Store{records: make([]record, n), locs: make([]jsonLoc, n),
		products: make(map[int64]*combos), next: next}
	st.alone = &Stack{layers: []layer{{st: st}}, n: n}
	defer encodeAll(st, fbs, order)()

	var ids [4]map[string]uint32
	for k := range ids {
		ids[k] = make(map[string]uint32)
	}
	value := func(k int, raw string) uint32 {
		id, ok := ids[k][raw]
		if !ok {
			id = uint32(len(st.fields[k].values))
			ids[k][raw] = id
			st.fields[k].values = append(st.fields[k].values, Fold(raw))
			st.fields[k].postings = append(st.fields[k].postings, nil)
		}
		return id
	}
	words := (n + 63) / 64
	for pos, src := range order {
		f := &fbs[src]
		m := metaOf(f, created[src])
		r := record{
			created: m.Created, id: f.ID, nmID: f.NmID, day: m.Day,
			text: value(0, f.Text), pros: value(1, f.Pros), cons: value(2, f.Cons),
			// The separator keeps a query from matching across the two.
			product: value(3, f.SupplierArticle+"\x00"+strconv.FormatInt(f.NmID, 10)),
			rating:  m.Rating, answered: m.Answered, draft: m.Draft, empty: m.Empty,
		}
		st.records[pos] = r
		p := int32(pos)
		for k, v := range [4]uint32{r.text, r.pros, r.cons, r.product} {
			st.fields[k].postings[v] = append(st.fields[k].postings[v], p)
		}
		ans := 1 // the answered index: 1 without a reply, 2 with one
		if r.answered {
			ans = 2
		}
		prod := st.products[r.nmID]
		if prod == nil {
			prod = new(combos)
			st.products[r.nmID] = prod
		}
		for _, rt := range [2]int{0, int(r.rating)} {
			for _, a := range [2]int{0, ans} {
				prod[rt][a] = append(prod[rt][a], p)
				if rt == 0 && a == 0 {
					continue // every record: no list needed
				}
				st.all[rt][a] = append(st.all[rt][a], p)
				if st.bits[rt][a] == nil {
					st.bits[rt][a] = make([]uint64, words)
				}
				st.bits[rt][a][pos/64] |= 1 << (pos % 64)
			}
		}
	}
	return st
}

// encodeAll encodes the records into st's blocks, the costly part of a
// big build, on every core (each encoder filling blocks of its own)
// while the caller indexes; finish waits for the encoders and numbers
// their blocks. A small store (a living shop's arrivals) takes one
// encoder and only the bytes it needs.
func encodeAll(st *Store, fbs []Feedback, order []int32) (finish func()) {
	n := len(fbs)
	var wg sync.WaitGroup
	workers := min(max(runtime.GOMAXPROCS(0), 1), 8, max(n/smallStore, 1))
	perWorker := make([][][]byte, workers)
	for w := range workers {
		from, to := n*w/workers, n*(w+1)/workers
		wg.Go(func() {
			var blocks [][]byte
			var cur, one []byte
			for pos := from; pos < to; pos++ {
				one = AppendJSON(one[:0], &fbs[order[pos]])
				if need := len(cur) + len(one); need > cap(cur) {
					if cap(cur) < jsonBlock && need <= jsonBlock {
						// The first block grows to a whole one only as needed.
						grown := make([]byte, len(cur), min(max(2*cap(cur), need, 16<<10), jsonBlock))
						copy(grown, cur)
						cur = grown
					} else {
						blocks = append(blocks, cur)
						cur = make([]byte, 0, max(jsonBlock, len(one)))
					}
				}
				start := len(cur)
				cur = append(cur, one...)
				st.locs[pos] = jsonLoc{block: int32(len(blocks)), off: uint32(start), end: uint32(len(cur))}
			}
			if cap(cur)-len(cur) > len(cur)/8 {
				cur = slices.Clone(cur) // a last block mostly empty keeps only its bytes
			}
			perWorker[w] = append(blocks, cur)
		})
	}
	return func() {
		wg.Wait()
		base := make([]int32, workers)
		for w, blocks := range perWorker {
			base[w] = int32(len(st.blocks))
			st.blocks = append(st.blocks, blocks...)
		}
		for w := range workers {
			for pos := n * w / workers; pos < n*(w+1)/workers; pos++ {
				st.locs[pos].block += base[w]
			}
		}
		st.bytes = st.estimate()
	}
}
