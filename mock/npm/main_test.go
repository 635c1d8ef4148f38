package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The package for this machine's platform is built as npm would install
// it: the binary has the package's version stamped and runs; the package
// names its os and cpu; the replymock package is its sources, with the
// same package.json. (CI builds and installs every platform's:
// mock/npm/test/e2e.test.mjs.)
func TestBuildsThisPlatform(t *testing.T) {
	i := slices.IndexFunc(platforms, func(p platform) bool { return p.goos == runtime.GOOS && p.arch == runtime.GOARCH })
	if i < 0 {
		t.Skipf("no npm package is built for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	p := platforms[i]
	out := t.TempDir()
	var log bytes.Buffer
	if err := run([]string{"-out", out, "-platforms", p.dir()}, &log, &log); err != nil {
		t.Fatalf("build: %v\n%s", err, log.String())
	}
	m, err := readManifest("replymock/package.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := exec.Command(filepath.Join(out, p.dir(), "bin", p.binary()), "--version").Output()
	if err != nil {
		t.Fatalf("the built binary: %v", err)
	}
	if want := "replymock " + m.Version + "\n"; string(got) != want {
		t.Errorf("the built binary says %q, want %q", got, want)
	}
	pm := readFile(t, filepath.Join(out, p.dir(), "package.json"))
	for _, want := range []string{`"name": "` + p.name() + `"`, `"version": "` + m.Version + `"`,
		`"os": [` + "\n    \"" + p.os + `"`, `"cpu": [` + "\n    \"" + p.cpu + `"`} {
		if !strings.Contains(pm, want) {
			t.Errorf("%s's package.json has no %s:\n%s", p.name(), want, pm)
		}
	}
	for _, name := range []string{"package.json", "README.md", "index.cjs", "index.mjs", "index.d.cts", "index.d.mts",
		"bin/replymock.js", "lib/binary.cjs", "types/api.d.ts", "types/admin.d.ts"} {
		if readFile(t, filepath.Join(out, "replymock", name)) != readFile(t, filepath.Join("replymock", name)) {
			t.Errorf("the built replymock package's %s differs from mock/npm/replymock/%s", name, name)
		}
	}
	if others, _ := filepath.Glob(filepath.Join(out, "*-*")); len(others) != 1 {
		t.Errorf("-platforms %s built %v", p.dir(), others)
	}
}

// mock/npm/replymock/package.json is as this program writes it, names
// every platform package at its version, and has no field the program
// would drop (an install script among them: there is none).
func TestManifest(t *testing.T) {
	m, err := readManifest("replymock/package.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.check(); err != nil {
		t.Error(err)
	}
	dir := t.TempDir()
	if err := writeJSON(filepath.Join(dir, "package.json"), m); err != nil {
		t.Fatal(err)
	}
	if readFile(t, filepath.Join(dir, "package.json")) != readFile(t, "replymock/package.json") {
		t.Error("mock/npm/replymock/package.json is not as go run ./mock/npm -set-version writes it: run that")
	}
	os.WriteFile(filepath.Join(dir, "scripts.json"), []byte(`{"name":"replymock","scripts":{"postinstall":"node get.js"}}`), 0o644)
	if _, err := readManifest(filepath.Join(dir, "scripts.json")); err == nil || !strings.Contains(err.Error(), `unknown field "scripts"`) {
		t.Errorf("a manifest with scripts: %v, want it refused", err)
	}
	bad := *m
	bad.OptionalDependencies = map[string]string{"@replymock/linux-x64": "0.0.1", "@replymock/plan9-x64": m.Version}
	err = bad.check()
	for _, want := range []string{"must name @replymock/darwin-arm64 at " + m.Version + ` (the package's version), got ""`,
		"must name @replymock/linux-x64 at " + m.Version + ` (the package's version), got "0.0.1"`, "names @replymock/plan9-x64, which is no platform",
		"go run ./mock/npm -set-version " + m.Version} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("check of wrong optional dependencies: %v; want it to say %s", err, want)
		}
	}
}

// -set-version writes the version into the package and its optional
// dependencies, in a copy of the repository's files; a version npm would
// refuse is refused.
func TestSetVersion(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, wrapperDir), 0o755)
	os.WriteFile(filepath.Join(root, "go.mod"), []byte("module "+modulePath+"\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(root, wrapperDir, "package.json"), []byte(readFile(t, "replymock/package.json")), 0o644)
	t.Chdir(filepath.Join(root, "mock"))
	var log bytes.Buffer
	if err := run([]string{"-set-version", "0.2.0-rc.1"}, &log, &log); err != nil {
		t.Fatal(err, log.String())
	}
	m, err := readManifest(filepath.Join(root, wrapperDir, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.check(); err != nil || m.Version != "0.2.0-rc.1" {
		t.Errorf("after -set-version 0.2.0-rc.1: version %s, %v", m.Version, err)
	}
	for _, v := range []string{"v0.2.0", "0.2", "01.2.3", "0.2.0 "} {
		if err := run([]string{"-set-version", v}, &log, &log); err == nil {
			t.Errorf("-set-version %q was taken", v)
		}
	}
	if err := run([]string{"-platforms", "plan9-x64"}, &log, &log); err == nil || !strings.Contains(err.Error(), "there are darwin-arm64, darwin-x64, linux-arm64, linux-x64, win32-x64") {
		t.Errorf("-platforms plan9-x64: %v", err)
	}
}

// The JavaScript side looks for the same packages this program builds.
func TestBinaryLookupNamesThePlatforms(t *testing.T) {
	src := readFile(t, "replymock/lib/binary.cjs")
	var want, got []string
	for _, p := range platforms {
		want = append(want, p.os+" "+p.cpu+" "+p.name())
	}
	for _, m := range regexp.MustCompile(`"(\w+) (\w+)": "(@replymock/[\w-]+)"`).FindAllStringSubmatch(src, -1) {
		got = append(got, m[1]+" "+m[2]+" "+m[3])
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("lib/binary.cjs's platforms are %q, the build's %q", got, want)
	}
}

// The example's README shows the Vitest and Playwright files CI runs.
func TestReadmeExamplesAreTheTestedFiles(t *testing.T) {
	readme := readFile(t, "example/README.md")
	blocks := regexp.MustCompile("(?s)```ts title=\"mock/npm/example/([^\"]+)\"\n(.*?)```\n").FindAllStringSubmatch(readme, -1)
	var titles []string
	for _, b := range blocks {
		titles = append(titles, b[1])
		if file := readFile(t, filepath.Join("example", b[1])); b[2] != file {
			t.Errorf("example/README.md's block of mock/npm/example/%s differs from the file:\n%s", b[1], b[2])
		}
	}
	want := []string{"vitest.config.ts", "vitest.setup.ts", "src/reviews.test.ts", "playwright.config.ts", "e2e/global-setup.ts", "e2e/page.spec.ts"}
	if !slices.Equal(titles, want) {
		t.Errorf("example/README.md's example blocks are %q, want %q", titles, want)
	}
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The committed types were made from the OpenAPI documents as they are:
// types.sha256 holds the documents' sums when the types were last made
// (the npm test compares the types themselves, in CI's npm stage; this
// fails in go test, at once, when a document changes alone).
func TestTypesFollowTheDocuments(t *testing.T) {
	typesOf := map[string]string{"mock/openapi.yaml": "api.d.ts", "mock/admin-openapi.yaml": "admin.d.ts"}
	var docs []string
	for _, line := range strings.Split(strings.TrimSpace(readFile(t, "types.sha256")), "\n") {
		sum, doc, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("types.sha256: %q is not a sum and a path", line)
		}
		docs = append(docs, doc)
		if got := fmt.Sprintf("%x", sha256.Sum256([]byte(readFile(t, filepath.Join("..", "..", doc))))); got != sum {
			types := typesOf[doc]
			t.Errorf("%s changed since mock/npm/replymock/types/%s was made from it: regenerate it with "+
				"(cd mock/npm/example && npm install && npx openapi-typescript ../../../%s -o ../replymock/types/%s), "+
				"then write its sum into mock/npm/types.sha256 (sha256sum %s)", doc, types, doc, types, doc)
		}
	}
	if want := slices.Sorted(maps.Keys(typesOf)); !slices.Equal(slices.Sorted(slices.Values(docs)), want) {
		t.Errorf("types.sha256 names %q, want each of %q once", docs, want)
	}
}
