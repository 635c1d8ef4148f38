package fleet

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// model is the journal as the append step must leave it, entry after
// entry (as the memory journal keeps it): a session's entries oldest
// first within its bound, then the fleet's bytes and entries, the order
// popping its oldest item and dropping that entry if still there.
type model struct {
	b       [3]int64 // a session's entries, all bytes, all entries
	seq     int64
	bytes   int64
	entries map[string][]mEntry
	order   []mEntry // every entry appended, oldest first, some gone already
	lost    map[string]int64
	all     int64 // the newest entry lost by any session
	refs    map[string]int64
	bodies  map[string]bool
	cleared bool // meta counts bytes from the first clear on
}

type mEntry struct {
	seq, n  int64
	h, id   string
	data    string
	body    string // sent with it; "" for none
	present bool   // the step's answer: kept (seq) or 0
}

func newModel(size, maxb, maxe int64) *model {
	return &model{b: [3]int64{size, maxb, maxe}, entries: map[string][]mEntry{}, lost: map[string]int64{},
		refs: map[string]int64{}, bodies: map[string]bool{}}
}

// step appends es as one step, and returns what the step answers for
// each.
func (m *model) step(es []mEntry) []int64 {
	for _, e := range es {
		if e.body != "" {
			m.bodies[e.h] = true // set, and gone at the end if none refers to it
		}
	}
	out := make([]int64, len(es))
	lost := map[string]int64{}
	lose := func(id string, s int64) { lost[id] = max(lost[id], s) }
	drop := func(id string) {
		e := m.entries[id][0]
		m.entries[id] = m.entries[id][1:]
		m.bytes -= e.n
		if e.h != "" {
			m.refs[e.h]--
		}
		lose(id, e.seq)
	}
	popOrder := func() bool {
		if len(m.order) == 0 {
			return false
		}
		o := m.order[0]
		m.order = m.order[1:]
		if l := m.entries[o.id]; len(l) > 0 && l[0].seq == o.seq {
			drop(o.id)
		}
		return true
	}
	for i, e := range es {
		if e.h != "" && !m.bodies[e.h] {
			continue // 0: Redis has not its body
		}
		m.seq++
		e.seq, out[i] = m.seq, m.seq
		if m.b[0] <= 0 || m.b[2] <= 0 || e.n > m.b[1] {
			lose(e.id, e.seq)
			continue
		}
		for int64(len(m.entries[e.id])) >= m.b[0] {
			drop(e.id)
		}
		kept := true
		for m.bytes+e.n > m.b[1] {
			if !popOrder() {
				lose(e.id, e.seq)
				kept = false
				break
			}
		}
		if !kept {
			continue
		}
		for int64(len(m.order)) >= m.b[2] {
			popOrder()
		}
		m.entries[e.id] = append(m.entries[e.id], e)
		m.order = append(m.order, e)
		m.bytes += e.n
		if e.h != "" {
			m.refs[e.h]++
		}
	}
	for id, s := range lost {
		m.all = max(m.all, s)
		if len(m.entries[id]) > 0 {
			m.lost[id] = max(m.lost[id], s)
		}
	}
	for id, l := range m.entries {
		if len(l) == 0 {
			delete(m.entries, id)
			delete(m.lost, id) // a session's lost goes with its stream
		}
	}
	for h := range m.bodies {
		if m.refs[h] <= 0 {
			delete(m.bodies, h)
			delete(m.refs, h)
		}
	}
	return out
}

// clear is Clear: of one session (its order items left behind), or of
// all.
func (m *model) clear(scope string) {
	if scope == "*" {
		m.cleared = true
		m.entries, m.order, m.lost, m.refs, m.bodies = map[string][]mEntry{}, nil, map[string]int64{}, map[string]int64{}, map[string]bool{}
		m.bytes, m.all = 0, 0
		return
	}
	for _, e := range m.entries[scope] {
		m.cleared = true
		m.bytes -= e.n
		if e.h != "" {
			m.refs[e.h]--
		}
	}
	delete(m.entries, scope)
	delete(m.lost, scope)
	for h := range m.bodies {
		if m.refs[h] <= 0 {
			delete(m.bodies, h)
			delete(m.refs, h)
		}
	}
}

// runStep runs the append step on Redis as flush does, with the
// and returns its answers.
func runStep(t *testing.T, sj sharedJournal, b [3]int64, es []mEntry) []int64 {
	t.Helper()
	args := []string{strconv.FormatInt(b[0], 10), strconv.FormatInt(b[1], 10), strconv.FormatInt(b[2], 10),
		sj.key("s:"), sj.key("z:"), sj.key("b:")}
	for _, e := range es {
		args = append(args, e.id, e.data, strconv.FormatInt(e.n, 10), e.h, e.body)
	}
	got, err := appendScript.Exec(context.Background(), sj.s.client,
		[]string{sj.key("order"), sj.key("meta"), sj.key("lost"), sj.key("sessions"), sj.key("bref")}, args).AsIntSlice()
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// redisState is what Redis keeps of the journal, as text, key by key.
func redisState(t *testing.T, s *Store) map[string]string {
	t.Helper()
	ctx, c := context.Background(), s.client
	keys, err := c.Do(ctx, c.B().Keys().Pattern(s.key("j:*")).Build()).AsStrSlice()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, k := range keys {
		typ, _ := c.Do(ctx, c.B().Type().Key(k).Build()).ToString()
		var parts []string
		switch typ {
		case "stream":
			es, _ := c.Do(ctx, c.B().Xrange().Key(k).Start("-").End("+").Build()).AsXRange()
			for _, e := range es {
				parts = append(parts, e.ID+" "+e.FieldValues["d"]+" "+e.FieldValues["h"])
			}
		case "list":
			parts, _ = c.Do(ctx, c.B().Lrange().Key(k).Start(0).Stop(-1).Build()).AsStrSlice()
		case "hash":
			m, _ := c.Do(ctx, c.B().Hgetall().Key(k).Build()).AsStrMap()
			for f, v := range m {
				parts = append(parts, f+"="+v)
			}
			slices.Sort(parts)
		case "set":
			parts, _ = c.Do(ctx, c.B().Smembers().Key(k).Build()).AsStrSlice()
			slices.Sort(parts)
		case "string":
			v, _ := c.Do(ctx, c.B().Get().Key(k).Build()).ToString()
			parts = []string{v}
		}
		out[strings.TrimPrefix(k, s.key("j:"))] = typ + ": " + strings.Join(parts, " | ")
	}
	return out
}

// want is what Redis must keep for m (journal.go's layout).
func (m *model) want() map[string]string {
	out := map[string]string{}
	item := func(e mEntry) string {
		if e.h == "" {
			return fmt.Sprintf("%d %d", e.seq, e.n)
		}
		return fmt.Sprintf("%d %d %s", e.seq, e.n, e.h)
	}
	var ids []string
	for id, l := range m.entries {
		ids = append(ids, id)
		var s, z []string
		for _, e := range l {
			s = append(s, fmt.Sprintf("%d-0 %s %s", e.seq, e.data, e.h))
			z = append(z, item(e))
		}
		out["s:"+id] = "stream: " + strings.Join(s, " | ")
		out["z:"+id] = "list: " + strings.Join(z, " | ")
	}
	if len(ids) > 0 {
		slices.Sort(ids)
		out["sessions"] = "set: " + strings.Join(ids, " | ")
	}
	var o []string
	for _, e := range m.order {
		o = append(o, fmt.Sprintf("%d %d %s %s", e.seq, e.n, cmp.Or(e.h, "-"), e.id))
	}
	if len(o) > 0 {
		out["order"] = "list: " + strings.Join(o, " | ")
	}
	var meta []string
	if m.seq > 0 || m.cleared {
		meta = append(meta, "bytes="+strconv.FormatInt(m.bytes, 10))
	}
	if m.seq > 0 {
		meta = append(meta, "seq="+strconv.FormatInt(m.seq, 10))
	}
	if m.all > 0 {
		meta = append(meta, "lost="+strconv.FormatInt(m.all, 10))
	}
	if len(meta) > 0 {
		slices.Sort(meta)
		out["meta"] = "hash: " + strings.Join(meta, " | ")
	}
	var lost, refs []string
	for id, s := range m.lost {
		lost = append(lost, id+"="+strconv.FormatInt(s, 10))
	}
	for _, h := range slices.Sorted(maps.Keys(m.bodies)) {
		refs = append(refs, h+"="+strconv.FormatInt(m.refs[h], 10))
		out["b:"+h] = "string: body of " + h
	}
	if len(lost) > 0 {
		slices.Sort(lost)
		out["lost"] = "hash: " + strings.Join(lost, " | ")
	}
	if len(refs) > 0 {
		out["bref"] = "hash: " + strings.Join(refs, " | ")
	}
	return out
}

// TestAppendStepKeepsTheBounds: steps of random entries (sessions,
// sizes, bodies kept apart or inline, sent or not) and clears, against the model, under small bounds: after
// every step Redis keeps exactly what the model keeps (each session's
// entries, oldest dropped first, within its bound; the fleet's bytes
// and entries; every size item, order item, count and lost sequence
// number; each body while, and only while, an entry refers to it), and
// the step answers as the model does.
func TestAppendStepKeepsTheBounds(t *testing.T) {
	s := openTest(t)
	sj := sharedJournal{s}
	ctx, c := context.Background(), s.client
	for seed := range uint64(60) {
		r := rand.New(rand.NewPCG(seed, 1))
		if err := c.Do(ctx, c.B().Flushall().Build()).Error(); err != nil {
			t.Fatal(err)
		}
		b := [3]int64{1 + r.Int64N(6), 60 + r.Int64N(400), 1 + r.Int64N(14)}
		if seed%10 == 9 {
			b[0] = 0 // no entry kept at all
		}
		m := newModel(b[0], b[1], b[2])
		sessions := 1 + r.IntN(6)
		for step := range 40 {
			what := fmt.Sprintf("seed %d step %d (bounds %v)", seed, step, b)
			if r.IntN(12) == 0 {
				scope := "*"
				if r.IntN(2) == 0 {
					scope = "s" + strconv.Itoa(r.IntN(sessions))
				}
				if err := sj.Clear(ctx, scope); err != nil {
					t.Fatal(err)
				}
				m.clear(scope)
				continue
			}
			var es []mEntry
			for range 1 + r.IntN(12) {
				e := mEntry{id: "s" + strconv.Itoa(r.IntN(sessions)), n: 5 + r.Int64N(b[1]/3+20)}
				e.data = fmt.Sprintf("e%d.%d", step, len(es))
				if r.IntN(30) == 0 {
					e.n = b[1] + 1 // more than all the bytes
				}
				if r.IntN(3) > 0 {
					e.h = "h" + strconv.Itoa(r.IntN(3))
					if r.IntN(2) == 0 {
						e.body = "body of " + e.h
					}
				}
				es = append(es, e)
			}
			want := m.step(es)
			got := runStep(t, sj, b, es)
			if !slices.Equal(got, want) {
				t.Fatalf("%s: the step answers %v, want %v", what, got, want)
			}
			gs, ws := redisState(t, s), m.want()
			for k := range gs {
				if gs[k] != ws[k] {
					t.Fatalf("%s: %s is\n  %s\nwant\n  %s", what, k, gs[k], cmp.Or(ws[k], "(none)"))
				}
			}
			for k := range ws {
				if _, ok := gs[k]; !ok {
					t.Fatalf("%s: %s is not kept; want\n  %s", what, k, ws[k])
				}
			}
		}
	}
}
