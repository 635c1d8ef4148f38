// Package fault injects failures into API requests.
//
// It owns the Fault shape that scenario files and the admin API share,
// its checks, the requests it matches, the repeatable decision of
// whether it hits, and what it does to the request.
//
// What a fault can do is a kind (Kind), one self-contained piece each:
// latency (kind_latency.go), error (kind_error.go), drop (kind_drop.go)
// and truncate (kind_truncate.go). The kind table (kinds, in kind.go) is
// the one list of them: validation, the journal's labels, the metrics'
// label values and serving read it, and a test holds the control panel
// (mock/ui) and the admin OpenAPI document to it.
//
// Registry keeps the run-time faults, for every session and each
// session's own, within their bounds. A session's counters of the faults
// it met live with the session; their type is Counter.
package fault
