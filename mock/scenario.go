package mock

import (
	"github.com/replymock/replymock/mock/internal/generate"
	"github.com/replymock/replymock/mock/internal/scenario"
)

// Scenarios (package scenario).
type (
	// Scenario is a loaded, validated scenario.
	Scenario = scenario.Scenario
	// ScenarioInfo describes one scenario for the admin API.
	ScenarioInfo = scenario.Info
)

// Limits on scenario data, so a typo cannot exhaust memory.
const (
	MaxGeneratedReviews = generate.MaxGeneratedReviews
	MaxProducts         = generate.MaxProducts
	MaxFaults           = scenario.MaxFaults
	// MaxShopReviews bounds the reviews of a living shop, so that its
	// reply engine stays quick.
	MaxShopReviews = scenario.MaxShopReviews
	// MaxFileBytes bounds a scenario or fixture file.
	MaxFileBytes = scenario.MaxFileBytes
)

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
