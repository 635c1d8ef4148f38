package mock

import (
	"errors"

	"github.com/replymock/replymock/mock/internal/scenario"
	"github.com/replymock/replymock/mock/internal/yamlfile"
)

// Checking scenario and fixture files.
type (
	// Problem is one thing wrong in a scenario or fixture file, at
	// file:line:col and a field path.
	Problem = yamlfile.Problem
	// ScenarioResult is the outcome of loading one scenario.
	ScenarioResult = scenario.Result
	// SourceFile is a file given to ValidateFiles: its path and bytes.
	SourceFile = scenario.SourceFile
)

// ValidateScenarios loads every scenario the server would serve with
// opts, with its fixtures and data, and reports each one's problems.
func ValidateScenarios(opts Options) ([]ScenarioResult, error) {
	opts, err := opts.checked()
	if err != nil {
		return nil, err
	}
	return scenario.ValidateAll(loaderConfig(opts))
}

// ValidateFile checks one scenario or fixture file's bytes, as
// ValidateFiles does.
func ValidateFile(opts Options, file string, data []byte) error {
	return ValidateFiles(opts, []SourceFile{{Path: file, Data: data}})
}

// ValidateFiles checks scenario and fixture files and returns all their
// problems, joined, each once. A file's top-level kind key says what it
// is. A scenario may extend one of the files given, or one of opts.
func ValidateFiles(opts Options, files []SourceFile) error {
	opts, err := opts.checked()
	if err != nil {
		return err
	}
	return errors.Join(Problems(scenario.ValidateFiles(loaderConfig(opts), files))...)
}

// Problems flattens an error of joined problems into one error per
// problem, each once, in order.
func Problems(err error) []error {
	var out []error
	seen := make(map[string]bool)
	var walk func(error)
	walk = func(err error) {
		if err == nil {
			return
		}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				walk(e)
			}
			return
		}
		if msg := err.Error(); !seen[msg] {
			seen[msg] = true
			out = append(out, err)
		}
	}
	walk(err)
	return out
}
