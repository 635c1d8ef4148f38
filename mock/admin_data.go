package mock

import (
	"encoding/json"
	"net/http"

	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/state"
)

// handleSettingsView serves GET /__mock/settings: a session's settings,
// read without faults or auth.
func (s *Server) handleSettingsView(r *http.Request) (int, any, error) {
	sid, err := oneSession(r)
	if err != nil {
		return 0, nil, err
	}
	ss, sc, err := s.peek(sid, "")
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"session": sid, "scenario": sc.Name, "settings": ss.Settings(sc)}, nil
}

// DataSummary is the data of GET /__mock/data: the reviews of a session's
// scenario by rating, and the newest few.
type DataSummary struct {
	Scenario   string            `json:"scenario"`
	Total      int               `json:"total"`
	Answered   int               `json:"answered"`
	Unanswered int               `json:"unanswered"`
	ByRating   [5]RatingCounts   `json:"by_rating"`
	Newest     []json.RawMessage `json:"newest"`
	Seeded     *SeedInfo         `json:"seeded"` // null: the scenario's own data
}

// RatingCounts counts the reviews of one rating.
type RatingCounts struct {
	Rating     int `json:"rating"`
	Answered   int `json:"answered"`
	Unanswered int `json:"unanswered"`
}

// handleData serves GET /__mock/data.
func (s *Server) handleData(r *http.Request) (int, any, error) {
	sid, err := oneSession(r)
	if err != nil {
		return 0, nil, err
	}
	ss, sc, err := s.peek(sid, requestScenario(r))
	if err != nil {
		return 0, nil, err
	}
	st, err := ss.Reviews(sc, s.now()) // a living shop's, as the list shows it
	if err != nil {
		return 0, nil, err
	}
	all := reviews.All()
	all.Limit = 5
	res := st.Find(all)
	d := DataSummary{Scenario: sc.Name, Total: res.Total, Answered: res.Answered, Unanswered: res.Unanswered, Newest: []json.RawMessage{},
		Seeded: state.SeedInfoOf(ss, sc)}
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

// handleDataPut serves PUT /__mock/data: reviews seeded for one session
// (see Server.SeedReviews), in JSON or YAML.
func (s *Server) handleDataPut(r *http.Request) (int, any, error) {
	sid, err := adminScope(r, DefaultSession)
	if err != nil {
		return 0, nil, err
	}
	if sid == AllSessions {
		return 0, nil, state.ErrSeedAllSessions
	}
	body, err := readSeedBody(r)
	if err != nil {
		return 0, nil, err
	}
	mode, recs, err := decodeSeedBody(body)
	if err != nil {
		return 0, nil, err
	}
	res, err := s.SeedReviews(sid, requestScenario(r), mode, recs)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, res, nil
}

// handleDataDelete serves DELETE /__mock/data: a session (or every one,
// for session=*) back to its scenarios' data.
func (s *Server) handleDataDelete(r *http.Request) (int, any, error) {
	sid, err := adminScope(r, DefaultSession)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"session": sid, "removed": s.ClearSeeded(sid)}, nil
}
