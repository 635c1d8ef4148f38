package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// TestStoreFlagAndEnv: --store and REPLYMOCK_STORE take memory or a
// Redis URL; anything else is a usage error (exit 2) that shows the
// URL's password nowhere. Each run is given a --scenarios folder that is
// not there, a usage error checked after --store: a store taken reaches
// it, and no server starts, nor connects.
func TestStoreFlagAndEnv(t *testing.T) {
	const pw = "s3cret-PW"
	guard := []string{"--scenarios", filepath.Join(t.TempDir(), "none")}
	const good = "redis://app:" + pw + "@redis.test:6379/1"
	type flagEnv struct {
		args []string
		env  map[string]string
	}
	// both is bad given by the flag, then by the environment variable.
	both := func(bad string) []flagEnv {
		return []flagEnv{
			{[]string{"--store", bad}, nil},
			{nil, map[string]string{"REPLYMOCK_STORE": bad}},
		}
	}
	refused := []struct {
		given flagEnv
		want  string
	}{
		{flagEnv{[]string{"--store", ""}, nil}, "is empty"},
		{flagEnv{[]string{"--store", " \t"}, nil}, "is empty"},
		{flagEnv{nil, map[string]string{"REPLYMOCK_STORE": " "}}, "is empty"},
		{flagEnv{[]string{"--store", good}, map[string]string{"REPLYMOCK_STATE_DIR": t.TempDir()}}, "--store and --state-dir both keep the state"},
		// The flag, given, is what counts.
		{flagEnv{[]string{"--store", "http://:" + pw + "@redis.test/0"}, map[string]string{"REPLYMOCK_STORE": "memory"}}, "must be memory"},
	}
	for _, bad := range []struct{ url, want string }{
		{"Memory", "must be memory"},
		{"redis", "must be memory"},
		{"redis.test:6379", "must be memory"},
		{"http://:" + pw + "@redis.test:6379/0", "must be memory"},
		{"redis+sentinel://:" + pw + "@redis.test:26379/mymaster", "must be memory"},
		{"unix://:" + pw + "@/run/redis.sock", "must be memory"},
		{"redis://:" + pw + "@/0", "no host"},
		{"redis://:" + pw + "@:6379/0", "no host"},
		{"redis://:" + pw + "@redis.test:70000/0", "the port"},
		{"redis://:" + pw + "@redis.test:6379/-1", "the database"},
		{"redis://:" + pw + "@redis.test:6379/x", "the database"},
		{"redis://:" + pw + "@redis.test:6379/0/1", "the database"},
		{"redis://:" + pw + "@redis.test:6379/" + pw, "the database"},
		{"redis://:" + pw + "@redis.test:6379/0?db=" + pw, "no query"},
		{"rediss://:" + pw + "@redis.test:6379/0?skip_verify=true", "no query"},
		{"redis://app:/" + pw + "@redis.test:6379/0", "the database"}, // a password's / not encoded
		{"redis://app:1?" + pw + "@redis.test:6379/0", "no query"},    // nor its ?
		{"redis://app:" + pw + "%zz@redis.test:6379/0", "must be memory"},
	} {
		for _, g := range both(bad.url) {
			refused = append(refused, struct {
				given flagEnv
				want  string
			}{g, bad.want})
		}
	}
	for _, tc := range refused {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), append(guard, tc.given.args...), env(tc.given.env), &stdout, &stderr)
		if err == nil {
			t.Fatalf("%q %v: served", tc.given.args, tc.given.env)
		}
		if !errors.As(err, new(usageError)) || exitCode(err) != 2 {
			t.Errorf("%q %v: %v (exit %d), want a usage error (exit 2)", tc.given.args, tc.given.env, err, exitCode(err))
		}
		if msg := err.Error(); !strings.Contains(msg, "--store") || !strings.Contains(msg, tc.want) {
			t.Errorf("%q %v: %q, want --store and %q", tc.given.args, tc.given.env, msg, tc.want)
		}
		if out := err.Error() + stdout.String() + stderr.String(); strings.Contains(out, pw) || strings.Contains(out, "redis.test") {
			t.Errorf("%q %v: the URL is shown: %q", tc.given.args, tc.given.env, out)
		}
	}

	accepted := []struct {
		given flagEnv
		store string // Options.Store
	}{
		{flagEnv{}, "memory"},
		{flagEnv{[]string{"--store", "memory"}, nil}, "memory"},
		{flagEnv{[]string{"--store", " memory\n"}, nil}, "memory"},
		{flagEnv{nil, map[string]string{"REPLYMOCK_STORE": "memory"}}, "memory"},
		{flagEnv{nil, map[string]string{"REPLYMOCK_STORE": ""}}, "memory"}, // set but empty: as unset, like every variable
		{flagEnv{[]string{"--store", good}, nil}, good},
		{flagEnv{[]string{"--store", " " + good + " "}, nil}, good},
		{flagEnv{nil, map[string]string{"REPLYMOCK_STORE": good}}, good},
		{flagEnv{[]string{"--store", "rediss://redis.test"}, nil}, "rediss://redis.test"},
		{flagEnv{[]string{"--store", "memory"}, map[string]string{"REPLYMOCK_STORE": "redis://:" + pw + "@/0"}}, "memory"},
		{flagEnv{[]string{"--store", "memory", "--state-dir", t.TempDir()}, nil}, "memory"},
	}
	for _, tc := range accepted {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), append(guard, tc.given.args...), env(tc.given.env), &stdout, &stderr)
		if err == nil {
			t.Fatalf("%q %v: served", tc.given.args, tc.given.env)
		}
		if msg := err.Error(); exitCode(err) != 2 || !strings.HasPrefix(msg, "--scenarios:") {
			t.Errorf("%q %v: %q, want the --scenarios folder's usage error (the store taken)", tc.given.args, tc.given.env, msg)
		}
		if out := err.Error() + stdout.String() + stderr.String(); strings.Contains(out, pw) {
			t.Errorf("%q %v: the password is shown: %q", tc.given.args, tc.given.env, out)
		}
		var cfg config
		fsys := cfg.flagSet("serve", io.Discard)
		if err := applyEnv(fsys, env(tc.given.env)); err != nil {
			t.Fatal(err)
		}
		if err := fsys.Parse(tc.given.args); err != nil {
			t.Fatal(err)
		}
		level, err := cfg.check(fsys, env(tc.given.env))
		if err != nil {
			t.Fatalf("%q %v: %v", tc.given.args, tc.given.env, err)
		}
		if got := cfg.options(level, io.Discard).Store; got != tc.store {
			t.Errorf("%q %v: Options.Store = %q, want %q", tc.given.args, tc.given.env, got, tc.store)
		}
	}
}
