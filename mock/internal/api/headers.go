package api

import (
	"math"
	"net/http"

	"github.com/replymock/replymock/mock/internal/shared"
	"github.com/replymock/replymock/mock/internal/wire"
)

// Headers that steer the mock per request.
const (
	HeaderScenario = shared.HeaderScenario
	HeaderSession  = shared.HeaderSession
	HeaderSeed     = "X-Mock-Seed"
)

// requestSeed is the seed a request's X-Mock-Seed header gives its fault
// draws, or 0 without one (the scenario's seed then applies).
func requestSeed(h http.Header) (int64, error) {
	vs := h.Values(HeaderSeed)
	switch len(vs) {
	case 0:
		return 0, nil
	case 1:
	default:
		return 0, wire.InvalidParameter(HeaderSeed, "given %d times; give it at most once", len(vs))
	}
	n, err := wire.ParseDigits(vs[0])
	if err != nil || n < 1 {
		return 0, wire.InvalidParameter(HeaderSeed, "must be an integer from 1 to %d, got %q", int64(math.MaxInt64), wire.Clip(vs[0]))
	}
	return n, nil
}
