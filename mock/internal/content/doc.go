// Package content owns what the reviews say and where they come from:
// the fixture formats (hand-written reviews, settings, phrase banks), the
// generator that writes a scenario's reviews from a phrase bank and a
// seed, and the reply engine that answers them by the settings.
//
// The generator and the reply engine are one piece: a scenario's
// generated history is answered by the engine as the reviews arrived,
// and a living shop (package mock) writes its new reviews with Arrivals
// and answers them with an Engine of its own. Everything here is
// deterministic: the same seed, bank and settings give the same bytes on
// every machine and run, so changing the order of random draws changes
// every scenario's data (and the goldens that hold it).
//
// Files: fixture.go, fixture_media.go and fixture_settings.go the
// fixtures; phrases.go the phrase bank; spec.go the generator's
// parameters, their checks and defaults; generate.go the generator and a
// history's replies; catalogue.go the products and a living shop's
// arrivals; review.go one review's texts; engine.go and words.go the
// reply engine.
package content
