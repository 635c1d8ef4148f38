// Package yamlfile decodes the YAML files of scenarios and fixtures
// strictly, and places every problem found in them, while decoding or
// after, at its file:line:col with its field path
// ("data.generate.count"). Problem is one such problem; File is a
// decoded document that collects them, quoting no more of a value than
// its line holds.
package yamlfile
