package api

import (
	"net/http"

	"github.com/replymock/replymock/mock/internal/settings"
	"github.com/replymock/replymock/mock/internal/wire"
)

// handleSettingsGet serves GET /api/v1/settings/ai.
func (a *API) handleSettingsGet(w http.ResponseWriter, r *http.Request, c call) {
	set := c.ss.Settings(c.sc)
	c.play(&liveRead{ss: c.ss, sc: c.sc, now: a.Now(), set: &set, counter: a.State.FaultCounter(c.ss.ID())})
	wire.WriteJSON(w, http.StatusOK, wire.Envelope{Success: true, Data: set})
}

// handleSettingsPatch serves PATCH /api/v1/settings/ai: a partial update,
// applied atomically, answered with the full settings.
func (a *API) handleSettingsPatch(w http.ResponseWriter, r *http.Request, c call) {
	if a.ReadOnly {
		a.writeError(w, r, wire.ErrReadOnly)
		return
	}
	body, err := wire.ReadJSONBody(w, r, settings.PatchShape)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	p, err := settings.DecodePatch(body, c.sc.Rules())
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	st, err := c.ss.PatchSettings(c.sc, a.Now(), p.Apply)
	if err != nil {
		a.writeError(w, r, err)
		return
	}
	wire.WriteJSON(w, http.StatusOK, wire.Envelope{Success: true, Data: st})
}
