// Package settings holds the auto-reply settings of /api/v1/settings/ai.
//
// It owns their types, the one table of their fields (fields.go), their
// checks, PATCH bodies and settings fixtures. Everything here is pure: a
// Settings value in, a Settings value out. The caller holds the lock.
//
// Adding a field: a Go field in FeedbackSettings or QuestionSettings, its
// row in the table, and the places that describe the settings to people:
// the OpenAPI documents, mock/API.md, the settings fixtures, and the
// control panel if it shows the field. TestTableIsTheTypes and the
// TestTableMatches tests fail until they all agree with the table.
package settings
