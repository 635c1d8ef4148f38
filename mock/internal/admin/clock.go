package admin

import (
	"net/http"
	"time"

	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/settings"
	"github.com/replymock/replymock/mock/internal/shop"
	"github.com/replymock/replymock/mock/internal/wire"
)

// Clock is the data of /__mock/clock.
type Clock struct {
	Session  string `json:"session"`
	Scenario string `json:"scenario"`
	Now      string `json:"now"`
	Frozen   bool   `json:"frozen"`
}

// handleClock serves GET and POST /__mock/clock: a session's shop clock,
// and {"advance":"2h"} to move it ahead and run everything due.
func (a *Admin) handleClock(r *http.Request) (int, any, error) {
	var body struct {
		Advance wire.Duration `json:"advance"`
	}
	if r.Method == http.MethodPost {
		if err := decodeBody(r, smallBody, &body); err != nil {
			return 0, nil, err
		}
		if body.Advance <= 0 || body.Advance.D() > 366*24*time.Hour {
			return 0, nil, wire.InvalidBody("advance", "must be a duration from 1ns to 8784h, such as \"2h\"")
		}
	}
	sid, err := oneSession(r)
	if err != nil {
		return 0, nil, err
	}
	name, field := requestScenario(r)
	find := a.State.Peek // reading the clock creates no session
	if r.Method == http.MethodPost {
		find = a.State.Resolve
	}
	ss, sc, err := find(sid, name)
	if err != nil {
		return 0, nil, namedBy(err, field)
	}
	if sc.Shop() == nil {
		if name == "" {
			field = sessionField(r)
		}
		return 0, nil, wire.InvalidParameter(field, "scenario %q has no living shop (its file has no shop:)", sc.Name)
	}
	now := a.Now()
	clock := Clock{Session: sid, Scenario: sc.Name}
	err = ss.Shop(sc, now, body.Advance > 0, func(sh *shop.Shop, set settings.Settings) error {
		if body.Advance > 0 {
			if sh.Now(now).Add(body.Advance.D()).Year() > shop.MaxClockYear {
				return wire.InvalidBody("advance", "the shop's clock would pass the end of %d; POST /__mock/reset starts it again", shop.MaxClockYear)
			}
			sh.Advance(body.Advance.D())
			if err := sh.Run(now, set); err != nil {
				return err
			}
		}
		clock.Now, clock.Frozen = sh.Now(now).Format(reviews.TimestampLayout), sh.Frozen()
		return nil
	})
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, clock, nil
}
