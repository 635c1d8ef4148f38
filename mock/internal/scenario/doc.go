// Package scenario loads and serves the scenarios.
//
// It owns the file format ([File]) with its checks and defaults, the
// [Loader] that reads scenario and fixture files from a user's folder
// over the shipped ones, and the [Registry] of the scenarios a server
// serves, reloaded as files change.
//
// A Scenario never changes once loaded. Its data is built on first use
// and shared by every scenario with the same data. What a session does
// with a scenario is the session's, not this package's.
package scenario
