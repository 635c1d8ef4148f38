package mock

import (
	"net/http"
	"reflect"
	"time"

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
	wire.WriteJSON(w, http.StatusOK, wire.Envelope{Success: true, Data: ac.ss.settings(ac.sc)})
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
	st, err := patchSettings(ac.ss, ac.sc, p, s.now())
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	wire.WriteJSON(w, http.StatusOK, wire.Envelope{Success: true, Data: st})
}

// patchSettings applies p to the session's settings in sc atomically: on
// error nothing changes. In a living shop, a rating whose settings change
// can be answered from now.
func patchSettings(ss *session, sc *Scenario, p *settings.Patch, now time.Time) (Settings, error) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	st := ss.state(sc)
	next, err := p.Apply(st.settings)
	if err != nil {
		return st.settings, err
	}
	if sh, err := ss.runShop(sc, now); err != nil {
		return st.settings, err
	} else if sh != nil {
		at := sh.Now(now)
		for i := range next.Feedback {
			if !reflect.DeepEqual(next.Feedback[i], st.settings.Feedback[i]) {
				sh.SettingsChanged(i+1, at)
			}
		}
	}
	st.settings = next
	return next, nil
}
