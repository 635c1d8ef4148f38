package admin

import (
	"net/http"
	"time"

	"github.com/replymock/replymock/mock/internal/access"
)

// Health is the data of GET /__mock/health.
type Health struct {
	Status        string      `json:"status"`
	Scenario      string      `json:"scenario"`
	StartScenario string      `json:"start_scenario"` // what the server started with: the panel's Heal may go back to it
	Reviews       int         `json:"reviews"`
	UptimeSeconds float64     `json:"uptime_seconds"`
	Version       string      `json:"version"`
	ReadOnly      bool        `json:"read_only"`      // --read-only: writes answer 403
	TokenRequired bool        `json:"token_required"` // --admin-token: the panel asks for it
	Store         StoreHealth `json:"store"`
}

// StoreHealth is where the sessions and the server's state are kept
// (--store), and whether the store answers.
type StoreHealth struct {
	Kind  string `json:"kind"`            // memory or redis
	URL   string `json:"url,omitempty"`   // a Redis URL, without its password
	State string `json:"state"`           // ok, or unreachable: reads answer from the state last known, writes 503
	Error string `json:"error,omitempty"` // why it is unreachable
	// LostAt is when the Redis store was last found to have lost its
	// data, within the last minute: the replica went back to its start
	// state.
	LostAt string `json:"lost_at,omitempty"`
}

// handleHealth serves GET /__mock/health; it needs no admin token.
func (a *Admin) handleHealth(r *http.Request) (int, any, error) {
	sc := a.State.Registry().Default()
	n, err := sc.Len()
	if err != nil {
		return 0, nil, err
	}
	store := StoreHealth{Kind: "memory", State: "ok"}
	if a.Store != nil {
		store = a.Store()
	}
	if a.Token != "" && !access.AdminTokenOK(r, a.Token) {
		store.URL = "" // where Redis is, only to those with the token
	}
	return http.StatusOK, Health{Status: "ok", Scenario: sc.Name, StartScenario: a.State.Registry().Start(), Reviews: n,
		UptimeSeconds: a.Now().Sub(a.Started).Round(time.Second).Seconds(), Version: a.Version,
		ReadOnly: a.ReadOnly, TokenRequired: a.Token != "", Store: store}, nil
}
