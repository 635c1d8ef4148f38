package fault

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/replymock/replymock/mock/internal/budget"
	"github.com/replymock/replymock/mock/internal/wire"
)

// AllSessions owns the faults for every session. In List and Remove it
// stands for every owner.
const AllSessions = "*"

// Bounds of the run-time faults of all sessions together: how many, and
// how much memory (Size). The byte bound stops a thousand error bodies
// of a megabyte each.
const (
	MaxRuntime      = 1000
	MaxRuntimeBytes = 16 << 20
)

// Registry keeps the run-time faults: those for every session and each
// session's own, in the order added. A list is replaced, never changed,
// so a request reads the faults it met without a lock.
type Registry struct {
	max   int
	bytes *budget.Budget

	// adding makes additions take turns, so the room one has counted is
	// still there when it goes in.
	adding sync.Mutex

	mu     sync.Mutex // guards the fields below; no other lock is taken while held
	shared []*Fault   // for every session
	own    map[string][]*Fault
	seq    int // the number of the last id given
}

func NewRegistry(max int, maxBytes int64) *Registry {
	return &Registry{max: max, own: make(map[string][]*Fault),
		bytes: budget.New("replymock_runtime_fault_bytes", "What the run-time faults keep together (their names, paths, error bodies and headers), within their byte bound (MaxRuntimeFaultBytes).", maxBytes)}
}

func (r *Registry) Budget() *budget.Budget { return r.bytes }

func sizeOf(faults []*Fault) int64 {
	var n int64
	for _, f := range faults {
		n += f.Size()
	}
	return n
}

// For returns the faults for every session and session sid's own. The
// caller must not change the lists.
func (r *Registry) For(sid string) (shared, own []*Fault) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.shared, r.own[sid]
}

// Shared returns the faults for every session. The caller must not
// change the list.
func (r *Registry) Shared() []*Fault {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.shared
}

// List copies the faults that apply to session sid (AllSessions: all),
// in the order added.
func (r *Registry) List(sid string) []Fault {
	r.mu.Lock()
	var out []Fault
	for _, f := range r.shared {
		out = append(out, *f)
	}
	for owner, list := range r.own {
		if sid == AllSessions || owner == sid {
			for _, f := range list {
				out = append(out, *f)
			}
		}
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b Fault) int { return a.seq - b.seq })
	return out
}

// Add checks f and adds it for owner (a session, or AllSessions) with a
// new id; it returns f as kept. before, if not nil, runs once there is
// room and before f goes in.
func (r *Registry) Add(owner string, f Fault, before func()) (Fault, error) {
	f, _, err := r.put(owner, f, false, before)
	return f, err
}

// Replace is Add that also takes out owner's faults named as f is, in
// one step. It returns the faults taken out, so their counters can go.
func (r *Registry) Replace(owner string, f Fault, before func()) (Fault, []*Fault, error) {
	if f.Name == "" {
		return Fault{}, nil, wire.InvalidBody("name", "required: the name of the fault to replace")
	}
	return r.put(owner, f, true, before)
}

func (r *Registry) put(owner string, f Fault, replace bool, before func()) (Fault, []*Fault, error) {
	if err := f.check(); err != nil {
		return Fault{}, nil, err
	}
	f.Prepare()
	going := func(g *Fault, of string) bool { return replace && of == owner && g.Name == f.Name }
	r.adding.Lock()
	defer r.adding.Unlock()
	if err := r.room(1, f.Size(), going); err != nil {
		return Fault{}, nil, err
	}
	if before != nil {
		before()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var removed []*Fault
	keep := func(g *Fault) bool {
		if going(g, owner) {
			removed = append(removed, g)
			return true
		}
		return false
	}
	r.seq++
	f.ID, f.seq = "f"+strconv.Itoa(r.seq), r.seq
	if owner == AllSessions {
		r.shared = append(slices.DeleteFunc(slices.Clone(r.shared), keep), &f)
	} else {
		r.own[owner] = append(slices.DeleteFunc(slices.Clone(r.own[owner]), keep), &f)
	}
	r.bytes.Charge(f.Size() - sizeOf(removed))
	return f, removed, nil
}

// room refuses n new faults of size bytes past the bounds, not counting
// the faults going. r.adding must be held.
func (r *Registry) room(n int, size int64, going func(f *Fault, owner string) bool) error {
	r.mu.Lock()
	have, used := 0, r.bytes.Used()
	count := func(owner string, list []*Fault) {
		for _, f := range list {
			if going(f, owner) {
				used -= f.Size()
			} else {
				have++
			}
		}
	}
	count(AllSessions, r.shared)
	for owner, list := range r.own {
		count(owner, list)
	}
	r.mu.Unlock()
	these := "this one"
	if n != 1 {
		these = fmt.Sprintf("these %d", n)
	}
	switch {
	case have+n > r.max:
		return &wire.APIError{Status: http.StatusConflict, Code: wire.CodeTooManyFaults,
			Message: fmt.Sprintf("at most %d run-time faults at once, and %s would pass it; remove some first (DELETE /__mock/faults)", r.max, these)}
	case used+size > r.bytes.Max():
		return &wire.APIError{Status: http.StatusConflict, Code: wire.CodeTooManyFaults,
			Message: fmt.Sprintf("run-time faults keep at most %d MiB together, and %s (%d bytes) would pass it; remove some first (DELETE /__mock/faults)", r.bytes.Max()>>20, these, size)}
	}
	return nil
}

// Remove takes out owner's fault with id, or with id "" every fault of
// owner. Owner AllSessions stands for any owner. It returns the faults
// taken out.
func (r *Registry) Remove(owner, id string) []*Fault {
	var removed []*Fault
	drop := func(of string) func(*Fault) bool {
		return func(f *Fault) bool {
			d := (id == "" || f.ID == id) && (owner == AllSessions || of == owner)
			if d {
				removed = append(removed, f)
			}
			return d
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.shared = slices.DeleteFunc(slices.Clone(r.shared), drop(AllSessions))
	for of, list := range r.own {
		if list = slices.DeleteFunc(slices.Clone(list), drop(of)); len(list) > 0 {
			r.own[of] = list
		} else {
			delete(r.own, of)
		}
	}
	r.bytes.Release(sizeOf(removed))
	return removed
}

// Drop forgets owner's faults when the session goes. With AllSessions it
// forgets the faults for every session, not each session's own.
func (r *Registry) Drop(owner string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if owner == AllSessions {
		r.bytes.Release(sizeOf(r.shared))
		r.shared = nil
	} else {
		r.bytes.Release(sizeOf(r.own[owner]))
		delete(r.own, owner)
	}
}

// Restore puts a session's faults from its snapshot in place of owner's.
// A fault keeps its id unless another fault has it. before, if not nil,
// runs once there is room; its error stops Restore. The faults are kept
// as given: the caller holds their counters by address.
func (r *Registry) Restore(owner string, faults []*Fault, before func() error) error {
	r.adding.Lock()
	defer r.adding.Unlock()
	if len(faults) > 0 {
		if err := r.room(len(faults), sizeOf(faults), func(_ *Fault, of string) bool { return of == owner }); err != nil {
			return err
		}
	}
	if before != nil {
		if err := before(); err != nil {
			return err
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, f := range faults {
		if f.ID == "" || r.takenLocked(owner, f.ID) {
			r.seq++
			f.ID = "f" + strconv.Itoa(r.seq)
		}
		f.seq = seqOf(f.ID)
		r.seq = max(r.seq, f.seq)
	}
	r.bytes.Charge(sizeOf(faults) - sizeOf(r.own[owner]))
	if len(faults) > 0 {
		r.own[owner] = faults
	} else {
		delete(r.own, owner)
	}
	return nil
}

// takenLocked reports whether a fault not owner's has the id. r.mu must
// be held.
func (r *Registry) takenLocked(owner, id string) bool {
	has := func(f *Fault) bool { return f.ID == id }
	if slices.ContainsFunc(r.shared, has) {
		return true
	}
	for of, list := range r.own {
		if of != owner && slices.ContainsFunc(list, has) {
			return true
		}
	}
	return false
}

// ReadBack checks the faults for every session read from a saved state
// at path and returns them prepared for SetShared.
func (r *Registry) ReadBack(path string, in []Fault) ([]*Fault, error) {
	if len(in) > r.max {
		return nil, wire.InvalidBody(path, "at most %d, got %d", r.max, len(in))
	}
	var out []*Fault
	size := int64(0)
	for i := range in {
		f := in[i]
		at := fmt.Sprintf("%s[%d]", path, i)
		if probs := f.Validate(); len(probs) > 0 {
			return nil, wire.InvalidBody(at+"."+probs[0].Field, "%s", probs[0].Msg)
		}
		if seqOf(f.ID) == 0 || slices.ContainsFunc(out, func(g *Fault) bool { return g.ID == f.ID }) {
			return nil, wire.InvalidBody(at+".id", "must be f and a number, each once; got %q", f.ID)
		}
		f.Prepare()
		f.seq = seqOf(f.ID)
		size += f.Size()
		out = append(out, &f)
	}
	if size > r.bytes.Max() {
		return nil, wire.InvalidBody(path, "over %d MiB together", r.bytes.Max()>>20)
	}
	return out, nil
}

func (r *Registry) SetShared(faults []*Fault) {
	r.adding.Lock()
	defer r.adding.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bytes.Charge(sizeOf(faults) - sizeOf(r.shared))
	r.shared = faults
	for _, f := range faults {
		r.seq = max(r.seq, f.seq)
	}
}

// seqOf is the number in a fault id such as "f12"; 0 for another.
func seqOf(id string) int {
	digits, ok := strings.CutPrefix(id, "f")
	n, err := wire.ParseDigits(digits)
	if !ok || err != nil || n > 1<<40 {
		return 0
	}
	return int(n)
}
