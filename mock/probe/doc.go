// Package probe checks a server that claims to be the auto-reply API
// against the contract.
//
// It checks behaviour rather than structure: that counts_only agrees with
// the list, that filters combine, that pages neither overlap nor skip.
// Against replymock every rule holds. Against the real service, a rule
// that differs is a place where a client could pass its tests on
// replymock and break in production.
//
//	replymock probe --target https://api.example.test/api/v1 --token T
//
// Main is that command, and Run is the same check for Go code. A Report
// writes itself as a table, JSON or JUnit XML. The exit status:
//
//	0  every rule was checked and holds
//	1  a rule differs: the server breaks the contract (ExitDiffers)
//	2  bad flags or arguments: nothing was sent (ExitUsage)
//	3  no rule differs, but rules could not be checked: the target
//	   answered errors, the budget ran out, the token was refused, the
//	   target is not this API, or the run was interrupted (ExitUnchecked);
//	   --allow-unchecked makes that 0 as long as one rule holds
//
// The rules, in the order they run (Rules lists them with their titles):
//
//	shape.settings        5 feedback elements by rating 1..5, a question object, the spec's fields and types
//	shape.records         {feedbacks, total, limit, offset}; every record's fields and types, media as upstream
//	shape.envelope        the success and error envelopes, application/json
//	list.default-limit    20 without limit; limit and offset echoed
//	list.limit-bounds     1 and 100 accepted; 0 and 101 are 400
//	list.offset-past-end  [] past the end, same total
//	list.order            newest first, ties by id descending
//	list.stable           the same page twice is the same
//	list.walk             pages neither overlap nor miss (a sample of a big shop)
//	filter.answered       answered=0|1, and together all
//	filter.rating         rating=1..5, and together all
//	filter.nm_id          one product's records
//	filter.dates          date_from, date_to inclusive; from after to is 400
//	filter.search         trimmed; empty is no filter; case folding (Cyrillic, ё/Ё); a part
//	                      of a word of text, pros, cons, supplier_article or nm_id; 200 characters
//	filter.combined       filters together intersect
//	counts.match-list     counts_only equals the list's totals
//	counts.sum            total = answered + unanswered
//	counts.params         counts_only ignores answered, validates limit
//	errors.malformed      400 invalid_parameter naming the parameter
//	errors.repeated       a parameter twice is 400
//	errors.unknown-path   404 not_found, no redirect
//	errors.wrong-method   405 method_not_allowed with Allow
//	writes.round-trip     (--allow-writes) PATCH answers and stores the change
//	writes.unified        (--allow-writes) use_unified_settings propagation
//	writes.atomic         (--allow-writes) a bad PATCH changes nothing
//	writes.restored       (--allow-writes) the original settings are back
//
// The probe is gentle: one request at a time, within Config.Rate,
// Config.MaxRequests and Config.Timeout. Without AllowWrites it sends
// GETs and one PATCH of {} to /feedbacks, which no server can take as a
// change. Values to filter by come from the first page of the shop, so
// it works on any shop's data.
//
// A target that is not this API makes every rule "could not check",
// with one line saying why. A 401 stops the run.
//
// The requests go through the package upstream, whose client replymock
// record uses too. The probe imports neither record nor mock: it checks
// a server from the outside, as an independent oracle.
package probe
