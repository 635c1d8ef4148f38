// Package content makes what the reviews say: fixtures, seeds, generated
// reviews and their replies.
//
// It holds the review record's field table, the fixture formats
// (hand-written reviews, settings, phrase banks), the seed format of
// PUT /__mock/data, the generator that writes a scenario's reviews from
// a phrase bank and a seed, and the reply engine that answers them by
// the settings.
//
// The generator and the reply engine are one piece: a scenario's
// generated history is answered by the engine as the reviews arrived,
// and a living shop (package mock) writes its new reviews with Arrivals
// and answers them with an Engine of its own. Everything here is
// deterministic: the same seed, bank and settings give the same bytes on
// every machine and run, so changing the order of random draws changes
// every scenario's data (and the goldens that hold it).
//
// The review record's fields are one table (record.go): their names,
// kinds and bounds, what a fixture requires and what a seed fills. The
// fixture format (ReviewFixture, from YAML) and the seed format
// (SeedReview, from the JSON of PUT /__mock/data) both read it, so a
// field added to the record is a row there and a Go field in each
// format's type; the package stops at its start while they disagree.
// Seeds are checked as fixtures are, once filled (Filler).
//
// Files: record.go and record_media.go the record's fields and media
// shapes; fixture.go and fixture_settings.go the fixtures; seed.go and
// seed_fill.go the seeds; phrases.go the phrase bank; spec.go the
// generator's parameters, their checks and defaults; generate.go the
// generator and a history's replies; catalogue.go the products and a
// living shop's arrivals; review.go one review's texts; engine.go and
// words.go the reply engine.
package content
