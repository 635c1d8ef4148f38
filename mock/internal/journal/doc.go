// Package journal keeps what each session's API requests asked and were
// answered.
//
// Each session has a ring of entries, and all rings together are bounded
// in entries and bytes. The journal answers listings, patterns that
// match entries part by part (method, path, query, headers, JSON body),
// verifications with their near misses, and long polls that wait for an
// entry. Each question is bounded in the work it does (MaxScanBytes).
//
// One [Journals] owns all of it, keyed by session id, behind its own
// locks; a session holds only the [Key] of its ring. Credentials a client
// sends (in headers and the query, named as [Redactor] tells) are kept
// but listed and matched redacted. The package knows
// nothing of HTTP routing, sessions or scenarios: the server records
// into it and reads from it.
package journal
