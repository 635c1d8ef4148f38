package admin

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/replymock/replymock/mock/internal/fixture"
	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/session"
	"github.com/replymock/replymock/mock/internal/shared"
	"github.com/replymock/replymock/mock/internal/wire"
)

// handleSettingsView serves GET /__mock/settings, without faults or auth.
func (a *Admin) handleSettingsView(r *http.Request) (int, any, error) {
	sid, err := oneSession(r)
	if err != nil {
		return 0, nil, err
	}
	ss, sc, err := a.State.Peek(sid, "")
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"session": sid, "scenario": sc.Name, "settings": ss.Settings(sc)}, nil
}

// DataSummary is the data of GET /__mock/data: a session's reviews by
// rating, and the newest few.
type DataSummary struct {
	Scenario   string            `json:"scenario"`
	Total      int               `json:"total"`
	Answered   int               `json:"answered"`
	Unanswered int               `json:"unanswered"`
	ByRating   [5]RatingCounts   `json:"by_rating"`
	Newest     []json.RawMessage `json:"newest"`
	Seeded     *shared.SeedInfo  `json:"seeded"` // null: the scenario's own data
}

// RatingCounts counts the reviews of one rating.
type RatingCounts struct {
	Rating     int `json:"rating"`
	Answered   int `json:"answered"`
	Unanswered int `json:"unanswered"`
}

// handleData serves GET /__mock/data.
func (a *Admin) handleData(r *http.Request) (int, any, error) {
	sid, err := oneSession(r)
	if err != nil {
		return 0, nil, err
	}
	name, field := requestScenario(r)
	ss, sc, err := a.State.Peek(sid, name)
	if err != nil {
		return 0, nil, namedBy(err, field)
	}
	st, err := ss.Reviews(sc, a.Now()) // a living shop's, as the list shows it
	if err != nil {
		return 0, nil, err
	}
	all := reviews.All()
	all.Limit = 5
	res := st.Find(all)
	d := DataSummary{Scenario: sc.Name, Total: res.Total, Answered: res.Answered, Unanswered: res.Unanswered, Newest: []json.RawMessage{},
		Seeded: shared.SeedInfoOf(ss, sc)}
	for i := range d.ByRating {
		q := all
		q.Rating, q.CountsOnly = int8(i+1), true
		rr := st.Find(q)
		d.ByRating[i] = RatingCounts{Rating: i + 1, Answered: rr.Answered, Unanswered: rr.Unanswered}
	}
	for _, i := range res.Page {
		d.Newest = append(d.Newest, st.JSON(i))
	}
	return http.StatusOK, d, nil
}

// MaxSeedBodyBytes is the largest body PUT /__mock/data accepts (413
// above it): room for fixture.MaxSeedReviews reviews of a usual size.
const MaxSeedBodyBytes = 8 << 20

var seedBody = &wire.Body{Limit: MaxSeedBodyBytes, YAMLLimit: MaxSeedBodyBytes, YAMLNodes: fixture.MaxSeedYAMLNodes,
	Bound:     fmt.Sprintf("%d reviews at most, %d MiB", fixture.MaxSeedReviews, MaxSeedBodyBytes>>20),
	YAMLBound: fmt.Sprintf("%d reviews at most, %d MiB, %d YAML values; send a bigger one as JSON", fixture.MaxSeedReviews, MaxSeedBodyBytes>>20, fixture.MaxSeedYAMLNodes),
	Shape:     fixture.SeedShape}

// handleDataPut serves PUT /__mock/data: reviews seeded for one session
// (see shared.SeedReviews), in JSON or YAML.
func (a *Admin) handleDataPut(r *http.Request) (int, any, error) {
	sid, err := scope(r, session.Default)
	if err != nil {
		return 0, nil, err
	}
	if sid == session.All {
		return 0, nil, shared.ErrSeedAllSessions
	}
	done, err := a.bodyTurn(r, seedBody)
	if err != nil {
		return 0, nil, err
	}
	defer done()
	body, err := wire.ReadDocument(r, seedBody)
	if err != nil {
		return 0, nil, err
	}
	mode, recs, err := fixture.DecodeSeedBody(body)
	if err != nil {
		return 0, nil, err
	}
	name, field := requestScenario(r)
	res, err := a.State.SeedReviews(sid, name, mode, recs)
	if err != nil {
		return 0, nil, namedBy(err, field)
	}
	return http.StatusOK, res, nil
}

// handleDataDelete serves DELETE /__mock/data: a session, or every
// one, back to its scenario's data.
func (a *Admin) handleDataDelete(r *http.Request) (int, any, error) {
	sid, err := scope(r, session.Default)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"session": sid, "removed": a.State.ClearSeeded(sid)}, nil
}
