//go:build !race

package admin

// raceBuild: the race detector is off; see race_internal_test.go.
const raceBuild = false
