// Package probe checks a server that claims to be the auto-reply API
// against the contract.
//
// It checks behaviour rather than structure: that counts_only agrees with
// the list, that filters combine, that pages neither overlap nor skip.
// Against replymock every rule holds. Against the real service, a rule
// that differs is a place where a client could pass its tests on
// replymock and break in production.
//
// Main is the `replymock probe` command, and Run is the same check for Go
// code; the table in rules.go lists the rules in the order they run.
// Without AllowWrites the probe sends GETs and one PATCH of {} to
// /feedbacks, which no server can take as a change. Values to filter by
// come from the first page of the shop, so it works on any shop's data.
//
// The probe imports nothing of the module but its client, package
// upstream: it checks a server from the outside, as an independent oracle.
package probe
