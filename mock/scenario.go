package mock

import (
	"github.com/replymock/replymock/mock/internal/generate"
	"github.com/replymock/replymock/mock/internal/scenario"
)

// Scenario is a loaded, validated scenario: its rules, the initial
// settings every session starts from, and its data, built on first use.
// What it is made of, its file format and its loader are package
// scenario's (mock/internal/scenario).
type Scenario = scenario.Scenario

// ScenarioInfo describes one scenario for the admin API.
type ScenarioInfo = scenario.Info

// Limits on scenario data, so a typo cannot exhaust memory.
const (
	MaxGeneratedReviews = generate.MaxGeneratedReviews
	MaxProducts         = generate.MaxProducts
	MaxFaults           = scenario.MaxFaults
)

// MaxShopReviews bounds a living shop: its scenario's data, and each
// session's arrivals, so that the reply engine, which reads every review
// of a session's shop when its clock moves, stays quick.
const MaxShopReviews = scenario.MaxShopReviews

// MaxFileBytes bounds a scenario or fixture file: a reviews fixture of
// 10,000 long reviews takes about a tenth of it. Decoded, a file takes a
// few times its size in memory, so a bigger one is refused unread.
const MaxFileBytes = scenario.MaxFileBytes

// ReadFile reads the scenario or fixture file at path, as the server
// would: a regular file of at most MaxFileBytes.
func ReadFile(path string) ([]byte, error) { return scenario.ReadFile(path) }

// loaderConfig is where opts has scenario and fixture files read from.
func loaderConfig(opts Options) scenario.Config {
	return scenario.Config{
		Scenarios: opts.Scenarios, ScenariosDir: opts.ScenariosDir, ShippedScenarios: opts.ShippedScenarios,
		Fixtures: opts.Fixtures, FixturesDir: opts.FixturesDir, ShippedFixtures: opts.ShippedFixtures,
		Seed: opts.Seed, Now: opts.Now, PublicURL: opts.PublicURL, Logger: opts.Logger,
	}
}
