// Package yamlfile decodes scenario and fixture files strictly.
// Every problem found is placed at its file:line:col with its field path
// ("data.generate.count"). Problem is one such problem; File is a
// decoded document that collects them, quoting no more of a value than
// its line holds.
package yamlfile
