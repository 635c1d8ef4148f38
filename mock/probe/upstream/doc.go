// Package upstream is a careful client of the auto-reply API.
// The probe checks with it, and replymock record pages a shop with it.
//
// A Client sends one request at a time, at most a rate a second and a
// budget in all, each within a timeout; it follows no redirect (one is
// evidence, not a detour) and waits out a 429 as its Retry-After or
// X-Ratelimit-Retry asks, up to 30 s. Every request and its answer is
// an Exchange. Data reads an answer as the API writes it, a success
// envelope, and says in one line what it is instead; a request that
// tells nothing of the API is a *RequestError, an answer that is not
// the API's an *AnswerError, a refused token an *AuthError.
//
// The flags the two commands share (--token, --rate, --max-requests,
// --timeout) and the checks of the target's URL are here too. Like the
// probe, the package imports nothing of the module: what it reads, it
// reads from outside.
package upstream
