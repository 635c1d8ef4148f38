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

// AllSessions owns the run-time faults for every session, and in List
// and Remove stands for every owner (mock.AllSessions is this).
const AllSessions = "*"

// Bounds of the run-time faults: for every session and of each session,
// all together (a scenario's own are bounded by the scenario's format).
// Past them, an addition is a 409 too_many_faults and changes nothing.
// The byte bound counts what the faults keep (their names, paths, error
// bodies and headers: Size), as the count bounds how many they are: a
// thousand error bodies of a megabyte each would otherwise fit.
const (
	MaxRuntime      = 1000
	MaxRuntimeBytes = 16 << 20
)

// Registry keeps the run-time faults: those for every session
// (AllSessions) and each session's own, each list in the order added,
// within a bound on how many they are and on what they keep together.
// It hands out the lists themselves, which it replaces and never
// changes: a request reads the faults it met without a lock. A session's
// faults go with the session (Drop), which its owner says.
type Registry struct {
	max   int
	bytes *budget.Budget // what the faults keep (Size), against MaxRuntimeBytes

	// adding makes additions take turns: the room one has counted stays
	// its own until it is in (removals only make more).
	adding sync.Mutex

	mu     sync.Mutex          // guards the fields below; held while no other lock is taken
	shared []*Fault            // for every session
	own    map[string][]*Fault // each session's, by session id
	seq    int                 // the number of the last id given
}

// NewRegistry returns an empty registry that keeps at most max faults,
// of maxBytes together (MaxRuntime and MaxRuntimeBytes for a server).
func NewRegistry(max int, maxBytes int64) *Registry {
	return &Registry{max: max, own: make(map[string][]*Fault),
		bytes: budget.New("replymock_runtime_fault_bytes", "What the run-time faults keep together (their names, paths, error bodies and headers), within their byte bound (MaxRuntimeFaultBytes).", maxBytes)}
}

// Budget is the faults' byte budget, for the server's set of them.
func (r *Registry) Budget() *budget.Budget { return r.bytes }

// sizeOf is what faults keep together.
func sizeOf(faults []*Fault) int64 {
	var n int64
	for _, f := range faults {
		n += f.Size()
	}
	return n
}

// For returns the faults that apply to session sid's requests: those for
// every session, then its own, each in the order added. The caller must
// not change the lists.
func (r *Registry) For(sid string) (shared, own []*Fault) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.shared, r.own[sid]
}

// Shared returns the faults for every session, in the order added. The
// caller must not change the list.
func (r *Registry) Shared() []*Fault {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.shared
}

// List copies the faults that apply to session sid: every session's,
// then its own, in the order added. With AllSessions, it lists every one.
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
// new id, after every fault there is; it returns f as kept. before, when
// not nil, runs once there is room and before f goes in (the server makes
// the session there); it may remove faults. Past the bounds, it returns
// a 409 *wire.APIError (too_many_faults) and adds nothing.
func (r *Registry) Add(owner string, f Fault, before func()) (Fault, error) {
	f, _, err := r.put(owner, f, false, before)
	return f, err
}

// Replace is Add that takes out the faults of owner named as f is, in
// the same step: no request sees both, or neither. With none of that
// name, it adds f. It returns the faults it took out, for their counters
// to go too.
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

// room refuses n new faults of size bytes together when they would take
// the faults past the bounds, counting all there are but those going
// (which the new ones replace). The caller holds r.adding.
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

// Remove takes out the fault with id, whoever owns it, or with id ""
// every fault of owner (AllSessions: every fault there is). It returns
// the faults it took out, for their counters to go too.
func (r *Registry) Remove(owner, id string) []*Fault {
	var removed []*Fault
	drop := func(of string) func(*Fault) bool {
		return func(f *Fault) bool {
			d := id != "" && f.ID == id || id == "" && (owner == AllSessions || of == owner)
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

// Drop forgets owner's faults: a session's, as the session goes, or with
// AllSessions those for every session (not each session's own).
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

// Restore puts faults, a session's restored from its snapshot, in place
// of the faults of owner (a session), in the order given and keeping
// their ids where no other fault has them (else each gets a new one).
// The bounds are checked with owner's faults gone. before, when not nil,
// runs once there is room and before the faults go in; an error from it
// changes nothing here and is returned. Restore keeps the faults given:
// the caller may hold their addresses (their counters).
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

// takenLocked reports whether a fault but owner's has the id; the caller
// holds r.mu.
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

// ReadBack checks the faults for every session read back from a saved
// state, at path in its document: each valid, with an id of its own (f
// and a number), within the bounds. It returns them prepared, for
// SetShared; a problem is a 400 naming the field.
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

// SetShared puts faults, from ReadBack, in place of the faults for every
// session; ids given later follow theirs.
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
