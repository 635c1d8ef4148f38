// Package scenarios embeds the shipped scenario files.
// Each is NAME.yaml; the binary serves them without a folder on disk.
package scenarios

import "embed"

// FS holds the shipped scenarios, one NAME.yaml file each.
//
//go:embed *.yaml
var FS embed.FS
