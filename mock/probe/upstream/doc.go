// Package upstream is a careful client of the auto-reply API.
// The probe checks with it, and replymock record pages a shop with it.
//
// A Client sends one request at a time, within a rate, a budget and a
// timeout, and waits out a 429 as the answer asks. Data reads a success
// envelope, or says in one line what the answer is instead. The flags
// the two commands share, and the checks of the target's URL, are here
// too.
package upstream
