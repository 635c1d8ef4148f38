// Package fault injects failures into API requests.
//
// A Fault is the shape scenario files and the admin API share. What a
// fault does is a Kind, one file each: latency, error, drop, truncate,
// and the kinds that play a live service through Live (page_drift,
// stale_read, counts_lag). The kind table in kind.go is the one list of them.
//
// Registry keeps the faults added at run time. A session keeps its own
// Counter of each fault it met.
package fault
