// Package yamlfile decodes scenario and fixture files strictly.
// Every [Problem] is placed at its file:line:col with its field path
// ("data.generate.count"). A [File] is a decoded document that collects
// them.
package yamlfile
