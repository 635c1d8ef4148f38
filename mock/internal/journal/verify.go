package journal

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// MaxVerifySeqs is how many of the newest matching entries'
// sequence numbers a verification lists.
const MaxVerifySeqs = 100

// NearMisses is how many of the closest entries a failed verification
// shows.
const NearMisses = 3

// Times says how many journal entries must match a pattern: from Min to
// Max, or more for a negative Max.
type Times struct {
	Min int
	Max int
}

// Exactly wants n matching entries.
func Exactly(n int) Times { return Times{n, n} }

// AtLeast wants n matching entries or more.
func AtLeast(n int) Times { return Times{n, -1} }

// AtMost wants at most n matching entries.
func AtMost(n int) Times { return Times{0, n} }

// Between wants from min to max matching entries.
func Between(min, max int) Times { return Times{min, max} }

// String says what t wants, as verifications word it: "at least 1".
func (t Times) String() string {
	switch {
	case t.Max < 0 && t.Min <= 0:
		return "any number"
	case t.Max < 0:
		return fmt.Sprintf("at least %d", t.Min)
	case t.Min == t.Max:
		return fmt.Sprintf("exactly %d", t.Min)
	case t.Min <= 0:
		return fmt.Sprintf("at most %d", t.Max)
	}
	return fmt.Sprintf("from %d to %d", t.Min, t.Max)
}

// Verification is the outcome of a verification, and the data of GET
// /__mock/verify.
type Verification struct {
	OK      bool    `json:"-"`
	Matched int     `json:"matched"`
	Want    string  `json:"want"` // "at least 1", "exactly 2", "from 1 to 3"
	Seqs    []int64 `json:"seqs"` // of the newest MaxVerifySeqs matching entries, oldest first
	// Incomplete is set when the journals searched lost entries newer
	// than the pattern's since to their bounds, so Matched may be short.
	Incomplete bool `json:"incomplete"`
	// NearMisses, when fewer entries matched than wanted, are the
	// entries closest to the pattern: fewest differing parts, then newest.
	NearMisses []NearMiss `json:"near_misses,omitzero"`
	// Evicted, when fewer entries matched than wanted, is the warning of
	// the newest request that found its session evicted: the requests
	// before it went with the session.
	Evicted string `json:"evicted,omitempty"`
	// Unreachable, when fewer entries matched than wanted, says why no
	// operation of the API takes the pattern's method and path: a typo,
	// most likely.
	Unreachable string `json:"unreachable,omitempty"`
}

// EvictedWords are in the warning of a session's first request after the
// store evicted it, and in no other.
const EvictedWords = " was evicted at "

// NearMiss is an entry that does not match a pattern, with the parts
// that differ.
type NearMiss struct {
	Seq     int64                 `json:"seq"`
	Session string                `json:"session"`
	Method  string                `json:"method"`
	Path    string                `json:"path"`
	Differs map[string]Difference `json:"differs"` // by part: "method", "query.answered", "body.a.0"
}

// Difference is what a pattern wants of a part and what an entry has
// there, nil for nothing (or a body that is not JSON).
type Difference struct {
	Want string  `json:"want"`
	Got  *string `json:"got"`
}

// DiffersString words the differing parts in one line:
// `query.answered: want "0", got "1"; header.X-Client: want "web", got nothing`.
func (nm NearMiss) DiffersString() string {
	var parts []string
	for _, field := range slices.Sorted(maps.Keys(nm.Differs)) {
		d := nm.Differs[field]
		got := "nothing"
		if d.Got != nil {
			got = strconv.Quote(*d.Got)
		}
		parts = append(parts, fmt.Sprintf("%s: want %q, got %s", field, d.Want, got))
	}
	return strings.Join(parts, "; ")
}

// nearMiss describes how r differs from the pattern.
func (p *Pattern) nearMiss(r *Record) NearMiss {
	nm := NearMiss{Seq: r.Seq, Session: r.Session, Method: r.Method, Path: r.Path, Differs: map[string]Difference{}}
	for i := range p.parts {
		pt := &p.parts[i]
		if ok, got := pt.check(r, nil); !ok {
			if got != nil {
				g := *got // not a pointer into the record
				got = &g
			}
			nm.Differs[pt.field] = Difference{Want: pt.want, Got: got}
		}
	}
	return nm
}

// Verify counts the entries that match p and checks the count against
// want, with the nearest misses when fewer match than want.Min.
func (j *Journals) Verify(p *Pattern, want Times) (Verification, error) {
	sc := newScan()
	all, err := j.gather(p.scope, &Pattern{}, p.since, 0, sc)
	if err != nil {
		return Verification{}, err
	}
	slices.SortFunc(all, func(a, b *Record) int { return cmp.Compare(a.Seq, b.Seq) })
	incomplete, err := j.incomplete(p.scope, p.since)
	if err != nil {
		return Verification{}, err
	}
	v := Verification{Want: want.String(), Seqs: []int64{}, Incomplete: incomplete}
	type miss struct {
		r *Record
		n int
	}
	var near []miss // the best so far: fewest differences, then newest
	for _, r := range all {
		most := len(p.parts) // an entry's differences count, until it could no longer be among the nearest
		if len(near) == NearMisses {
			most = near[len(near)-1].n // a newer entry as near goes before it
		}
		for _, w := range r.Warnings {
			if strings.Contains(w, EvictedWords) {
				v.Evicted = w
			}
		}
		n := differs(p.parts, r, most, sc)
		if sc.over() {
			return Verification{}, ErrScanTooLarge
		}
		if n == 0 {
			v.Matched++
			v.Seqs = append(v.Seqs, r.Seq)
			continue
		}
		// Entries come oldest first: a newer one with as few differences
		// goes before the ones already kept.
		i, _ := slices.BinarySearchFunc(near, n, func(x miss, n int) int { return cmp.Compare(x.n, n) })
		if i < NearMisses {
			near = slices.Insert(near, i, miss{r, n})
			near = near[:min(len(near), NearMisses)]
		}
	}
	if len(v.Seqs) > MaxVerifySeqs {
		v.Seqs = slices.Clone(v.Seqs[len(v.Seqs)-MaxVerifySeqs:])
	}
	v.OK = v.Matched >= want.Min && (want.Max < 0 || v.Matched <= want.Max)
	if v.Matched >= want.Min {
		v.Evicted = ""
	} else {
		v.NearMisses = make([]NearMiss, 0, len(near))
		for _, x := range near {
			v.NearMisses = append(v.NearMisses, p.nearMiss(x.r))
		}
	}
	return v, nil
}
