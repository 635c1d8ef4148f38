// Package generate writes made-up reviews and the shop's replies to them.
//
// Reviews are written from a phrase bank (Bank) and a seed; Arrivals
// writes a living shop's new ones; the reply engine (Engine) answers
// them by the settings.
//
// The same seed, bank and settings give the same bytes on every machine.
// Changing the order of random draws changes every scenario's data and
// the goldens that hold it.
package generate
