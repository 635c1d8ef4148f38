// Package journal keeps the request journal of every session: what each
// API request asked and was answered, as a ring of entries per session
// within the global bounds of all journals together (entries and bytes),
// and the questions asked of it: listings, patterns that match entries
// part by part (method, path, query, headers, JSON body), verifications
// with their near misses, and long polls that wait for an entry. Each
// such question is bounded in the work it does (MaxScanBytes).
//
// One [Journals] owns all of it, keyed by session id, behind its own
// locks; a session holds only the [Key] of its ring. Credentials a client
// sends (in headers and the query, named as [Redactor] tells) are kept
// but listed and matched redacted. The package knows
// nothing of HTTP routing, sessions or scenarios: the server records
// into it and reads from it.
package journal
