package mock

import (
	"fmt"
	"path"
	"strings"

	"gopkg.in/yaml.v3"
)

// ScenarioResult is the outcome of loading one scenario.
type ScenarioResult struct {
	Name string
	Err  error
}

// ValidateScenarios loads every scenario in opts.Scenarios (with its
// fixtures and generated data) and reports each one's problems.
func ValidateScenarios(opts Options) ([]ScenarioResult, error) {
	opts = opts.withDefaults()
	p, err := newLoader(opts).newPass()
	if err != nil {
		return nil, err
	}
	results := make([]ScenarioResult, 0, len(p.names))
	for _, n := range p.names {
		_, err := p.load(n)
		results = append(results, ScenarioResult{Name: n, Err: err})
	}
	return results, nil
}

// ValidateFile checks one scenario or fixture file's bytes. The file's
// top-level kind tells which: reviews, settings or phrases for fixtures;
// none (or "scenario") for a scenario, whose fixtures are read from
// opts.Fixtures. Problems are reported as "file:line:col: field: problem".
func ValidateFile(opts Options, file string, data []byte) error {
	opts = opts.withDefaults()
	var head struct {
		Kind string `yaml:"kind"`
	}
	yaml.Unmarshal(data, &head) // syntax errors are reported by the full decode below
	switch head.Kind {
	case "reviews":
		_, err := decodeReviews(file, data)
		return err
	case "settings":
		_, err := decodeSettingsFixture(file, data, settingsRules{})
		return err
	case "phrases":
		_, err := decodePhrases(file, data)
		return err
	case "", "scenario":
		name := strings.TrimSuffix(path.Base(file), ".yaml")
		p, err := newLoader(opts).newPass()
		if err != nil {
			return err
		}
		_, err = p.build(name, file, data, nil)
		return err
	default:
		return &Problem{File: file, Line: 1, Col: 1, Field: "kind",
			Message: fmt.Sprintf("must be reviews, settings or phrases for a fixture, or absent for a scenario; got %q", head.Kind)}
	}
}
