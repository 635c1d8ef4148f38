package cli

import (
	"flag"
	"io"
	"maps"
	"os"
	"regexp"
	"slices"
	"testing"
)

// The flags tables of this folder's README name every flag of the
// server and of replymock mcp, each with its environment variable, and no other.
func TestReadmeListsEveryFlag(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, m := range regexp.MustCompile("(?m)^\\| `--([a-z-]+)` \\| (?:`(REPLYMOCK_[A-Z_]+)`)? *\\|").FindAllStringSubmatch(string(b), -1) {
		rows[m[1]] = m[2]
	}
	want := map[string]string{}
	for _, cmd := range []string{"serve", "mcp"} { // mcp has --url of its own
		(&config{}).flagSet(cmd, io.Discard).VisitAll(func(f *flag.Flag) {
			want[f.Name] = envName(f.Name)
		})
	}
	if _, ok := rows["version"]; ok {
		want["version"] = "" // the command line's alone
	}
	if !maps.Equal(rows, want) {
		t.Errorf("README.md's flags table lists %v;\nthe server has %v", slices.Sorted(maps.Keys(rows)), slices.Sorted(maps.Keys(want)))
		for name, env := range want {
			if got, ok := rows[name]; ok && got != env {
				t.Errorf("README.md: --%s's variable is %q, want %q", name, got, env)
			}
		}
	}
}
