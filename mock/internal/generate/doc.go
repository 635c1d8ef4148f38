// Package generate writes made-up reviews and the shop's replies to them.
//
// The generator writes a scenario's reviews from a phrase bank (Bank)
// and a seed; the catalogue gives the products they are about; Arrivals
// writes a living shop's new reviews; the reply engine (Engine) answers
// reviews by the settings. A scenario's history is answered by the
// engine as the reviews arrived.
//
// Everything here is deterministic: the same seed, bank and settings
// give the same bytes on every machine. Changing the order of random
// draws changes every scenario's data, and the goldens that hold it.
package generate
