package main

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMain lets the test binary be replymock itself, for the test of
// what main does: with REPLYMOCK_TEST_MAIN_ARGS set, it runs main with
// those arguments and the version REPLYMOCK_TEST_VERSION, as if stamped.
func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv("REPLYMOCK_TEST_MAIN_ARGS"); ok {
		version = os.Getenv("REPLYMOCK_TEST_VERSION")
		os.Args = append([]string{"replymock"}, strings.Fields(args)...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// main hands the command line the version the build stamps (-ldflags
// "-X main.version=...", as the Dockerfile does), and its exit codes
// reach the process: 2 for a usage error, 1 for any other.
func TestMainStampsVersionAndExits(t *testing.T) {
	replymock := func(version, args string) (stdout, stderr string, code int) {
		t.Helper()
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "REPLYMOCK_TEST_MAIN_ARGS="+args, "REPLYMOCK_TEST_VERSION="+version)
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			code = ee.ExitCode()
		case err != nil:
			t.Fatalf("replymock %s: %v", args, err)
		}
		return out.String(), errOut.String(), code
	}
	if out, _, code := replymock("1.2.3", "version"); out != "replymock 1.2.3\n" || code != 0 {
		t.Errorf("version stamped 1.2.3: %q, exit %d; want \"replymock 1.2.3\\n\", exit 0", out, code)
	}
	if out, _, code := replymock("1.2.3", "--version"); out != "replymock 1.2.3\n" || code != 0 {
		t.Errorf("--version stamped 1.2.3: %q, exit %d", out, code)
	}
	if out, _, code := replymock("", "version"); !strings.HasPrefix(out, "replymock devel") || code != 0 {
		t.Errorf("version unstamped: %q, exit %d; want the build info's devel", out, code)
	}
	if out, errOut, code := replymock("", "--help"); code != 0 || errOut != "" || !strings.HasPrefix(out, "usage: replymock") {
		t.Errorf("--help: exit %d, stdout %q, stderr %q; want exit 0 and the usage on stdout", code, out, errOut)
	}
	if _, errOut, code := replymock("", "frobnicate"); code != 2 || !strings.Contains(errOut, `unknown command "frobnicate"`) {
		t.Errorf("an unknown command: exit %d, stderr %q; want exit 2 saying so", code, errOut)
	}
	if _, errOut, code := replymock("", "validate /no/such/file.yaml"); code != 1 || !strings.Contains(errOut, "/no/such/file.yaml") {
		t.Errorf("validate of a missing file: exit %d, stderr %q; want exit 1 naming it", code, errOut)
	}
}
