package mock

import (
	"net/http"

	"github.com/replymock/replymock/mock/internal/settings"
	"github.com/replymock/replymock/mock/internal/wire"
)

// FeedbackSettings is one element of data.feedback: the settings for one rating.
type FeedbackSettings = settings.FeedbackSettings

// QuestionSettings is data.question: the settings for customer questions.
type QuestionSettings = settings.QuestionSettings

// Settings is the data of GET /settings/ai. Feedback[i] holds rating i+1.
type Settings = settings.Settings

// handleSettingsGet serves GET /api/v1/settings/ai.
func (s *Server) handleSettingsGet(w http.ResponseWriter, r *http.Request, ac apiContext) {
	wire.WriteJSON(w, http.StatusOK, wire.Envelope{Success: true, Data: ac.ss.Settings(ac.sc)})
}

// handleSettingsPatch serves PATCH /api/v1/settings/ai: a partial update,
// applied atomically, answered with the full settings.
func (s *Server) handleSettingsPatch(w http.ResponseWriter, r *http.Request, ac apiContext) {
	if s.readOnly {
		s.writeError(w, r, wire.ErrReadOnly)
		return
	}
	body, err := wire.ReadJSONBody(w, r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	p, err := settings.DecodePatch(body, ac.sc.Rules())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	st, err := ac.ss.PatchSettings(ac.sc, s.now(), p.Apply)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	wire.WriteJSON(w, http.StatusOK, wire.Envelope{Success: true, Data: st})
}
