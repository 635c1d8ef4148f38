// Package journal keeps what each session's API requests asked and were
// answered.
//
// [Journals] owns every session's journal, bounded together in entries
// and bytes; a session holds only its [Key]. A [Pattern] matches entries
// by method, path, query, headers and JSON body, for listings,
// verifications with their near misses, and long polls. Credentials are
// kept, but listed and matched redacted (see [Redactor]).
package journal
