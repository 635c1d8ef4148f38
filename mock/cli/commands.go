package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/replymock/replymock/mock/internal/wire"
)

// command is one of the binary's commands that the server's flags
// configure: its usage line, what it does, and the flags it takes.
type command struct {
	name  string
	usage string
	about string
	// flags are the names of the server's flags the command reads; nil
	// means all of them (serve).
	flags []string
	// help is, by flag name, the command's own help of a flag, when the
	// server's would mislead.
	help map[string]string
}

// commands are the server's commands, in the order the help lists them;
// probe and record (clients of another server) have flags of their own
// in their packages.
var commands = []command{
	{name: "serve", usage: "replymock [serve] [flags]",
		about: "Serves the API (/api/v1), the admin API and control panel (/__mock/) until\n" +
			"SIGINT or SIGTERM, then drains the requests in flight. A flag given wins\n" +
			"over its variable. Exit status 0 after a clean shutdown, 1 on failure, 2 for\n" +
			"bad flags."},
	{name: "validate", usage: "replymock validate [flags] [FILES...]",
		about: "Checks scenario, fixture and snapshot files, each problem on a line as\n" +
			"file:line:col: field: problem; with no FILES, every scenario the server would\n" +
			"serve with these flags. A snapshot is checked as restoring it here would be.\n" +
			"Exit status 0 when all are valid, 1 when a problem is found, 2 for bad flags.",
		flags: []string{"scenario", "scenarios", "scenarios-only", "fixtures", "seed", "now"}},
	{name: "healthcheck", usage: "replymock healthcheck [--addr ADDR]",
		about: "Asks the server at ADDR for /__mock/health (the container's HEALTHCHECK).\n" +
			"Exit status 0 when it answers healthy, 1 when not, 2 for bad flags.",
		flags: []string{"addr"},
		help:  map[string]string{"addr": "the address the server listens on, its --addr; a host of 0.0.0.0, :: or none asks 127.0.0.1 (env REPLYMOCK_ADDR)"}},
	{name: "mcp", usage: "replymock mcp [--scenario NAME] [--url URL] [flags]",
		about: "Serves the Model Context Protocol on standard input and output, for a coding\n" +
			"agent that starts a command: over an in-process mock, or with --url, a bridge\n" +
			"to a running server's /__mock/mcp. Logs go to standard error. Exit status 0\n" +
			"when the client closes, 1 on failure, 2 for bad flags.",
		flags: []string{"scenario", "scenarios", "scenarios-only", "fixtures", "seed", "now", "read-only", "admin-token", "log-format", "log-level", "url"},
		help:  map[string]string{"admin-token": "with --url, the running server's admin token; else the token the in-process mock asks for (env REPLYMOCK_ADMIN_TOKEN)"}},
	{name: "version", usage: "replymock version",
		about: "Prints the version.",
		flags: []string{}},
}

// commandNamed is the server's command called name.
func commandNamed(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// overview is what --help of the server says before its flags: every
// command, one a line.
const overview = `usage: replymock [serve] [flags]               serve the API (the default command)
       replymock validate [flags] [FILES...]   check scenario, fixture and snapshot files
       replymock probe --target URL [flags]    check a server against the contract's rules
       replymock record --from URL --out DIR   record a shop into a scenario that serves it
       replymock mcp [--url URL] [flags]       serve MCP on stdio for a coding agent
       replymock healthcheck [--addr ADDR]     exit 0 if the server at ADDR is healthy
       replymock version                       print the version
       replymock help [COMMAND]                this help, or a command's

Each command has its own flags: replymock COMMAND --help lists them.

`

// narrow is a flag set with only the flags of all that c takes, the
// same flags (a value set on one is set on the other).
func narrow(all *flag.FlagSet, c command) *flag.FlagSet {
	if c.flags == nil {
		return all
	}
	fsys := flag.NewFlagSet(all.Name(), flag.ContinueOnError)
	for _, name := range c.flags {
		f := all.Lookup(name)
		usage := f.Usage
		if h, ok := c.help[name]; ok {
			usage = h
		}
		fsys.Var(f.Value, f.Name, usage)
	}
	return fsys
}

// usageFunc prints c's help on fsys's output: its usage line, what it
// does, and its flags.
func usageFunc(fsys *flag.FlagSet, c command) func() {
	return func() {
		w := fsys.Output()
		if c.name == "serve" {
			io.WriteString(w, overview)
		} else {
			fmt.Fprintf(w, "usage: %s\n\n", c.usage)
		}
		fmt.Fprintf(w, "%s\n", c.about)
		if c.flags != nil && len(c.flags) == 0 {
			return // takes none
		}
		fmt.Fprintf(w, "\nflags (each also REPLYMOCK_<NAME>):\n")
		fsys.PrintDefaults()
	}
}

// parseFlags parses args into fsys. Help asked for (-h, --help) is
// printed on stdout and its error is flag.ErrHelp; a bad flag is a
// usageError of one line that says where the flags are listed.
func parseFlags(fsys *flag.FlagSet, args []string, stdout io.Writer) error {
	var help bytes.Buffer
	fsys.SetOutput(&help)
	err := fsys.Parse(args)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		_, werr := stdout.Write(help.Bytes())
		return errors.Join(flag.ErrHelp, werr)
	}
	return usageError{fmt.Errorf("%v%s (%s --help lists the flags)", err, flagHint(fsys, err), fsys.Name())}
}

// flagHint is a "did you mean" for a flag fsys does not define, or "".
func flagHint(fsys *flag.FlagSet, err error) string {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return ""
	}
	name = strings.TrimPrefix(name, "-")
	if name == "min-body-rate" {
		return ": it was removed; the server's read timeouts bound a slow body"
	}
	if name == "port" && fsys.Lookup("addr") != nil {
		return ": did you mean --addr :PORT (every interface) or --addr 127.0.0.1:PORT?"
	}
	var names []string
	fsys.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if near := wire.Nearest(name, names); near != "" {
		return ": did you mean --" + near + "?"
	}
	return ""
}

// helpArgs are the arguments the help command (replymock help
// [COMMAND]) stands for: --help, or COMMAND --help.
func helpArgs(args []string) ([]string, error) {
	switch {
	case len(args) > 1:
		return nil, usageError{fmt.Errorf("help takes at most one command, got %q", args)}
	case len(args) == 0:
		return []string{"--help"}, nil
	}
	name := strings.TrimPrefix(strings.TrimPrefix(args[0], "-"), "-")
	if name == "help" || name == "h" || name == "serve" {
		return []string{"--help"}, nil
	}
	if _, ok := commandNamed(name); !ok && name != "probe" && name != "record" {
		return nil, usageError{fmt.Errorf("help: unknown command %q; %s", args[0], commandList)}
	}
	return []string{name, "--help"}, nil
}

// commandList names every command, for the messages about an unknown one.
const commandList = "commands: serve, validate, probe, record, mcp, healthcheck, version, help"
