package mock

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/replymock/replymock/mock/internal/content"
	"github.com/replymock/replymock/mock/internal/media"
	"github.com/replymock/replymock/mock/internal/settings"
	"github.com/replymock/replymock/mock/internal/yamlfile"
	"gopkg.in/yaml.v3"
)

// Problem is one thing wrong in a scenario or fixture file, located as
// file:line:col and named by its field path ("data.generate.count").
type Problem = yamlfile.Problem

// ScenarioResult is the outcome of loading one scenario.
type ScenarioResult struct {
	Name string
	// File names the scenario's file as problems do: the user's path, or
	// "(shipped) scenarios/NAME.yaml".
	File string
	Err  error
}

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
	p, err := newLoader(opts).newPass()
	if err != nil {
		return nil, err
	}
	results := make([]ScenarioResult, 0, len(p.names)+len(p.skipped))
	for _, n := range p.names {
		_, err := p.load(n)
		results = append(results, ScenarioResult{Name: n, File: p.display(n), Err: err})
	}
	for n, err := range p.skipped {
		file := ""
		if pr, ok := err.(*Problem); ok {
			file = pr.File
		}
		results = append(results, ScenarioResult{Name: n, File: file, Err: err})
	}
	slices.SortFunc(results, func(a, b ScenarioResult) int { return strings.Compare(a.Name, b.Name) })
	return results, nil
}

// SourceFile is a file given to ValidateFiles: its path, as problems
// name it, and its bytes.
type SourceFile struct {
	Path string
	Data []byte
}

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
	l := newLoader(opts)
	given := layer{dir: "the files given", where: "the files given", given: make(map[string]SourceFile)}
	kinds := make([]string, len(files))
	for i, f := range files {
		var head struct {
			Kind string `yaml:"kind"`
		}
		yaml.Unmarshal(f.Data, &head) // syntax errors are reported by the full decode
		kinds[i] = head.Kind
		name := scenarioName(f.Path)
		if _, dup := given.given[name+".yaml"]; (head.Kind == "" || head.Kind == "scenario") && scenarioNameRE.MatchString(name) && !dup {
			given.given[name+".yaml"] = f
		}
	}
	l.scenarios = append([]layer{given}, l.scenarios...)
	p, err := l.newPass()
	if err != nil {
		return err
	}
	var errs []error
	for i, f := range files {
		switch kinds[i] {
		case "reviews":
			_, err = content.DecodeReviews(f.Path, f.Data, media.URLs{Base: opts.PublicURL})
		case "settings":
			_, err = content.DecodeSettings(f.Path, f.Data, settings.Rules{})
		case "phrases":
			_, err = content.DecodePhrases(f.Path, f.Data)
		case "", "scenario":
			name := scenarioName(f.Path)
			if !scenarioNameRE.MatchString(name) {
				errs = append(errs, &Problem{File: f.Path, Message: fmt.Sprintf("a scenario is served by its file name, NAME.yaml, NAME of lower-case letters, digits, '-' and '_'; got %q", filepath.Base(f.Path))})
			}
			_, err = p.build(name, f.Path, f.Data, nil)
		default:
			err = &Problem{File: f.Path, Line: 1, Col: 1, Field: "kind",
				Message: fmt.Sprintf("must be reviews, settings or phrases for a fixture, or absent for a scenario; got %q", kinds[i])}
		}
		errs = append(errs, err)
	}
	return errors.Join(Problems(errors.Join(errs...))...)
}

// scenarioName is the name a scenario file is served by: its file name
// without .yaml.
func scenarioName(path string) string {
	return strings.TrimSuffix(filepath.Base(path), ".yaml")
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
