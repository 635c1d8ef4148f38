package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
)

// manifest is the replymock package's package.json, field by field in
// its order: it is read strictly (a field this program does not know is
// an error, so that none is dropped when it writes the file back) and
// written in one canonical form.
type manifest struct {
	Name                 string            `json:"name"`
	Version              string            `json:"version"`
	Description          string            `json:"description"`
	Keywords             []string          `json:"keywords"`
	Repository           json.RawMessage   `json:"repository,omitempty"`
	Bin                  map[string]string `json:"bin"`
	Main                 string            `json:"main"`
	Types                string            `json:"types"`
	Exports              json.RawMessage   `json:"exports"`
	Files                []string          `json:"files"`
	Engines              map[string]string `json:"engines"`
	OptionalDependencies map[string]string `json:"optionalDependencies"`
}

func readManifest(path string) (*manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m manifest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %v (a field this program does not know would be lost: add it to manifest in mock/npm/manifest.go)", path, err)
	}
	return &m, nil
}

// setVersion makes v the version of the package and of every platform
// package it depends on.
func (m *manifest) setVersion(v string) {
	m.Version = v
	m.OptionalDependencies = map[string]string{}
	for _, p := range platforms {
		m.OptionalDependencies[p.name()] = v
	}
}

// check says what in the manifest the packages built from it would get
// wrong: a version npm refuses, a platform package missing, another
// version, or one this program does not build; an install script.
func (m *manifest) check() error {
	if m.Name != "replymock" {
		return fmt.Errorf("name is %q, want replymock", m.Name)
	}
	if !versionRE.MatchString(m.Version) {
		return fmt.Errorf("version %q is not a version such as 0.2.0", m.Version)
	}
	var problems []string
	for _, p := range platforms {
		if v, ok := m.OptionalDependencies[p.name()]; !ok || v != m.Version {
			problems = append(problems, fmt.Sprintf("optionalDependencies must name %s at %s (the package's version), got %q", p.name(), m.Version, v))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(m.OptionalDependencies)) {
		if !slices.ContainsFunc(platforms, func(p platform) bool { return p.name() == name }) {
			problems = append(problems, fmt.Sprintf("optionalDependencies names %s, which is no platform this program builds", name))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s (go run ./mock/npm -set-version %s writes them)", strings.Join(problems, "; "), m.Version)
	}
	return nil
}
