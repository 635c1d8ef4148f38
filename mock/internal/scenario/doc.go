// Package scenario loads and serves the scenarios.
//
// It owns the file format (File) with its checks and defaults, the
// loader that reads scenario and fixture files from layers of folders (a
// user's over the shipped ones) with extends and caches, and the
// Registry of the scenarios a server serves, reloaded as files change.
//
// A Scenario is immutable once loaded: the server's packages read what
// it is made of through its methods, and its data (a reviews.Store) is
// built once, on first use, and shared by every scenario with the same
// data. The Registry owns its lock; the loader's caches own theirs.
//
// What a session does with a scenario (its settings, its living shop's
// state, its seeded reviews) is not here: it is the session's.
package scenario
