package cli

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// replymock runs Main, the real entry point, in a process of its own
// with args and the extra environment variables env; it returns what it
// printed and its exit status.
func replymock(t *testing.T, args []string, env ...string) (stdout, stderr string, code int) {
	t.Helper()
	js, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{"REPLYMOCK_TEST_ROLE=main", "REPLYMOCK_TEST_ARGS=" + string(js)}, env...)...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("replymock %q: %v", args, err)
	}
	return out.String(), errOut.String(), code
}

// flagLine is a flag's first line in Go's flag help: "  -name" and the
// value's name, if any.
var flagLine = regexp.MustCompile(`^  -([a-z0-9-]+)(?: (.*))?$`)

// helpFlags reads a command's help: the flags it lists, in order, and
// each flag's help text (its lines after the first, joined).
func helpFlags(help string) (names []string, value, text map[string]string) {
	value, text = map[string]string{}, map[string]string{}
	cur := ""
	for line := range strings.SplitSeq(help, "\n") {
		if m := flagLine.FindStringSubmatch(line); m != nil {
			cur = m[1]
			names = append(names, cur)
			value[cur] = m[2]
			continue
		}
		if cur != "" && strings.HasPrefix(line, "    \t") {
			text[cur] += strings.TrimSpace(line) + " "
		} else {
			cur = ""
		}
	}
	return names, value, text
}

// Every command's --help (-h, help COMMAND) prints that command's usage
// and its own flags on stdout, and exits 0. Each default is said once,
// each flag's value has a name of one word, and a token in the
// environment is not shown as a default.
func TestEveryCommandsHelp(t *testing.T) {
	validate := []string{"fixtures", "now", "scenario", "scenarios", "scenarios-only", "seed"}
	probeFlags := []string{"allow-unchecked", "allow-writes", "format", "max-requests", "quiet", "rate", "target", "timeout", "token"}
	recordFlags := []string{"anonymize-products", "format", "from", "max-answer-mib", "max-read-mib", "max-requests", "max-write-mib", "name", "out", "quiet", "rate", "raw", "seed", "timeout", "token"}
	serveHas := []string{"addr", "admin-addr", "admin-token", "max-shop-memory", "max-state-disk", "redact", "state-dir", "version"}
	clientOnly := []string{"target", "token", "from", "out", "rate", "allow-unchecked", "allow-writes"}
	tests := []struct {
		args  []string
		usage string   // the help's first line
		flags []string // exactly these, sorted; nil: serve's (see serveHas)
		says  string   // and it says this
	}{
		{[]string{"--help"}, "usage: replymock [serve] [flags]", nil, "replymock COMMAND --help lists them"},
		{[]string{"-h"}, "usage: replymock [serve] [flags]", nil, ""},
		{[]string{"serve", "--help"}, "usage: replymock [serve] [flags]", nil, ""},
		{[]string{"help"}, "usage: replymock [serve] [flags]", nil, ""},
		{[]string{"help", "serve"}, "usage: replymock [serve] [flags]", nil, ""},
		{[]string{"validate", "--help"}, "usage: replymock validate [flags] [FILES...]", validate, "Exit status 0 when all are valid"},
		{[]string{"validate", "-h"}, "usage: replymock validate [flags] [FILES...]", validate, ""},
		{[]string{"help", "validate"}, "usage: replymock validate [flags] [FILES...]", validate, ""},
		{[]string{"healthcheck", "--help"}, "usage: replymock healthcheck [--addr ADDR]", []string{"addr"}, "the address the server listens on"},
		{[]string{"help", "healthcheck"}, "usage: replymock healthcheck [--addr ADDR]", []string{"addr"}, ""},
		{[]string{"version", "--help"}, "usage: replymock version", []string{}, "Prints the version."},
		{[]string{"probe", "--help"}, "usage: replymock probe --target URL [--token T] [flags]", probeFlags, "3  no rule differs, but rules could not be checked"},
		{[]string{"probe", "-h"}, "usage: replymock probe --target URL [--token T] [flags]", probeFlags, ""},
		{[]string{"help", "probe"}, "usage: replymock probe --target URL [--token T] [flags]", probeFlags, ""},
		{[]string{"record", "--help"}, "usage: replymock record --from URL --out DIR [--token T] [flags]", recordFlags, ""},
		{[]string{"help", "record"}, "usage: replymock record --from URL --out DIR [--token T] [flags]", recordFlags, ""},
	}
	const secret = "s3cret-from-the-environment"
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code := replymock(t, tc.args, "REPLYMOCK_PROBE_TOKEN="+secret, "REPLYMOCK_ADDR=127.0.0.1:1")
			if code != 0 || stderr != "" {
				t.Errorf("exit %d, stderr %q; want 0 and nothing", code, stderr)
			}
			if first, _, _ := strings.Cut(stdout, "\n"); !strings.HasPrefix(first, tc.usage) {
				t.Errorf("first line %q, want it to start %q", first, tc.usage)
			}
			if !strings.Contains(stdout, tc.says) {
				t.Errorf("the help does not say %q", tc.says)
			}
			if strings.Contains(stdout, secret) {
				t.Errorf("the help shows the token in the environment")
			}
			names, value, text := helpFlags(stdout)
			if tc.flags != nil && !slices.Equal(names, tc.flags) {
				t.Errorf("flags %q, want %q", names, tc.flags)
			}
			if tc.flags == nil {
				for _, f := range serveHas {
					if !slices.Contains(names, f) {
						t.Errorf("the server's help does not list -%s", f)
					}
				}
				for _, f := range clientOnly {
					if slices.Contains(names, f) {
						t.Errorf("the server's help lists -%s, a client command's flag", f)
					}
				}
			}
			for _, name := range names {
				if n := strings.Count(text[name], "(default"); n > 1 {
					t.Errorf("-%s says its default %d times: %s", name, n, text[name])
				}
				if v := value[name]; v != "" && !regexp.MustCompile(`^[A-Za-z]+$`).MatchString(v) {
					t.Errorf("-%s's value is named %q, want one word", name, v)
				}
				if text[name] == "" {
					t.Errorf("-%s has no help", name)
				}
			}
			if t.Failed() {
				t.Logf("replymock %s:\n%s", strings.Join(tc.args, " "), stdout)
			}
		})
	}
}

// A bad flag is one line on stderr that says where the flags are
// listed, and exit status 2; an unknown command in help too.
func TestBadFlagSaysWhereTheFlagsAre(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--nope"}, "flag provided but not defined: -nope (replymock --help lists the flags)\n"},
		{[]string{"validate", "--addr", "x"}, "flag provided but not defined: -addr (replymock validate --help lists the flags)\n"},
		{[]string{"healthcheck", "--scenario", "x"}, "flag provided but not defined: -scenario (replymock healthcheck --help lists the flags)\n"},
		{[]string{"probe", "--nope"}, "flag provided but not defined: -nope (replymock probe -h lists the flags)\n"},
		{[]string{"record", "--nope"}, "flag provided but not defined: -nope (replymock record -h lists the flags)\n"},
		{[]string{"help", "frobnicate"}, `help: unknown command "frobnicate"; commands: serve, validate, probe, record, mcp, healthcheck, version, help` + "\n"},
	} {
		stdout, stderr, code := replymock(t, tc.args)
		if code != 2 || stderr != tc.want || stdout != "" {
			t.Errorf("replymock %q: exit %d, stdout %q, stderr %q; want exit 2 and stderr %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
}
