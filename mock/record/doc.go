// Package record is the `replymock record` command.
//
// It pages read-only through a shop's settings and reviews and writes a
// scenario that serves them (the list, counts and every filter answer as
// the shop does), anonymised unless asked not to, and a living one
// calibrated on them. A run cut short goes on where it stood the next time.
//
//	replymock record --from https://api.example.test/api/v1 --token T --out DIR
//
// Main is that command; Run is the same recording for Go code. It sends
// its requests with the client the probe checks with (mock/probe/upstream:
// the same rate, budget, timeouts and reading of answers) and reads the
// records as mock.Feedback.
package record
