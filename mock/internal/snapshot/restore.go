package snapshot

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/replymock/replymock/mock/internal/fault"
	"github.com/replymock/replymock/mock/internal/fixture"
	"github.com/replymock/replymock/mock/internal/journal"
	"github.com/replymock/replymock/mock/internal/media"
	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/scenario"
	"github.com/replymock/replymock/mock/internal/session"
	"github.com/replymock/replymock/mock/internal/shared"
	"github.com/replymock/replymock/mock/internal/shop"
	"github.com/replymock/replymock/mock/internal/wire"
)

// Result is the answer of POST /__mock/snapshot.
type Result struct {
	Session string `json:"session"`
	// Dropped says what of the snapshot could not come back as it was,
	// and why (a scenario gone or changed since); empty when all did.
	Dropped []string `json:"dropped"`
	// Copy is the Key of the session's copy the restore installed.
	Copy journal.Key `json:"-"`
}

// Restore makes session sid ("" for the snapshot's own) what snap says.
// A problem with the document is a *wire.APIError naming its field, and
// changes nothing. What belongs to a scenario that is gone or changed is
// left out and said in Result.Dropped.
func (k *Keeper) Restore(sid string, snap *Snapshot) (Result, error) {
	if sid == "" {
		sid = snap.Session
	}
	if err := snap.check(); err != nil {
		return Result{}, err
	}
	if !session.ValidID(sid) {
		return Result{}, wire.InvalidParameter("session", session.MsgBadID)
	}
	// Everything is built before the session is touched.
	rs := &restoring{res: Result{Session: sid, Dropped: []string{}}, current: k.st.Registry().All(), now: k.now(),
		rb: rebase{from: snap.MediaBase, to: k.mediaBase()}, fresh: k.st.Sessions().New(sid)}
	rs.session(snap)
	for i := range snap.Scenarios {
		if err := rs.scenario(fmt.Sprintf("scenarios[%d]", i), &snap.Scenarios[i]); err != nil {
			return Result{}, err
		}
	}
	if err := shared.CheckSeedCount(rs.seedCount, "scenarios", "the snapshot has"); err != nil {
		return Result{}, err
	}
	global := k.st.FaultRegistry().Shared()
	for _, c := range snap.SharedFaultCounters {
		if i := slices.IndexFunc(global, func(f *fault.Fault) bool { return f.ID == c.ID }); i >= 0 {
			rs.fresh.SetCounter(global[i], fault.Counter{Matched: c.Matched, Hit: c.Hit})
		} else {
			rs.drop("fault %s for every session: no such fault now; its counter is left out", c.ID)
		}
	}
	if err := k.st.Install(sid, rs.fresh, rs.faults, rs.seedBytes); err != nil {
		return Result{}, err
	}
	rs.res.Copy = rs.fresh.Key()
	return rs.res, nil
}

// restoring is a session being built from a snapshot.
type restoring struct {
	res       Result
	current   map[string]*scenario.Scenario // the scenarios served now
	now       time.Time
	rb        rebase
	fresh     *session.Session
	faults    []*fault.Fault // the session's run-time faults
	seedBytes int64
	seedCount int
}

func (rs *restoring) drop(format string, args ...any) {
	rs.res.Dropped = append(rs.res.Dropped, fmt.Sprintf(format, args...))
}

// session restores what belongs to the session whatever its scenario:
// its pick, its overrides, its run-time faults and their counters.
func (rs *restoring) session(snap *Snapshot) {
	fresh := rs.fresh
	if snap.Scenario != "" {
		if rs.current[snap.Scenario] == nil {
			rs.drop("scenario %q: no such scenario now; the session follows the server's", snap.Scenario)
		} else {
			fresh.SetPick(snap.Scenario)
		}
	}
	if snap.Overrides != nil {
		o := *snap.Overrides
		if a := o.Auth; a != nil && slices.Contains(a.Tokens, wire.Redacted) {
			o.Auth = nil
			rs.drop("overrides.auth: its tokens were redacted when the snapshot was taken: the session's auth is the scenario's (PUT /__mock/overrides to set one)")
		}
		fresh.SetOverrides(o)
	}
	for i := range snap.Faults {
		f := snap.Faults[i].Fault
		f.Prepare()
		rs.faults = append(rs.faults, &f)
		fresh.SetCounter(&f, fault.Counter{Matched: snap.Faults[i].Matched, Hit: snap.Faults[i].Hit})
	}
}

// scenario restores the session's state in one scenario, at path in the
// document: its seeded reviews and settings, and, on the same version of
// the scenario, its fault counters and living shop.
func (rs *restoring) scenario(path string, rec *ScenarioState) error {
	sc := rs.current[rec.Name]
	if sc == nil {
		rs.drop("scenario %q: no such scenario now; its state is left out", rec.Name)
		return nil
	}
	same := rec.Fingerprint == sc.Fingerprint()
	if !same {
		rs.drop("scenario %q: its file, fixtures or seed changed since the snapshot: its fault counters and living shop start again", rec.Name)
	} else if rec.DataEnd != sc.DataEnd() {
		same = false
		rs.drop("scenario %q: its data is anchored to the present and now ends at %s, not %s: its living shop starts again", rec.Name, sc.DataEnd(), rec.DataEnd)
	}
	fresh := rs.fresh
	if rec.Seeded != nil {
		sd, err := restoreSeeds(rec.Seeded, path+".seeded", rs.rb)
		if err != nil {
			return err
		}
		rs.seedBytes += sd.Bytes()
		rs.seedCount += sd.Reviews().Len()
		fresh.PutSeed(rec.Name, sd)
	}
	if rec.Settings == nil {
		return nil
	}
	set := *rec.Settings
	if probs := set.Validate(sc.Rules()); len(probs) > 0 {
		if same {
			return wire.At(probs[0], path+".settings")
		}
		rs.drop("scenario %q: its settings do not fit it now (%s): they start as the scenario's", rec.Name, probs[0].Message)
		set = sc.Settings()
	}
	fresh.PutSettings(sc, set)
	if w := rec.LastWrite; w != nil {
		switch probs := w.Before.Validate(sc.Rules()); {
		case w.Stale < 0:
			return wire.InvalidBody(path+".last_write.stale_reads", "must be >= 0, got %d", w.Stale)
		case len(probs) > 0 && same:
			return wire.At(probs[0], path+".last_write.before")
		case len(probs) == 0:
			fresh.PutWrite(sc, w)
		}
	}
	if !same {
		return nil
	}
	for j, c := range rec.FaultCounters {
		if c.Index >= len(sc.Faults()) {
			return wire.InvalidBody(fmt.Sprintf("%s.fault_counters[%d].index", path, j), "the scenario has %d faults, not %d", len(sc.Faults()), c.Index+1)
		}
		fresh.SetCounter(&sc.Faults()[c.Index], fault.Counter{Matched: c.Matched, Hit: c.Hit})
	}
	if rec.Shop == nil {
		return nil
	}
	if sc.Shop() == nil {
		return wire.InvalidBody(path+".shop", "scenario %q has no living shop", rec.Name)
	}
	base, err := fresh.Base(sc)
	if err != nil {
		return err
	}
	sh, err := shop.Restore(sc, base, rec.Shop, path+".shop", rs.now, rs.rb.decode)
	if err != nil {
		return err
	}
	fresh.PutShop(sh)
	return nil
}

// restoreSeeds builds a session's seed from its snapshot.
func restoreSeeds(in *Seeded, path string, rb rebase) (*session.Seed, error) {
	if in.Mode != fixture.SeedReplace && in.Mode != fixture.SeedAppend {
		return nil, wire.InvalidBody(path+".mode", "must be %s or %s, got %q", fixture.SeedReplace, fixture.SeedAppend, in.Mode)
	}
	fbs, err := rb.decode(in.Reviews, path+".reviews")
	if err != nil {
		return nil, err
	}
	// None is a seed too, as PUT /__mock/data takes an empty list.
	own, err := reviews.NewNumbered(fbs)
	if err != nil {
		return nil, wire.InvalidBody(path+".reviews", "%v", err)
	}
	return session.NewSeed(in.Mode == fixture.SeedReplace, own), nil
}

// rebase moves the media URLs of restored reviews from the server that
// took the snapshot to this one.
type rebase struct{ from, to string }

// decode reads reviews as the list shows them, each checked, their media
// URLs moved to this server.
func (rb rebase) decode(raws []json.RawMessage, path string) ([]reviews.Feedback, error) {
	fbs := make([]reviews.Feedback, len(raws))
	for i, raw := range raws {
		p := fmt.Sprintf("%s[%d]", path, i)
		if err := wire.DecodeStrict(raw, &fbs[i]); err != nil {
			return nil, wire.At(err, p)
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
		media.Rebase(f, rb.from, rb.to)
		if problem := mediaProblem(f); problem != "" {
			return nil, wire.InvalidBody(p+"."+problem, "not as the list writes it")
		}
	}
	return fbs, nil
}

// mediaProblem names the field of f that is not as the list writes it:
// valuation_tags and photos JSON text of their lists, video an object or
// null.
func mediaProblem(f *reviews.Feedback) string {
	var tags []string
	if f.ValuationTags != "" && json.Unmarshal([]byte(f.ValuationTags), &tags) != nil {
		return "valuation_tags"
	}
	var photos []media.Photo
	if f.Photos != "" && json.Unmarshal([]byte(f.Photos), &photos) != nil {
		return "photos"
	}
	if v := bytes.TrimSpace(f.Video); len(v) > 0 && string(v) != "null" {
		var video media.Video
		if v[0] != '{' || json.Unmarshal(v, &video) != nil {
			return "video"
		}
	}
	return ""
}
