package mock

import (
	"errors"

	"github.com/replymock/replymock/mock/internal/scenario"
	"github.com/replymock/replymock/mock/internal/yamlfile"
)

// Problem is one thing wrong in a scenario or fixture file, located as
// file:line:col and named by its field path ("data.generate.count").
type Problem = yamlfile.Problem

// ScenarioResult is the outcome of loading one scenario.
type ScenarioResult = scenario.Result

// ValidateScenarios loads every scenario the server would serve with
// opts (the Scenarios folder, and the shipped ones unless it replaces
// them), with its fixtures and generated data, and reports each one's
// problems. A NAME.yaml that is not a regular file (a named pipe, a
// folder, a symbolic link leading out of the folder) is reported too:
// serving skips it with a warning.
func ValidateScenarios(opts Options) ([]ScenarioResult, error) {
	opts, err := opts.checked()
	if err != nil {
		return nil, err
	}
	return scenario.ValidateAll(loaderConfig(opts))
}

// SourceFile is a file given to ValidateFiles: its path, as problems
// name it, and its bytes.
type SourceFile = scenario.SourceFile

// ValidateFile checks one scenario or fixture file's bytes, as
// ValidateFiles does.
func ValidateFile(opts Options, file string, data []byte) error {
	return ValidateFiles(opts, []SourceFile{{Path: file, Data: data}})
}

// ValidateFiles checks scenario and fixture files and returns all their
// problems, joined, each once ("file:line:col: field: problem"). A file's
// top-level kind tells what it is: reviews, settings or phrases for a
// fixture; none (or "scenario") for a scenario. A scenario's extends is
// resolved as the server resolves it, among the scenario files given
// (each named by its file name without .yaml), then opts.Scenarios and
// the shipped ones; its fixtures are read from opts.Fixtures (and the
// shipped ones).
func ValidateFiles(opts Options, files []SourceFile) error {
	opts, err := opts.checked()
	if err != nil {
		return err
	}
	return errors.Join(Problems(scenario.ValidateFiles(loaderConfig(opts), files))...)
}

// Problems flattens an error of joined problems into one error per
// problem, each once (a scenario's problems come again with every
// scenario extending it), in order.
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
