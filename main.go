// Command replymock serves an in-memory fake of the auto-reply service's
// API (settings and the review list) with realistic Russian data.
//
//	replymock [flags]                 serve (the default)
//	replymock validate [FILES...]     check scenario and fixture files
//	replymock probe --target URL      check a server against the contract's rules
//	replymock version                 print the version
//
// Every flag can also be set with REPLYMOCK_<NAME> (e.g. REPLYMOCK_ADDR).
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
