package fault

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/replymock/replymock/mock/internal/wire"
)

func drop(name string) Fault { return Fault{Name: name, Drop: true} }

// ids lists the faults' ids, in order.
func ids[F Fault | *Fault](faults []F) string {
	var out []string
	for _, f := range faults {
		switch f := any(f).(type) {
		case Fault:
			out = append(out, f.ID)
		case *Fault:
			out = append(out, f.ID)
		}
	}
	return strings.Join(out, " ")
}

// isTooMany reports whether err is the 409 too_many_faults.
func isTooMany(err error) bool {
	var ae *wire.APIError
	return errors.As(err, &ae) && ae.Status == 409 && ae.Code == wire.CodeTooManyFaults
}

// Faults go in with ids in the order added, for every session or one;
// a session sees every session's, then its own.
func TestRegistryAddAndList(t *testing.T) {
	r := NewRegistry(10, 1<<20)
	for _, owner := range []string{AllSessions, "s1", "s2", AllSessions, "s1"} {
		if _, err := r.Add(owner, drop(owner), nil); err != nil {
			t.Fatal(err)
		}
	}
	shared, own := r.For("s1")
	if ids(shared) != "f1 f4" || ids(own) != "f2 f5" {
		t.Errorf("For(s1) = %s | %s, want f1 f4 | f2 f5", ids(shared), ids(own))
	}
	for sid, want := range map[string]string{"s1": "f1 f2 f4 f5", "s2": "f1 f3 f4", "none": "f1 f4", AllSessions: "f1 f2 f3 f4 f5"} {
		if got := ids(r.List(sid)); got != want {
			t.Errorf("List(%s) = %s, want %s", sid, got, want)
		}
	}
	if _, err := r.Add("s1", Fault{Path: "feedbacks", Drop: true}, func() { t.Error("before ran for a bad fault") }); err == nil || !strings.Contains(err.Error(), "path") {
		t.Errorf("a bad fault: %v", err)
	}
}

// The lists handed out are never changed: a request reads what it got.
func TestRegistryListsAreNotChanged(t *testing.T) {
	r := NewRegistry(10, 1<<20)
	for _, owner := range []string{AllSessions, AllSessions, "s1", "s1"} {
		r.Add(owner, drop("x"), nil)
	}
	shared, own := r.For("s1")
	before := ids(shared) + " | " + ids(own)
	r.Replace(AllSessions, drop("x"), nil)
	r.Replace("s1", drop("x"), nil)
	r.Remove("s1", "")
	r.Add("s1", drop("y"), nil)
	if after := ids(shared) + " | " + ids(own); after != before {
		t.Errorf("lists handed out changed: %s, were %s", after, before)
	}
}

// Past either bound, an addition is a 409 that adds nothing and does not
// run before; the faults that go with a replacement make room.
func TestRegistryBounds(t *testing.T) {
	r := NewRegistry(3, 1<<20)
	for _, owner := range []string{AllSessions, "s1", "s2"} {
		if _, err := r.Add(owner, drop("x"), nil); err != nil {
			t.Fatal(err)
		}
	}
	ran := false
	if _, err := r.Add("s3", drop("x"), func() { ran = true }); !isTooMany(err) || ran {
		t.Errorf("a fourth fault: %v (before ran: %v), want 409 too_many_faults", err, ran)
	}
	if _, removed, err := r.Replace("s1", drop("x"), nil); err != nil || ids(removed) != "f2" {
		t.Errorf("replacing at the bound: %v, removed %s; want f2 replaced", err, ids(removed))
	}
	if _, _, err := r.Replace("s1", drop("other"), nil); !isTooMany(err) {
		t.Errorf("replacing none at the bound: %v, want 409", err)
	}
	if got := ids(r.List(AllSessions)); got != "f1 f3 f4" {
		t.Errorf("after: %s, want f1 f3 f4", got)
	}
	if _, _, err := r.Replace("s1", Fault{Drop: true}, nil); err == nil || !strings.Contains(err.Error(), "name") {
		t.Errorf("replacing without a name: %v", err)
	}

	big := strings.Repeat("x", 600)
	b := NewRegistry(100, 2000)
	f := Fault{Error: &ErrorAnswer{Status: 503, Body: &big}}
	if _, err := b.Add("s1", f, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Add(AllSessions, f, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Add("s2", f, nil); !isTooMany(err) || !strings.Contains(err.Error(), "MiB") {
		t.Errorf("past the byte bound: %v, want 409 on bytes", err)
	}
}

// Additions from many goroutines at once never pass the bound.
func TestRegistryBoundHoldsUnderConcurrentAdds(t *testing.T) {
	r := NewRegistry(50, 1<<20)
	var wg sync.WaitGroup
	var mu sync.Mutex
	added, refused := 0, 0
	for i := range 8 {
		wg.Go(func() {
			for j := range 20 {
				owner := fmt.Sprintf("s%d", (i+j)%3)
				if j%5 == 0 {
					owner = AllSessions
				}
				_, err := r.Add(owner, drop("x"), nil)
				mu.Lock()
				if err == nil {
					added++
				} else if isTooMany(err) {
					refused++
				} else {
					t.Error(err)
				}
				mu.Unlock()
				if j%7 == 0 {
					r.For(owner)
				}
			}
		})
	}
	wg.Wait()
	if n := len(r.List(AllSessions)); added != 50 || refused != 110 || n != 50 {
		t.Errorf("added %d, refused %d, kept %d; want 50, 110, 50", added, refused, n)
	}
}

// Remove takes a fault by id from its owner (AllSessions: any owner),
// or all of an owner's, or all; Drop forgets a session's, or those for
// every session only.
func TestRegistryRemoveAndDrop(t *testing.T) {
	r := NewRegistry(20, 1<<20)
	for _, owner := range []string{AllSessions, "s1", "s2", "s1", AllSessions, "s2"} {
		r.Add(owner, drop(owner), nil)
	}
	if got := ids(r.Remove("s2", "f2")); got != "" {
		t.Errorf("Remove(s2, f2) = %s: s1's fault taken through s2", got)
	}
	if got := ids(r.Remove(AllSessions, "f2")); got != "f2" {
		t.Errorf("Remove(*, f2) = %s: an id is taken whoever owns it", got)
	}
	if got := ids(r.Remove("s1", "")); got != "f4" {
		t.Errorf("Remove(s1) = %s, want f4", got)
	}
	if got := ids(r.Remove("s1", "f99")); got != "" {
		t.Errorf("Remove(f99) = %s", got)
	}
	r.Drop(AllSessions)
	if got := ids(r.List(AllSessions)); got != "f3 f6" {
		t.Errorf("after Drop(*): %s, want each session's own only", got)
	}
	r.Drop("s2")
	if got := ids(r.List(AllSessions)); got != "" {
		t.Errorf("after Drop(s2): %s", got)
	}
	r.Add("s1", drop("a"), nil)
	r.Add(AllSessions, drop("b"), nil)
	if got := ids(r.Remove(AllSessions, "")); got != "f8 f7" {
		t.Errorf("Remove(*) = %s, want every fault", got)
	}
}

// Restore puts a session's faults in place of its own, keeping ids no
// other fault has; the bound counts the faults without the session's;
// an error from before changes nothing.
func TestRegistryRestore(t *testing.T) {
	r := NewRegistry(5, 1<<20)
	r.Add(AllSessions, drop("a"), nil) // f1
	r.Add("s1", drop("b"), nil)        // f2
	r.Add("s2", drop("c"), nil)        // f3
	restored := func(idList ...string) []*Fault {
		var out []*Fault
		for _, id := range idList {
			f := drop("r")
			f.ID = id
			f.Prepare()
			out = append(out, &f)
		}
		return out
	}
	if err := r.Restore("s1", restored("f2", "f3", "", "f9"), nil); !isTooMany(err) {
		t.Errorf("four in place of one, with two others: %v, want 409", err)
	}
	fail := errors.New("no")
	if err := r.Restore("s1", restored("f7"), func() error { return fail }); err != fail {
		t.Errorf("before's error: %v", err)
	}
	if got := ids(r.List(AllSessions)); got != "f1 f2 f3" {
		t.Errorf("after refusals: %s, want nothing changed", got)
	}
	fs := restored("f2", "f3", "x")
	if err := r.Restore("s1", fs, func() error { r.Drop("s1"); return nil }); err != nil {
		t.Fatal(err)
	}
	if got := ids(fs); got != "f2 f4 x" {
		t.Errorf("restored ids: %s, want f2 kept (its owner's), f3 taken (s2's) so new, x kept", got)
	}
	if _, own := r.For("s1"); len(own) != 3 || own[0] != fs[0] {
		t.Errorf("s1's faults are not the ones given: %v", own)
	}
	r.Drop("s2")
	if f, _ := r.Add("s3", drop("d"), nil); f.ID != "f5" {
		t.Errorf("next id: %s, want f5", f.ID)
	}
	if err := r.Restore("s1", nil, nil); err != nil || ids(r.List("s1")) != "f1" {
		t.Errorf("restoring none: %v, %s", err, ids(r.List("s1")))
	}
}

// ReadBack checks a saved state's faults; SetShared puts them in, and
// ids given after follow theirs.
func TestRegistryReadBack(t *testing.T) {
	r := NewRegistry(3, 2000)
	big := strings.Repeat("x", 900)
	for _, tc := range []struct {
		in   []Fault
		want string
	}{
		{[]Fault{{ID: "f1", Drop: true}, {ID: "f2"}}, "faults[1].: does nothing"},
		{[]Fault{{ID: "f1", Drop: true}, {ID: "g2", Drop: true}}, "faults[1].id: must be f and a number"},
		{[]Fault{{ID: "f1", Drop: true}, {ID: "f1", Drop: true}}, "faults[1].id: must be f and a number, each once"},
		{[]Fault{{ID: "f1", Drop: true}, {ID: "f2", Drop: true}, {ID: "f3", Drop: true}, {ID: "f4", Drop: true}}, "faults: at most 3, got 4"},
		{[]Fault{{ID: "f1", Error: &ErrorAnswer{Status: 500, Body: &big}}, {ID: "f2", Error: &ErrorAnswer{Status: 500, Body: &big}}}, "faults: over 0 MiB together"},
	} {
		if _, err := r.ReadBack("faults", tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", ids(tc.in), err, tc.want)
		}
	}
	faults, err := r.ReadBack("faults", []Fault{{ID: "f7", Drop: true}, {ID: "f003", Drop: true}})
	if err != nil {
		t.Fatal(err)
	}
	r.SetShared(faults)
	f, _ := r.Add("s1", drop("x"), nil)
	if got := ids(r.List(AllSessions)); got != "f003 f7 f8" || f.ID != "f8" {
		t.Errorf("after SetShared: %s (added %s), want f003 f7 f8", got, f.ID)
	}
	if !slices.Equal(r.Shared(), faults) {
		t.Error("Shared is not the faults set")
	}
}

// The registry's budget counts what its faults keep, exactly, through
// every way they come and go.
func TestRegistryBudgetCountsWhatIsKept(t *testing.T) {
	r := NewRegistry(100, 1<<20)
	body := strings.Repeat("b", 300)
	withBody := func(name string) Fault {
		return Fault{Name: name, Error: &ErrorAnswer{Status: 503, Body: &body}}
	}
	kept := func() int64 {
		var all []*Fault
		for _, f := range r.List(AllSessions) {
			all = append(all, &f)
		}
		return sizeOf(all)
	}
	steps := []struct {
		what string
		do   func() error
	}{
		{"add for every session", func() error { _, err := r.Add(AllSessions, withBody("a"), nil); return err }},
		{"add a session's", func() error { _, err := r.Add("s1", withBody("b"), nil); return err }},
		{"add another session's", func() error { _, err := r.Add("s2", drop("c"), nil); return err }},
		{"replace one", func() error { _, _, err := r.Replace("s1", drop("b"), nil); return err }},
		{"remove by id", func() error { r.Remove(AllSessions, "f1"); return nil }},
		{"restore a session's", func() error {
			return r.Restore("s2", []*Fault{{Name: "r", Error: &ErrorAnswer{Status: 500, Body: &body}}}, nil)
		}},
		{"set the shared ones", func() error { r.SetShared([]*Fault{{Name: "s", Drop: true}}); return nil }},
		{"drop a session", func() error { r.Drop("s1"); return nil }},
		{"drop the shared ones", func() error { r.Drop(AllSessions); return nil }},
		{"remove all", func() error { r.Remove(AllSessions, ""); return nil }},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.what, err)
		}
		if got, want := r.Budget().Used(), kept(); got != want {
			t.Errorf("after %s: the budget counts %d bytes, the faults keep %d", st.what, got, want)
		}
	}
	if r.Budget().Used() != 0 {
		t.Errorf("empty, the budget counts %d bytes", r.Budget().Used())
	}
}
