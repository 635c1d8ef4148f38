// Command replymock serves an in-memory fake of the auto-reply service's
// API (settings and the review list) with realistic Russian data.
//
//	replymock [flags]                    serve (the default)
//	replymock validate [FILES...]        check scenario, fixture and snapshot files
//	replymock probe --target URL         check a server against the contract's rules
//	replymock record --from URL --out DIR  record a shop into a scenario
//	replymock healthcheck                ask a running server whether it is healthy
//	replymock version                    print the version
//	replymock help [COMMAND]             the help, or a command's
//
// Each command's --help lists its own flags. Every flag of the server's
// commands can also be set with REPLYMOCK_<NAME> (e.g. REPLYMOCK_ADDR).
//
// The command line is package mock/cli; main passes it the version the
// build stamped.
package main

import "github.com/replymock/replymock/mock/cli"

// version is stamped at build time with -ldflags "-X main.version=...";
// without it, the version is read from the build info.
var version = ""

func main() {
	cli.Main(version)
}
