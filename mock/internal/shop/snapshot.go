package shop

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/replymock/replymock/mock/internal/generate"
	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/scenario"
	"github.com/replymock/replymock/mock/internal/wire"
)

// MaxLead bounds a real clock's lead in a snapshot: ten years.
const MaxLead = 10 * 8784 * time.Hour

// Snapshot is a session's living shop, its part of a session's snapshot.
// Changed are the reviews of the shop's data that the engine answered or
// drafted; Arrivals are the new reviews, oldest first. Both are written
// as the list shows them.
type Snapshot struct {
	Clock           string            `json:"clock"`            // real or frozen
	Now             time.Time         `json:"now"`              // the shop's clock when taken
	Lead            wire.Duration     `json:"lead,omitempty"`   // how far a real clock runs ahead of the server's
	Origin          time.Time         `json:"origin"`           // where arrivals count from
	Processed       time.Time         `json:"processed"`        // the engine has run up to here
	SettingsChanged [5]time.Time      `json:"settings_changed"` // when each rating's settings last changed
	Replies         string            `json:"replies"`          // the reply engine's seed (generate.Engine.State)
	Changed         []json.RawMessage `json:"changed,omitempty"`
	Arrivals        []json.RawMessage `json:"arrivals,omitempty"`
}

// Check bounds what a snapshot may hold before anything is decoded.
func (in *Snapshot) Check(path string) error {
	if len(in.Arrivals) > scenario.MaxShopReviews {
		return wire.InvalidBody(path+".arrivals", "at most %d, got %d", scenario.MaxShopReviews, len(in.Arrivals))
	}
	if len(in.Changed) > scenario.MaxShopReviews {
		return wire.InvalidBody(path+".changed", "at most %d, got %d", scenario.MaxShopReviews, len(in.Changed))
	}
	return nil
}

// Snapshot takes the shop as it stands on base, the data it started on.
func (sh *Shop) Snapshot(base *reviews.Stack, now time.Time) *Snapshot {
	out := &Snapshot{Clock: cmp.Or(sh.spec.Clock, "real"), Now: sh.Now(now).UTC(), Origin: sh.origin.UTC(), Processed: sh.processed.UTC(),
		Replies: base64.StdEncoding.EncodeToString(sh.engine.State())}
	if !sh.Frozen() {
		out.Lead = wire.Duration(sh.advanced)
	}
	for i, t := range sh.changedAt {
		out.SettingsChanged[i] = t.UTC()
	}
	// The arrivals are the top of the list, before the data. Their JSON
	// is the Stack's own, not copied: a shop at its bound is some 17 MB.
	k := sh.st.Len() - base.Len()
	if k > 0 {
		out.Arrivals = make([]json.RawMessage, 0, k)
	}
	for i := k - 1; i >= 0; i-- {
		out.Arrivals = append(out.Arrivals, capped(sh.st.JSON(i)))
	}
	for i := range base.Len() {
		if js := sh.st.JSON(k + i); !bytes.Equal(js, base.JSON(i)) {
			out.Changed = append(out.Changed, capped(js))
		}
	}
	return out
}

// capped is b with no room to grow, so an append to it copies.
func capped(b []byte) json.RawMessage { return b[:len(b):len(b)] }

// Decode reads and checks reviews as the list shows them, naming a
// problem under path.
type Decode func(raws []json.RawMessage, path string) ([]reviews.Feedback, error)

// Restore builds a session's living shop in sc, on base, from in; a
// problem is a wire.InvalidBody under path.
func Restore(sc *scenario.Scenario, base *reviews.Stack, in *Snapshot, path string, now time.Time, decode Decode) (*Shop, error) {
	sh := New(sc, base, now)
	if clock := cmp.Or(sh.spec.Clock, "real"); in.Clock != clock {
		return nil, wire.InvalidBody(path+".clock", "the scenario's shop has a %s clock, not %q", clock, in.Clock)
	}
	state, err := base64.StdEncoding.DecodeString(in.Replies)
	if err == nil {
		err = generate.CheckState(state)
	}
	if err != nil {
		return nil, wire.InvalidBody(path+".replies", "not the state of a reply engine: %v", err)
	}
	if err := in.checkTimes(path); err != nil {
		return nil, err
	}
	arrivals, err := in.arrivalsOn(base, path, decode)
	if err != nil {
		return nil, err
	}
	sh.origin, sh.processed = in.Origin, in.Processed
	sh.changedAt = in.SettingsChanged
	// With the next arrival, the writer goes on where it stood (see arrival).
	if g := sc.Generate(); g != nil && sh.sc.Bank() != nil && sh.spec.ArrivalsPerHour > 0 {
		sh.arrived = len(arrivals)
	} else if len(arrivals) > 0 {
		return nil, wire.InvalidBody(path+".arrivals", "the scenario's shop has no arrivals")
	}
	if sh.Frozen() {
		sh.frozen = in.Now
	} else {
		sh.advanced = in.Lead.D()
		// A shop that stood still for long goes on from MaxGap before
		// now, as a new one would, rather than fill the gap in a burst.
		if from := now.Add(sh.advanced - MaxGap); from.After(sh.processed) {
			skip := from.Sub(sh.processed)
			sh.origin, sh.processed = sh.origin.Add(skip), from
		}
	}
	if sh.st, err = in.reviewsOn(base, arrivals, path, decode); err != nil {
		return nil, err
	}
	return sh, nil
}

// checkTimes checks a shop snapshot's times and lead.
func (in *Snapshot) checkTimes(path string) error {
	for _, tf := range []struct {
		name string
		t    time.Time
	}{{"origin", in.Origin}, {"processed", in.Processed}, {"now", in.Now}} {
		if tf.t.Year() < 2000 || tf.t.Year() > MaxClockYear {
			return wire.InvalidBody(path+"."+tf.name, "must be a time from 2000 to the end of %d, got %s", MaxClockYear, tf.t.Format(time.RFC3339))
		}
	}
	if in.Processed.Before(in.Origin) || in.Now.Before(in.Processed) {
		return wire.InvalidBody(path+".processed", "must lie between origin and now")
	}
	if in.Lead < 0 || in.Lead.D() > MaxLead {
		return wire.InvalidBody(path+".lead", "must be from 0 to %s, got %s", wire.Duration(MaxLead), in.Lead)
	}
	return nil
}

// arrivalsOn decodes a snapshot's arrivals. Neither they nor the origin
// may be older than the newest review of base.
func (in *Snapshot) arrivalsOn(base *reviews.Stack, path string, decode Decode) ([]reviews.Feedback, error) {
	arrivals, err := decode(in.Arrivals, path+".arrivals")
	if err != nil {
		return nil, err
	}
	if newest := newestOf(base, time.Time{}); !newest.IsZero() {
		if in.Origin.Before(newest) {
			return nil, wire.InvalidBody(path+".origin", "must not be before the shop's newest review (%s)", newest.Format(reviews.TimestampLayout))
		}
		for i := range arrivals {
			if m, _ := reviews.MetaOf(&arrivals[i]); time.Unix(m.Created, 0).Before(newest) {
				return nil, wire.InvalidBody(fmt.Sprintf("%s.arrivals[%d].created_date", path, i), "must not be before the shop's newest review (%s)", newest.Format(reviews.TimestampLayout))
			}
		}
	}
	return arrivals, nil
}

// reviewsOn is the shop's reviews as the snapshot has them: base with
// its answers and drafts, and the arrivals on top with the ids that
// follow base's.
func (in *Snapshot) reviewsOn(base *reviews.Stack, arrivals []reviews.Feedback, path string, decode Decode) (*reviews.Stack, error) {
	changed, err := decode(in.Changed, path+".changed")
	if err != nil {
		return nil, err
	}
	changes, err := positionsOf(base, changed, path+".changed")
	if err != nil {
		return nil, err
	}
	wantIDs := make([]int64, len(arrivals))
	for i := range arrivals {
		wantIDs[i] = arrivals[i].ID
	}
	st, err := base.With(changes, arrivals)
	if err != nil {
		return nil, wire.InvalidBody(path, "%v", err)
	}
	for i, id := range wantIDs {
		if arrivals[i].ID != id {
			return nil, wire.InvalidBody(fmt.Sprintf("%s.arrivals[%d].id", path, i), "must be %d: arrivals follow the data's ids, oldest first", arrivals[i].ID)
		}
	}
	return st, nil
}

// positionsOf finds each changed review in base by its id.
func positionsOf(base *reviews.Stack, changed []reviews.Feedback, path string) ([]reviews.Change, error) {
	if len(changed) == 0 {
		return nil, nil
	}
	pos := make(map[int64]int, base.Len())
	for i := range base.Len() {
		var rec struct {
			ID int64 `json:"id"`
		}
		if err := json.Unmarshal(base.JSON(i), &rec); err != nil {
			return nil, err
		}
		pos[rec.ID] = i
	}
	changes := make([]reviews.Change, len(changed))
	for i := range changed {
		p, ok := pos[changed[i].ID]
		if !ok {
			return nil, wire.InvalidBody(fmt.Sprintf("%s[%d].id", path, i), "no review %d in the shop's data", changed[i].ID)
		}
		changes[i] = reviews.Change{Pos: p, F: &changed[i]}
	}
	slices.SortFunc(changes, func(a, b reviews.Change) int { return a.Pos - b.Pos })
	return changes, nil
}
