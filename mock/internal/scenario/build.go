package scenario

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/replymock/replymock/mock/internal/fixture"
	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/settings"
	"github.com/replymock/replymock/mock/internal/wire"
	"github.com/replymock/replymock/mock/internal/yamlfile"
)

// build decodes, validates and assembles one scenario file, named
// display in messages. It goes on past fields that did not decode and a
// broken parent, to report every problem at once.
func (p *pass) build(name, display string, data []byte, chain []string) (*Scenario, error) {
	var sf File
	yf := yamlfile.Decode(display, data, &sf)
	if !yf.Checkable() {
		return nil, yf.Err()
	}
	var parentErr error
	orphan := yf.HasProblem("extends")
	if sf.Extends != "" && !orphan {
		parent, err := p.parent(yf, sf.Extends, append(chain, name))
		if parent != nil {
			sf = merged(parent.file, sf, yf)
		} else {
			orphan, parentErr = true, err
		}
	}
	if orphan {
		// Without the parent, only the keys the file gives are checked.
		yf.Keep = func(field string) bool {
			key, _, _ := strings.Cut(field, ".")
			key, _, _ = strings.Cut(key, "[")
			return key == "extends" || yf.Has(key)
		}
	}
	sf.validate(yf)
	// As written, before an end anchored to now is resolved: a reload
	// that changes nothing else keeps the version serving, and its data.
	written := sf
	written.applyDefaults(time.Time{})
	loaded := p.l.anchor
	if loaded.IsZero() {
		loaded = p.l.now()
	}
	sf.applyDefaults(loaded)
	sc := &Scenario{loaded: loaded, Name: name, Description: sf.Description, Descriptions: sf.Descriptions, Extends: sf.Extends, Seed: sf.Seed, Locale: sf.Data.Locale,
		file: sf, rules: settings.Rules{Tones: sf.Tones},
		// Its own copy: a fault's counters are keyed by its address, and a
		// scenario that extends another must not share the other's.
		faults: slices.Clone(sf.Faults), media: p.l.media}
	for i := range sc.faults {
		sc.faults[i].Prepare()
	}
	if p.l.seed != 0 {
		sc.Seed = p.l.seed
	}
	fixtures := p.l.readFixtures(sc, yf)
	if err := yf.Err(); err != nil || parentErr != nil {
		return nil, errors.Join(err, parentErr)
	}
	key := hashOf(sf.Data, sc.Seed, sc.history, sc.HistoryDelay(), fixtures)
	sc.data = p.l.cache.source(key, sc.dataBuilder(display, fixtures))
	// The fingerprint leaves out where the server is reached (the media
	// URLs' base): a snapshot names the same version on a server
	// restarted on another port or behind another address.
	writtenKey := hashOf(written.Data, sc.Seed, sc.history, sc.HistoryDelay(), unbased(fixtures, p.l.media.Base))
	sc.fingerprint = hashOf(written, sc.Seed, writtenKey)
	return sc, nil
}

// parent loads the scenario name that yf extends. A problem finding it
// is placed at the extends line; a parent with problems is named there,
// and its problems returned.
func (p *pass) parent(yf *yamlfile.File, name string, chain []string) (*Scenario, error) {
	switch {
	case !scenarioNameRE.MatchString(name):
		yf.Problemf("extends", "must be a scenario name (lower-case letters, digits, '-' and '_'), got %q", name)
		return nil, nil
	case slices.Contains(chain, name):
		yf.Problemf("extends", "extends loop: %s -> %s", strings.Join(chain, " -> "), name)
		return nil, nil
	}
	parent, err := p.load(name, chain)
	var nf *notFoundError
	switch {
	case errors.As(err, &nf):
		yf.Problemf("extends", "%v", nf)
		return nil, nil
	case err != nil:
		yf.Problemf("extends", "scenario %q has problems (in %s)", name, p.display(name))
		return nil, err
	}
	return parent, nil
}

// readFixtures loads the settings and phrase bank sc's file names into
// sc, and returns its fixtures' reviews. A missing fixture is placed at
// its reference in yf; a broken one is reported in its own file.
func (l *Loader) readFixtures(sc *Scenario, yf *yamlfile.File) []reviews.Feedback {
	follow := func(field string) bool {
		return !yf.HasProblem(field) && (yf.Keep == nil || yf.Keep(field))
	}
	problem := func(path string, err error) {
		var nr *notRegularError
		switch {
		case errors.Is(err, fs.ErrNotExist):
			yf.Problemf(path, "no such file in %s", whereAll(l.fixtures))
		case errors.As(err, &nr):
			yf.Problemf(path, "%v", err)
		default:
			yf.Add(err)
		}
	}
	sf := &sc.file
	var err error
	if follow("settings") && !yf.HasProblem("tones") {
		if sc.settings, err = l.loadSettings(sf.Settings, sc.rules); err != nil {
			problem("settings", err)
		}
	}
	sc.history = sc.settings
	if g := sf.Data.Generate; g != nil && g.HistorySettings != "" && follow("data.generate.history_settings") {
		if sc.history, err = l.loadSettings(g.HistorySettings, settings.Rules{}); err != nil {
			problem("data.generate.history_settings", err)
		}
	}
	var fixtures []reviews.Feedback
	seen := make(map[string]string)
	for i, fx := range sf.Data.Fixtures {
		if !follow(fmt.Sprintf("data.fixtures[%d]", i)) {
			continue
		}
		recs, err := loadFixture(l, "reviews", fx, func(display string, data []byte) ([]reviews.Feedback, error) {
			return fixture.DecodeReviews(display, data, l.media)
		})
		if err != nil {
			problem(fmt.Sprintf("data.fixtures[%d]", i), err)
		}
		for _, r := range recs {
			if prev, dup := seen[r.FeedbackID]; dup && prev != fx {
				yf.Problemf(fmt.Sprintf("data.fixtures[%d]", i), "feedback_id %q is also in %s", wire.Clip(r.FeedbackID), prev)
			}
			seen[r.FeedbackID] = fx
		}
		fixtures = append(fixtures, recs...)
	}
	if (sf.Data.Generate != nil || sf.Shop != nil) && follow("data.locale") { // a living shop writes replies too
		if sc.bank, err = l.LoadPhrases(sf.Data.Locale); err != nil {
			problem("data.locale", err)
		}
	}
	return fixtures
}
