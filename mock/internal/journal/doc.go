// Package journal keeps what each session's API requests asked and were
// answered.
//
// Each session has its own journal, and all of them together are bounded
// in entries and bytes. A [Pattern] matches entries by method, path,
// query, headers and JSON body; it serves listings, verifications with
// their near misses, and long polls. Each of these reads at most
// MaxScanBytes.
//
// [Journals] owns every session's journal; a session holds only its
// [Key]. Credentials a client sends are kept, but listed and matched
// redacted (see [Redactor]). The package knows nothing of HTTP routing,
// sessions or scenarios.
package journal
