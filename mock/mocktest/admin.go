package mocktest

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/replymock/replymock/mock"
)

// Settings returns the settings of session ("" for the default session)
// as GET /__mock/settings reads them: past faults, auth and rate limits,
// and without a journal entry.
func (s *Server) Settings(tb testing.TB, session string) mock.Settings {
	tb.Helper()
	var v struct {
		Settings mock.Settings `json:"settings"`
	}
	s.admin(tb, "Settings", http.MethodGet, "/settings", sessionID(tb, "Settings", session), nil, &v)
	return v.Settings
}

// Now returns the clock of session's living shop ("" for the default
// session): the shop's wall time, as its reviews' dates read, in UTC.
// A scenario without a shop (the session's; see SetScenario) fails the
// test.
func (s *Server) Now(tb testing.TB, session string) time.Time {
	tb.Helper()
	return s.clock(tb, "Now", http.MethodGet, session, nil)
}

// AdvanceClock moves the clock of session's living shop ahead by d (1ns
// to 8784h) and runs everything due: arrivals, and replies by the
// session's settings. It returns the new time, as Now does. A scenario
// without a shop, or a d out of range, fails the test and changes
// nothing.
func (s *Server) AdvanceClock(tb testing.TB, session string, d time.Duration) time.Time {
	tb.Helper()
	return s.clock(tb, "AdvanceClock", http.MethodPost, session, map[string]string{"advance": d.String()})
}

func (s *Server) clock(tb testing.TB, helper, method, session string, body any) time.Time {
	tb.Helper()
	var c mock.Clock
	s.admin(tb, helper, method, "/clock", sessionID(tb, helper, session), body, &c)
	t, err := time.Parse(time.DateTime, c.Now)
	if err != nil {
		tb.Fatalf("mocktest: %s: the clock reads %q: %v", helper, c.Now, err)
	}
	return t
}

// admin calls the admin route AdminPrefix+path for session in-process
// (no connection, no journal entry) and decodes its data into out; an
// error answer fails the test with the envelope's code, field and
// message. It is for what the server has no Go method for.
func (s *Server) admin(tb testing.TB, helper, method, path, session string, body, out any) {
	tb.Helper()
	var js []byte
	if body != nil {
		var err error
		if js, err = json.Marshal(body); err != nil {
			tb.Fatalf("mocktest: %s: %v", helper, err)
		}
	}
	target := mock.AdminPrefix + path
	if session != "" { // "": the default session, which an empty session= is not
		target += "?session=" + url.QueryEscape(session)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, target, bytes.NewReader(js))
	if err != nil {
		tb.Fatalf("mocktest: %s: %v", helper, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if s.adminToken != "" {
		req.Header.Set("X-Mock-Admin-Token", s.adminToken)
	}
	rec := httptest.NewRecorder()
	s.Mock.ServeHTTP(rec, req)
	var env struct {
		Data  json.RawMessage `json:"data"`
		Error *mock.APIError  `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil {
		tb.Fatalf("mocktest: %s: %s %s answered %d: %.200s", helper, method, target, rec.Code, rec.Body.Bytes())
	}
	if env.Error != nil || rec.Code != http.StatusOK {
		e := env.Error
		if e == nil {
			e = mock.StatusError(rec.Code)
		}
		e.Status = rec.Code
		tb.Fatalf("mocktest: %s %s: %v", helper, session, e)
	}
	if err := json.Unmarshal(env.Data, out); err != nil {
		tb.Fatalf("mocktest: %s: %s %s: %v", helper, method, target, err)
	}
}
