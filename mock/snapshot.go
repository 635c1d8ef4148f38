package mock

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/replymock/replymock/mock/internal/fault"
	"github.com/replymock/replymock/mock/internal/media"
	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/wire"
	"gopkg.in/yaml.v3"
)

// SnapshotFormat names the document GET /__mock/snapshot writes and POST
// /__mock/snapshot reads: a session as it is (see Snapshot).
const SnapshotFormat = "replymock-snapshot/1"

// MaxSnapshotBytes bounds a snapshot document: a session's seeded reviews
// (MaxSeedReviews) and a living shop's arrivals and answers
// (MaxShopReviews each) fit with room.
const MaxSnapshotBytes = 96 << 20

// MaxSnapshotYAMLBytes bounds a snapshot sent as YAML, which takes many
// times its size while it is read: a bigger one goes as JSON.
const MaxSnapshotYAMLBytes = 8 << 20

// Snapshot is everything that makes a session what it is: the scenario it
// picked, its overrides and run-time faults with their counters, and per
// scenario it used its settings, the reviews it seeded, the counters of
// the scenario's faults and its living shop (clock, arrivals, answers and
// drafts, and where the reply engine's random sequence stands). Restored
// (Server.Restore), the session answers the list, counts and settings
// byte for byte as it did. The journal and rate-limit windows are not
// part of it: a restored session starts them afresh.
type Snapshot struct {
	Format  string    `json:"format"`
	Session string    `json:"session"`
	TakenAt time.Time `json:"taken_at"`
	// ServerVersion is the version of the server that took it, for a reader.
	ServerVersion string `json:"server_version,omitempty"`
	// MediaBase is the base of the media URLs in its reviews (the public
	// URL of the server that took it); restored on a server reached
	// elsewhere, the URLs are moved to that server's.
	MediaBase string `json:"media_base,omitempty"`
	// Scenario is the session's pick (PUT /__mock/scenario); "" follows
	// the server's.
	Scenario  string     `json:"scenario,omitempty"`
	Overrides *Overrides `json:"overrides,omitempty"`
	// Faults are the session's run-time faults, in the order added.
	Faults []SnapshotFault `json:"faults,omitempty"`
	// SharedFaultCounters count the session's requests that met run-time
	// faults for every session, by fault id.
	SharedFaultCounters []SharedFaultCount `json:"shared_fault_counters,omitempty"`
	// Scenarios is the session's state in each scenario it used, by name.
	Scenarios []ScenarioSnapshot `json:"scenarios,omitempty"`
}

// SnapshotFault is a run-time fault and what the session's requests did
// with it.
type SnapshotFault struct {
	Fault
	Matched int `json:"matched"` // matching requests seen
	Hit     int `json:"hit"`     // requests the fault applied to
}

// SharedFaultCount is a session's counter of a fault for every session.
type SharedFaultCount struct {
	ID      string `json:"id"`
	Matched int    `json:"matched"`
	Hit     int    `json:"hit"`
}

// ScenarioFaultCount is a session's counter of a scenario's own fault,
// the Index-th of its faults list.
type ScenarioFaultCount struct {
	Index   int `json:"index"`
	Matched int `json:"matched"`
	Hit     int `json:"hit"`
}

// ScenarioSnapshot is a session's state in one scenario.
type ScenarioSnapshot struct {
	Name string `json:"name"`
	// Fingerprint names the scenario's version (its file, fixtures and
	// seed); DataEnd is where its generated data ends, when anchored to
	// the present. Fault counters and the living shop are restored only
	// on the same version and end.
	Fingerprint   string               `json:"fingerprint"`
	DataEnd       string               `json:"data_end,omitempty"`
	Settings      *Settings            `json:"settings,omitempty"`
	FaultCounters []ScenarioFaultCount `json:"fault_counters,omitempty"`
	Seeded        *SeededSnapshot      `json:"seeded,omitempty"`
	Shop          *ShopSnapshot        `json:"shop,omitempty"`
}

// SeededSnapshot is what a session seeded in a scenario (PUT /__mock/data).
type SeededSnapshot struct {
	Mode    string            `json:"mode"`    // replace or append
	Reviews []json.RawMessage `json:"reviews"` // as the list shows them, oldest first
}

// ShopSnapshot is a session's living shop.
type ShopSnapshot struct {
	Clock string    `json:"clock"` // real or frozen
	Now   time.Time `json:"now"`   // the shop's clock when taken
	// Lead is how far a real clock runs ahead of the server's (POST
	// /__mock/clock); a restored real clock goes on from the server's
	// time with it.
	Lead            Duration     `json:"lead,omitempty"`
	Origin          time.Time    `json:"origin"`           // where arrivals count from
	Processed       time.Time    `json:"processed"`        // the engine has run up to here
	SettingsChanged [5]time.Time `json:"settings_changed"` // when each rating's settings last changed
	// Replies is the state of the reply engine's random sequence.
	Replies string `json:"replies"`
	// Changed are the reviews of the shop's data (the scenario's, or
	// the seeded) that the engine answered or drafted, as the list
	// shows them; Arrivals the new reviews, oldest first.
	Changed  []json.RawMessage `json:"changed,omitempty"`
	Arrivals []json.RawMessage `json:"arrivals,omitempty"`
}

// Snapshot takes session sid as it is now. A session that does not
// exist is taken as a fresh one would be. Its living shops are brought up
// to their clocks first, as a list request would.
func (s *Server) Snapshot(sid string) (*Snapshot, error) {
	now := s.now()
	snap := &Snapshot{Format: SnapshotFormat, Session: sid, TakenAt: now.UTC(), ServerVersion: s.version, MediaBase: s.registry.Loader().Media().Base}
	s.sessionsMu.Lock()
	ss, ok := s.sessions[sid]
	if ok && s.expired(ss, now) {
		ok = false
	}
	s.sessionsMu.Unlock()
	if !ok {
		return snap, nil
	}
	current := s.scenarioMap()
	ss.mu.Lock()
	defer ss.mu.Unlock()
	global, own := s.faultsOf(ss)
	snap.Scenario = ss.scenario
	if ss.overrides != (Overrides{}) {
		o := ss.overrides
		snap.Overrides = &o
	}
	for _, f := range own {
		sf := SnapshotFault{Fault: *f}
		if c := ss.counters[f]; c != nil {
			sf.Matched, sf.Hit = c.Matched, c.Hit
		}
		snap.Faults = append(snap.Faults, sf)
	}
	for _, f := range global {
		if c := ss.counters[f]; c != nil && (c.Matched > 0 || c.Hit > 0) {
			snap.SharedFaultCounters = append(snap.SharedFaultCounters, SharedFaultCount{ID: f.ID, Matched: c.Matched, Hit: c.Hit})
		}
	}
	ss.seeds.mu.Lock()
	seeds := ss.seeds.m
	names := make([]string, 0, len(ss.states)+len(seeds))
	for name := range ss.states {
		names = append(names, name)
	}
	for name := range seeds {
		names = append(names, name)
	}
	ss.seeds.mu.Unlock()
	slices.Sort(names)
	for _, name := range slices.Compact(names) {
		sc := current[name]
		if sc == nil {
			continue // the scenario is gone: nothing of it can come back
		}
		rec := ScenarioSnapshot{Name: name, Fingerprint: sc.Fingerprint(), DataEnd: sc.DataEnd()}
		if sd := seedsOf(ss, name); sd != nil {
			fbs, err := sd.own.Feedbacks()
			if err != nil {
				return nil, err
			}
			rec.Seeded = &SeededSnapshot{Mode: sd.info().Mode, Reviews: rawRecords(fbs)}
		}
		if st := ss.states[name]; st != nil {
			settings := st.settings
			rec.Settings = &settings
			if st.sc == sc {
				for i := range sc.Faults() {
					if c := ss.counters[&sc.Faults()[i]]; c != nil && (c.Matched > 0 || c.Hit > 0) {
						rec.FaultCounters = append(rec.FaultCounters, ScenarioFaultCount{Index: i, Matched: c.Matched, Hit: c.Hit})
					}
				}
				if st.shop != nil {
					shop, err := ss.shopSnapshot(sc, now)
					if err != nil {
						return nil, err
					}
					rec.Shop = shop
				}
			}
		}
		snap.Scenarios = append(snap.Scenarios, rec)
	}
	return snap, nil
}

// seedsOf is what ss seeded in the scenario name; nil for nothing.
func seedsOf(ss *session, name string) *seedState {
	ss.seeds.mu.Lock()
	defer ss.seeds.mu.Unlock()
	return ss.seeds.m[name]
}

// rawRecords encodes reviews as the list shows them.
func rawRecords(fbs []Feedback) []json.RawMessage {
	out := make([]json.RawMessage, len(fbs))
	for i := range fbs {
		out[i] = reviews.AppendJSON(nil, &fbs[i])
	}
	return out
}

// shopSnapshot takes the session's living shop in sc, brought up to its
// clock. The caller holds ss.mu.
func (ss *session) shopSnapshot(sc *Scenario, now time.Time) (*ShopSnapshot, error) {
	sh, err := ss.runShop(sc, now)
	if err != nil {
		return nil, err
	}
	base, err := ss.baseLocked(sc)
	if err != nil {
		return nil, err
	}
	state, err := sh.engine.State()
	if err != nil {
		return nil, err
	}
	out := &ShopSnapshot{Clock: cmp.Or(sh.spec.Clock, "real"), Now: sh.now(now).UTC(), Origin: sh.origin.UTC(), Processed: sh.processed.UTC(),
		Replies: base64.StdEncoding.EncodeToString(state)}
	if sh.spec.Clock != "frozen" {
		out.Lead = Duration(sh.advanced)
	}
	for i, t := range sh.changedAt {
		out.SettingsChanged[i] = t.UTC()
	}
	// The arrivals are the newest: the top of the list, before the data.
	k := sh.st.Len() - base.Len()
	for i := k - 1; i >= 0; i-- {
		out.Arrivals = append(out.Arrivals, bytes.Clone(sh.st.JSON(i)))
	}
	for i := range base.Len() {
		if js := sh.st.JSON(k + i); !bytes.Equal(js, base.JSON(i)) {
			out.Changed = append(out.Changed, bytes.Clone(js))
		}
	}
	return out, nil
}

// RestoreResult is the answer of POST /__mock/snapshot.
type RestoreResult struct {
	Session string `json:"session"`
	// Dropped says what of the snapshot could not come back as it was,
	// and why (a scenario gone or changed since); empty when all did.
	Dropped []string `json:"dropped"`
}

// Bounds of what a snapshot may say: a real clock's lead (as far as a
// year of POST /__mock/clock moves at most, ten times over), and ids
// (far past any shop's, and exact in a float64).
const (
	maxLead              = 10 * 8784 * time.Hour
	maxRecordID          = 1 << 50
	maxSnapshotScenarios = 1000
)

// Restore makes session sid ("" for the snapshot's own) what snap says,
// in place of what it was: the list, counts and settings then answer as
// they did when it was taken. A problem with the document is a 400
// *APIError naming its field, and changes nothing; so does a bound passed
// (seeded reviews, run-time faults: 409). What belongs to a scenario
// that is gone, or has changed since (its fingerprint, or the present
// its data is anchored to), is left out and said in Dropped: settings
// and seeded reviews come back on a changed scenario, fault counters
// and the living shop start again.
func (s *Server) Restore(sid string, snap *Snapshot) (RestoreResult, error) {
	if sid == "" {
		sid = snap.Session
	}
	if err := snap.check(); err != nil {
		return RestoreResult{}, err
	}
	if !validID(sid) {
		return RestoreResult{}, wire.InvalidParameter("session", msgBadSessionID)
	}
	res := RestoreResult{Session: sid, Dropped: []string{}}
	drop := func(format string, args ...any) { res.Dropped = append(res.Dropped, fmt.Sprintf(format, args...)) }
	current := s.scenarioMap()
	now := s.now()
	rb := rebase{from: snap.MediaBase, to: s.registry.Loader().Media().Base}

	// Everything is built before the session is touched.
	fresh := newSession(sid, &s.shops)
	fresh.seedBudget = s.seedBudget
	if snap.Scenario != "" {
		if current[snap.Scenario] == nil {
			drop("scenario %q: no such scenario now; the session follows the server's", snap.Scenario)
		} else {
			fresh.scenario = snap.Scenario
		}
	}
	if snap.Overrides != nil {
		fresh.overrides = *snap.Overrides
		if a := fresh.overrides.Auth; a != nil && slices.Contains(a.Tokens, redacted) {
			fresh.overrides.Auth = nil
			drop("overrides.auth: its tokens were redacted when the snapshot was taken: the session's auth is the scenario's (PUT /__mock/overrides to set one)")
		}
	}
	fresh.counters = make(map[*Fault]*fault.Counter)
	var faults []*Fault // the session's run-time faults
	for i := range snap.Faults {
		f := snap.Faults[i].Fault
		f.Prepare()
		fp := &f
		faults = append(faults, fp)
		fresh.counters[fp] = &fault.Counter{Matched: snap.Faults[i].Matched, Hit: snap.Faults[i].Hit}
	}
	type shopToBe struct {
		st *scenarioState
		sh *shopState
	}
	var shops []shopToBe
	var seedBytes int64
	seedCount := 0
	for i := range snap.Scenarios {
		rec := &snap.Scenarios[i]
		path := fmt.Sprintf("scenarios[%d]", i)
		sc := current[rec.Name]
		if sc == nil {
			drop("scenario %q: no such scenario now; its state is left out", rec.Name)
			continue
		}
		same := rec.Fingerprint == sc.Fingerprint()
		if !same {
			drop("scenario %q: its file, fixtures or seed changed since the snapshot: its fault counters and living shop start again", rec.Name)
		} else if rec.DataEnd != sc.DataEnd() {
			same = false
			drop("scenario %q: its data is anchored to the present and now ends at %s, not %s: its living shop starts again", rec.Name, sc.DataEnd(), rec.DataEnd)
		}
		if rec.Seeded != nil {
			sd, err := restoreSeeds(rec.Seeded, path+".seeded", rb)
			if err != nil {
				return RestoreResult{}, err
			}
			seedBytes += sd.bytes
			seedCount += sd.own.Len()
			if fresh.seeds.m == nil {
				fresh.seeds.m = make(map[string]*seedState)
			}
			fresh.seeds.m[rec.Name] = sd
		}
		if rec.Settings == nil {
			continue
		}
		st := &scenarioState{sc: sc, settings: *rec.Settings}
		if probs := st.settings.Validate(sc.Rules()); len(probs) > 0 {
			if same {
				p := probs[0]
				return RestoreResult{}, wire.InvalidBody(joinField(path+".settings", p.Field), "%s", p.Message)
			}
			drop("scenario %q: its settings do not fit it now (%s): they start as the scenario's", rec.Name, probs[0].Message)
			st.settings = sc.Settings()
		}
		if fresh.states == nil {
			fresh.states = make(map[string]*scenarioState)
		}
		fresh.states[rec.Name] = st
		if !same {
			continue
		}
		for j, c := range rec.FaultCounters {
			if c.Index >= len(sc.Faults()) {
				return RestoreResult{}, wire.InvalidBody(fmt.Sprintf("%s.fault_counters[%d].index", path, j), "the scenario has %d faults, not %d", len(sc.Faults()), c.Index+1)
			}
			fresh.counters[&sc.Faults()[c.Index]] = &fault.Counter{Matched: c.Matched, Hit: c.Hit}
		}
		if rec.Shop != nil {
			if sc.Shop() == nil {
				return RestoreResult{}, wire.InvalidBody(path+".shop", "scenario %q has no living shop", rec.Name)
			}
			base, err := fresh.baseLocked(sc)
			if err != nil {
				return RestoreResult{}, err
			}
			sh, err := restoreShop(sc, base, rec.Shop, path+".shop", now, rb)
			if err != nil {
				return RestoreResult{}, err
			}
			st.shop = sh
			shops = append(shops, shopToBe{st, sh})
		}
	}
	if seedCount > MaxSeedReviews {
		return RestoreResult{}, &APIError{Status: http.StatusConflict, Code: CodeTooManyReviews, Field: "scenarios",
			Message: fmt.Sprintf("a session keeps at most %d seeded reviews, in all its scenarios; the snapshot has %d", MaxSeedReviews, seedCount)}
	}
	global := s.faults.Shared()
	for _, c := range snap.SharedFaultCounters {
		if i := slices.IndexFunc(global, func(f *Fault) bool { return f.ID == c.ID }); i >= 0 {
			fresh.counters[global[i]] = &fault.Counter{Matched: c.Matched, Hit: c.Hit}
		} else {
			drop("fault %s for every session: no such fault now; its counter is left out", c.ID)
		}
	}

	// In: the session it replaces goes, in one step with the new one's
	// coming, and the bounds are checked with it gone.
	s.sessionsMu.Lock()
	defer s.sessionsMu.Unlock()
	// The faults go in place of the session's own, with the bounds
	// checked first; then the seeds' bound, and the old session goes.
	err := s.faults.Restore(sid, faults, func() error {
		var oldSeeds int64
		if old, ok := s.sessions[sid]; ok {
			old.seeds.mu.Lock()
			for _, sd := range old.seeds.m {
				oldSeeds += sd.bytes
			}
			old.seeds.mu.Unlock()
		}
		if !s.seedBudget.Fits(seedBytes - oldSeeds) {
			return s.errSeedMemory(seedBytes - oldSeeds)
		}
		s.dropSessionLocked(sid)
		s.seedBudget.Charge(seedBytes)
		return nil
	})
	if err != nil {
		return RestoreResult{}, err
	}
	s.evictForLocked(now)
	fresh.lastUsed = now
	fresh.journalKey = s.journals.Open(sid)
	s.sessions[sid] = fresh
	for _, sh := range shops {
		fresh.shops.add(sh.sh, fresh, sh.st)
	}
	return res, nil
}

// joinField is path.field, or path for no field.
func joinField(path, field string) string {
	if field == "" {
		return path
	}
	return path + "." + field
}

// restoreSeeds builds what a session seeded from its snapshot.
func restoreSeeds(in *SeededSnapshot, path string, rb rebase) (*seedState, error) {
	if in.Mode != SeedReplace && in.Mode != SeedAppend {
		return nil, wire.InvalidBody(path+".mode", "must be %s or %s, got %q", SeedReplace, SeedAppend, in.Mode)
	}
	fbs, err := decodeRecords(in.Reviews, path+".reviews", rb)
	if err != nil {
		return nil, err
	}
	if len(fbs) == 0 {
		return nil, wire.InvalidBody(path+".reviews", "must hold at least one review")
	}
	own, err := reviews.NewNumbered(fbs)
	if err != nil {
		return nil, wire.InvalidBody(path+".reviews", "%v", err)
	}
	return &seedState{replace: in.Mode == SeedReplace, own: own, bytes: own.Bytes() + seedOverhead}, nil
}

// decodeRecords reads reviews as the list shows them, each checked.
func decodeRecords(raws []json.RawMessage, path string, rb rebase) ([]Feedback, error) {
	fbs := make([]Feedback, len(raws))
	for i, raw := range raws {
		p := fmt.Sprintf("%s[%d]", path, i)
		if err := wire.DecodeStrict(raw, &fbs[i]); err != nil {
			return nil, prefixField(namedUnknown(err), p)
		}
		f := &fbs[i]
		switch {
		case f.ID <= 0 || f.ID > maxRecordID:
			return nil, wire.InvalidBody(p+".id", "must be an integer from 1 to %d, got %d", int64(maxRecordID), f.ID)
		case f.ProductValuation < 1 || f.ProductValuation > 5:
			return nil, wire.InvalidBody(p+".product_valuation", "must be 1 to 5, got %d", f.ProductValuation)
		}
		if _, err := reviews.MetaOf(f); err != nil {
			return nil, wire.InvalidBody(p+".created_date", "must be a time such as %s", reviews.TimestampLayout)
		}
		rb.apply(f)
		if problem := mediaProblem(f); problem != "" {
			return nil, wire.InvalidBody(p+"."+problem, "not as the list writes it")
		}
	}
	return fbs, nil
}

// mediaProblem names the field of f that is not as the list writes it:
// valuation_tags and photos JSON text of their lists, video an object or
// null.
func mediaProblem(f *Feedback) string {
	var tags []string
	if f.ValuationTags != "" && json.Unmarshal([]byte(f.ValuationTags), &tags) != nil {
		return "valuation_tags"
	}
	var photos []Photo
	if f.Photos != "" && json.Unmarshal([]byte(f.Photos), &photos) != nil {
		return "photos"
	}
	if v := bytes.TrimSpace(f.Video); len(v) > 0 && string(v) != "null" {
		var video Video
		if v[0] != '{' || json.Unmarshal(v, &video) != nil {
			return "video"
		}
	}
	return ""
}

// rebase moves the media URLs of restored reviews from the server that
// took the snapshot to this one.
type rebase struct{ from, to string }

func (rb rebase) apply(f *Feedback) { media.Rebase(f, rb.from, rb.to) }

// namedUnknown names the field of an "unknown field" error.
func namedUnknown(err error) error {
	ae, ok := err.(*APIError)
	if !ok || ae.Field != "" {
		return err
	}
	if name, ok := strings.CutPrefix(ae.Message, `json: unknown field "`); ok {
		c := *ae
		c.Field = strings.TrimSuffix(name, `"`)
		c.Message = "unknown field"
		return &c
	}
	return err
}

// prefixField puts path before the field an *APIError names.
func prefixField(err error, path string) error {
	if ae, ok := err.(*APIError); ok {
		c := *ae
		c.Field = joinField(path, ae.Field)
		return &c
	}
	return err
}

// restoreShop builds a session's living shop in sc, on base, from in.
func restoreShop(sc *Scenario, base *reviews.Stack, in *ShopSnapshot, path string, now time.Time, rb rebase) (*shopState, error) {
	sh, err := newShopState(sc, base, now)
	if err != nil {
		return nil, err
	}
	if in.Clock != cmp.Or(sh.spec.Clock, "real") {
		return nil, wire.InvalidBody(path+".clock", "the scenario's shop has a %s clock, not %q", cmp.Or(sh.spec.Clock, "real"), in.Clock)
	}
	state, err := base64.StdEncoding.DecodeString(in.Replies)
	if err == nil {
		err = sh.engine.SetState(state)
	}
	if err != nil {
		return nil, wire.InvalidBody(path+".replies", "not the state of a reply engine: %v", err)
	}
	for _, tf := range []struct {
		name string
		t    time.Time
	}{{"origin", in.Origin}, {"processed", in.Processed}, {"now", in.Now}} {
		if tf.t.Year() < 2000 || tf.t.Year() > maxClockYear {
			return nil, wire.InvalidBody(path+"."+tf.name, "must be a time from 2000 to the end of %d, got %s", maxClockYear, tf.t.Format(time.RFC3339))
		}
	}
	if in.Processed.Before(in.Origin) || in.Now.Before(in.Processed) {
		return nil, wire.InvalidBody(path+".processed", "must lie between origin and now")
	}
	if in.Lead < 0 || in.Lead.D() > maxLead {
		return nil, wire.InvalidBody(path+".lead", "must be from 0 to %s, got %s", Duration(maxLead), in.Lead)
	}
	arrivals, err := decodeRecords(in.Arrivals, path+".arrivals", rb)
	if err != nil {
		return nil, err
	}
	if len(arrivals) > MaxShopReviews {
		return nil, wire.InvalidBody(path+".arrivals", "at most %d, got %d", MaxShopReviews, len(arrivals))
	}
	if pos, ok := base.Newest(); ok {
		newest := time.Unix(base.Meta(pos).Created, 0)
		if in.Origin.Before(newest) {
			return nil, wire.InvalidBody(path+".origin", "must not be before the shop's newest review (%s)", newest.UTC().Format(reviews.TimestampLayout))
		}
		for i := range arrivals {
			if m, _ := reviews.MetaOf(&arrivals[i]); time.Unix(m.Created, 0).Before(newest) {
				return nil, wire.InvalidBody(fmt.Sprintf("%s.arrivals[%d].created_date", path, i), "must not be before the shop's newest review (%s)", newest.UTC().Format(reviews.TimestampLayout))
			}
		}
	}
	sh.origin, sh.processed = in.Origin, in.Processed
	for i, t := range in.SettingsChanged {
		sh.changedAt[i] = t
	}
	// The generator goes on where it stood: it writes the arrivals again,
	// at their times, and they are let go.
	if g := sc.Generate(); g != nil && sh.engine.Bank() != nil && sh.spec.ArrivalsPerHour > 0 {
		for ; sh.arrived < len(arrivals); sh.arrived++ {
			sh.arrival(g, sh.arrivalTime(sh.arrived))
		}
	} else if len(arrivals) > 0 {
		return nil, wire.InvalidBody(path+".arrivals", "the scenario's shop has no arrivals")
	}
	if sh.spec.Clock == "frozen" {
		sh.frozen = in.Now
	} else {
		sh.advanced = in.Lead.D()
		// A shop that stood still for long (a server down for days) goes
		// on from maxShopGap before now, as a new one would: the stretch
		// before that stays empty rather than fill with a burst.
		if from := now.Add(sh.advanced - maxShopGap); from.After(sh.processed) {
			skip := from.Sub(sh.processed)
			sh.origin, sh.processed = sh.origin.Add(skip), from
		}
	}
	changed, err := decodeRecords(in.Changed, path+".changed", rb)
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
	if sh.st, err = base.With(changes, arrivals); err != nil {
		return nil, wire.InvalidBody(path, "%v", err)
	}
	for i, id := range wantIDs {
		if arrivals[i].ID != id {
			return nil, wire.InvalidBody(fmt.Sprintf("%s.arrivals[%d].id", path, i), "must be %d: arrivals follow the data's ids, oldest first", arrivals[i].ID)
		}
	}
	return sh, nil
}

// positionsOf finds each changed review in base by its id.
func positionsOf(base *reviews.Stack, changed []Feedback, path string) ([]reviews.Change, error) {
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
	sort.Slice(changes, func(a, b int) bool { return changes[a].Pos < changes[b].Pos })
	return changes, nil
}

// check looks the document over before anything is built of it.
func (snap *Snapshot) check() error {
	if snap.Format != SnapshotFormat {
		return wire.InvalidBody("format", "must be %q (a snapshot of GET /__mock/snapshot), got %q", SnapshotFormat, clip(snap.Format))
	}
	if !validID(snap.Session) {
		return wire.InvalidBody("session", "%s", msgBadSessionID)
	}
	if snap.Overrides != nil {
		if err := snap.Overrides.Validate(); err != nil {
			return prefixField(err, "overrides")
		}
		if n := snap.Overrides.Size(); n > MaxSessionOverrideBytes {
			return wire.InvalidBody("overrides.auth.tokens", "a session's overrides keep at most %d KiB of tokens, and these take %d bytes", MaxSessionOverrideBytes>>10, n)
		}
	}
	if snap.MediaBase != "" {
		if _, err := ParsePublicURL(snap.MediaBase); err != nil {
			return wire.InvalidBody("media_base", "%v", err)
		}
	}
	if len(snap.Faults) > MaxRuntimeFaults {
		return wire.InvalidBody("faults", "at most %d, got %d", MaxRuntimeFaults, len(snap.Faults))
	}
	for i := range snap.Faults {
		f := &snap.Faults[i]
		if probs := f.Fault.Validate(); len(probs) > 0 {
			return wire.InvalidBody(fmt.Sprintf("faults[%d].%s", i, probs[0].Field), "%s", probs[0].Msg)
		}
		if f.Matched < 0 || f.Hit < 0 || f.Hit > f.Matched {
			return wire.InvalidBody(fmt.Sprintf("faults[%d].hit", i), "counters must be 0 <= hit <= matched")
		}
	}
	if len(snap.Scenarios) > maxSnapshotScenarios {
		return wire.InvalidBody("scenarios", "at most %d, got %d", maxSnapshotScenarios, len(snap.Scenarios))
	}
	if len(snap.SharedFaultCounters) > MaxRuntimeFaults {
		return wire.InvalidBody("shared_fault_counters", "at most %d, got %d", MaxRuntimeFaults, len(snap.SharedFaultCounters))
	}
	seen := make(map[string]bool)
	for i, rec := range snap.Scenarios {
		path := fmt.Sprintf("scenarios[%d]", i)
		if rec.Name == "" || seen[rec.Name] {
			return wire.InvalidBody(path+".name", "must name a scenario, each once")
		}
		seen[rec.Name] = true
		if len(rec.FaultCounters) > MaxFaults {
			return wire.InvalidBody(path+".fault_counters", "at most %d, got %d", MaxFaults, len(rec.FaultCounters))
		}
		for j, c := range rec.FaultCounters {
			if c.Index < 0 || c.Matched < 0 || c.Hit < 0 || c.Hit > c.Matched {
				return wire.InvalidBody(fmt.Sprintf("%s.fault_counters[%d]", path, j), "index must be >= 0 and counters 0 <= hit <= matched")
			}
		}
		// Counted before anything is decoded of them.
		if sd := rec.Seeded; sd != nil && len(sd.Reviews) > MaxSeedReviews {
			return wire.InvalidBody(path+".seeded.reviews", "at most %d, got %d", MaxSeedReviews, len(sd.Reviews))
		}
		if sh := rec.Shop; sh != nil {
			if len(sh.Arrivals) > MaxShopReviews {
				return wire.InvalidBody(path+".shop.arrivals", "at most %d, got %d", MaxShopReviews, len(sh.Arrivals))
			}
			if len(sh.Changed) > MaxShopReviews {
				return wire.InvalidBody(path+".shop.changed", "at most %d, got %d", MaxShopReviews, len(sh.Changed))
			}
		}
	}
	return nil
}

// DecodeSnapshot reads a snapshot document, JSON or YAML, strictly: an
// unknown field is an error naming it.
func DecodeSnapshot(data []byte) (*Snapshot, error) { return decodeSnapshot(data, true) }

// decodeSnapshot is DecodeSnapshot, of YAML too when allowYAML is set.
func decodeSnapshot(data []byte, allowYAML bool) (*Snapshot, error) {
	data = bytes.TrimSpace(data)
	if allowYAML && len(data) > 0 && data[0] != '{' {
		js, err := yamlToJSON(data)
		if err != nil {
			return nil, err
		}
		data = js
	}
	var snap Snapshot
	if err := wire.DecodeStrict(data, &snap); err != nil {
		return nil, namedUnknown(err)
	}
	return &snap, snap.check()
}

// MarshalSnapshot writes snap as JSON, or as YAML (block style, the
// reviews among it as readable as the rest).
func MarshalSnapshot(snap *Snapshot, asYAML bool) ([]byte, error) {
	js, err := json.Marshal(snap)
	if err != nil || !asYAML {
		return js, err
	}
	var n yaml.Node
	if err := yaml.Unmarshal(js, &n); err != nil {
		return nil, err
	}
	blockStyle(&n)
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&n); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

// blockStyle drops the flow style and quotes JSON gave every node: the
// encoder quotes what needs it.
func blockStyle(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		blockStyle(c)
	}
}

// scenarioMap is the scenarios served now, by name.
func (s *Server) scenarioMap() map[string]*Scenario { return s.registry.All() }

// handleSnapshotGet serves GET /__mock/snapshot: a session's snapshot,
// the document itself (not in the envelope), YAML unless the Accept
// header asks for JSON first or format=json says so.
func (s *Server) handleSnapshotGet(w http.ResponseWriter, r *http.Request) {
	asYAML, sid, err := snapshotQuery(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	select {
	case s.snapshotTakers <- struct{}{}:
		defer func() { <-s.snapshotTakers }()
	case <-r.Context().Done():
		return
	}
	snap, err := s.Snapshot(sid)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	snap.redactTokens()
	body, err := MarshalSnapshot(snap, asYAML)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	ctype, ext := wire.ContentTypeJSON, "json"
	if asYAML {
		ctype, ext = wire.ContentTypeYAML, "yaml"
	}
	h := w.Header()
	h.Set("Content-Type", ctype)
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Content-Disposition", fmt.Sprintf(`inline; filename="replymock-%s.%s"`, sid, ext))
	h.Set("Cache-Control", "no-store")
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// redactTokens hides the bearer tokens of the session's auth override:
// a snapshot is made to be handed on, and secrets never come back out of
// the server. Restored, such an override is left out (see Restore);
// --state-dir, which keeps them, writes its files itself.
func (snap *Snapshot) redactTokens() {
	if o := snap.Overrides; o != nil && o.Auth != nil && len(o.Auth.Tokens) > 0 {
		c, a := *o, *o.Auth
		a.Tokens = []string{redacted}
		c.Auth = &a
		snap.Overrides = &c
	}
}

// snapshotQuery reads GET /__mock/snapshot's query: the session (one,
// not *) and the format: format=json|yaml, else the first JSON or YAML
// type in Accept, else YAML.
func snapshotQuery(r *http.Request) (asYAML bool, sid string, err error) {
	q, err := wire.ReadQuery(r.URL.RawQuery, &wire.Params{Names: []string{"session", "format"}})
	if err == nil {
		sid, err = sessionParam(q, r, DefaultSession)
	}
	if err == nil && sid == AllSessions {
		err = wire.InvalidParameter("session", "must name one session, not *")
	}
	if err != nil {
		return false, "", err
	}
	switch f, given, err := q.Get("format"); {
	case err != nil:
		return false, "", err
	case !given:
	case f == "json":
		return false, sid, nil
	case f == "yaml":
		return true, sid, nil
	default:
		return false, "", wire.InvalidParameter("format", "must be json or yaml, got %q", wire.Clip(f))
	}
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		switch strings.ToLower(strings.TrimSpace(mt)) {
		case "application/json":
			return false, sid, nil
		case "application/yaml", "application/x-yaml", "text/yaml":
			return true, sid, nil
		}
	}
	return true, sid, nil
}

// handleSnapshotPost serves POST /__mock/snapshot: a snapshot (JSON or
// YAML, by Content-Type) restored into session (default: the
// snapshot's own).
func (s *Server) handleSnapshotPost(r *http.Request) (int, any, error) {
	q, err := wire.ReadQuery(r.URL.RawQuery, &wire.Params{Names: []string{"session"}})
	if err != nil {
		return 0, nil, err
	}
	sid, err := sessionParam(q, r, "")
	if err != nil {
		return 0, nil, err
	}
	if sid == AllSessions {
		return 0, nil, wire.InvalidParameter("session", "must name one session, not *")
	}
	s.restoreMu.Lock()
	defer s.restoreMu.Unlock()
	body, err := readDocument(r, MaxSnapshotBytes, MaxSnapshotYAMLBytes, fmt.Sprintf("a snapshot of %d MiB at most", MaxSnapshotBytes>>20),
		fmt.Sprintf("a YAML snapshot of %d MiB at most; send a bigger one as JSON, as GET /__mock/snapshot?format=json writes it", MaxSnapshotYAMLBytes>>20))
	if err != nil {
		return 0, nil, err
	}
	snap, err := decodeSnapshot(body, false)
	if err != nil {
		return 0, nil, err
	}
	res, err := s.Restore(sid, snap)
	if err != nil {
		return 0, nil, err
	}
	if len(res.Dropped) > 0 {
		s.log.Warn("snapshot restored in part", "session", res.Session, "dropped", strings.Join(res.Dropped, "; "))
	}
	return http.StatusOK, res, nil
}

// IsSnapshot reports whether data is a snapshot document (its format
// key names one), rather than a scenario or fixture.
func IsSnapshot(data []byte) bool {
	var head struct {
		Format string `yaml:"format"`
	}
	yaml.Unmarshal(data, &head) // JSON is YAML; a broken file is no snapshot
	return strings.HasPrefix(head.Format, "replymock-snapshot/")
}

// ValidateSnapshot checks a snapshot file as POST /__mock/snapshot would
// restore it into a server of opts (its scenarios): a problem is an
// error naming the file and the field; notes say what would not come
// back as it was (a scenario gone or changed since).
func ValidateSnapshot(opts Options, path string, data []byte) (notes []string, err error) {
	if len(data) > MaxSnapshotBytes {
		return nil, &Problem{File: path, Message: fmt.Sprintf("larger than a snapshot may be (%d MiB)", MaxSnapshotBytes>>20)}
	}
	snap, err := DecodeSnapshot(data)
	if err == nil {
		var s *Server
		if s, err = New(opts); err != nil {
			return nil, err
		}
		var res RestoreResult
		res, err = s.Restore("", snap)
		notes = res.Dropped
	}
	if ae, ok := err.(*APIError); ok {
		return nil, &Problem{File: path, Field: ae.Field, Message: ae.Message}
	}
	return notes, err
}
