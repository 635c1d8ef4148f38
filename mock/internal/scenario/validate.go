package scenario

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/replymock/replymock/mock/internal/fixture"
	"github.com/replymock/replymock/mock/internal/generate"
	"github.com/replymock/replymock/mock/internal/settings"
	"github.com/replymock/replymock/mock/internal/yamlfile"
)

// Result is the outcome of loading one scenario.
type Result struct {
	Name string
	File string // as problems name it: the user's path, or "(shipped) scenarios/NAME.yaml"
	Err  error
}

// ValidateAll loads every scenario cfg's folders hold, with its fixtures
// and generated data, and reports each one's problems. A NAME.yaml that
// is not a regular file is reported too: serving skips it.
func ValidateAll(cfg Config) ([]Result, error) {
	p, err := NewLoader(cfg).newPass()
	if err != nil {
		return nil, err
	}
	results := make([]Result, 0, len(p.names)+len(p.skipped))
	for _, n := range p.names {
		_, err := p.load(n, nil)
		results = append(results, Result{Name: n, File: p.display(n), Err: err})
	}
	for n, pr := range p.skipped {
		results = append(results, Result{Name: n, File: pr.File, Err: pr})
	}
	slices.SortFunc(results, func(a, b Result) int { return strings.Compare(a.Name, b.Name) })
	return results, nil
}

// SourceFile is a file given to ValidateFiles.
type SourceFile struct {
	Path string
	Data []byte
}

// ValidateFiles checks scenario and fixture files and returns their
// problems, joined. A file's top-level kind tells what it is: reviews,
// settings or phrases for a fixture; none (or "scenario") for a scenario.
// A scenario's extends is resolved among the files given, then cfg's
// folders; its fixtures are read from cfg's.
func ValidateFiles(cfg Config, files []SourceFile) error {
	l := NewLoader(cfg)
	given := layer{dir: "the files given", where: "the files given", given: make(map[string]SourceFile)}
	kinds := make([]string, len(files))
	for i, f := range files {
		kinds[i] = yamlfile.Top(f.Data, "kind")
		name := scenarioName(f.Path)
		if _, dup := given.given[name+".yaml"]; (kinds[i] == "" || kinds[i] == "scenario") && scenarioNameRE.MatchString(name) && !dup {
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
			_, err = fixture.DecodeReviews(f.Path, f.Data, l.media)
		case "settings":
			_, err = settings.DecodeFixture(f.Path, f.Data, settings.Rules{})
		case "phrases":
			_, err = generate.DecodePhrases(f.Path, f.Data)
		case "", "scenario":
			name := scenarioName(f.Path)
			if !scenarioNameRE.MatchString(name) {
				errs = append(errs, &yamlfile.Problem{File: f.Path, Message: fmt.Sprintf("a scenario is served by its file name, NAME.yaml, NAME of lower-case letters, digits, '-' and '_'; got %q", filepath.Base(f.Path))})
			}
			_, err = p.build(name, f.Path, f.Data, nil)
		default:
			err = &yamlfile.Problem{File: f.Path, Line: 1, Col: 1, Field: "kind",
				Message: fmt.Sprintf("must be reviews, settings or phrases for a fixture, or absent for a scenario; got %q", kinds[i])}
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// scenarioName is the name a scenario file is served by.
func scenarioName(path string) string {
	return strings.TrimSuffix(filepath.Base(path), ".yaml")
}
