// Package settings holds the auto-reply settings of /api/v1/settings/ai.
//
// It owns their types, the one table of their fields (fields.go), the
// checks of a complete Settings value, a PATCH body decoded and applied,
// and a settings fixture file decoded (fixture.go).
//
// Everything here is pure: a Settings value in, a Settings value out. Who
// holds a session's settings, and its lock, is the caller's business.
//
// Adding a field: a Go field in FeedbackSettings or QuestionSettings, its
// row in the table, and the places that describe the settings to people:
// the OpenAPI documents (mock/openapi.yaml, mock/admin-openapi.yaml), the
// contract in mock/API.md, the settings fixtures, and the control panel if it
// shows the field. The package stops at its start if the table and the
// types disagree; TestTableMatchesDocuments, TestTableMatchesREADME and
// TestTableMatchesPanel fail until the others agree with the table.
package settings
