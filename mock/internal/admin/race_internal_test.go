//go:build race

package admin

// raceBuild: the race detector is on. It allocates beside the code it
// watches, and sync.Pool keeps nothing under it: what a request
// allocates is some 10% more than in the server, and reading the largest
// bodies takes minutes.
const raceBuild = true
