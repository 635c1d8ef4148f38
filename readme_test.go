package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README's Layout section names every source file: a newcomer finds
// each one there with what it owns. Data folders (scenarios, fixtures,
// golden files, fuzz cases) are named as folders.
func TestReadmeLayoutListsEveryFile(t *testing.T) {
	_, after, ok := strings.Cut(readFile(t, "README.md"), "\n### Layout\n")
	if !ok {
		t.Fatal("README.md has no ### Layout section")
	}
	section, _, _ := strings.Cut(after, "\n### ")
	parts := strings.Split(section, "```")
	if len(parts) < 3 {
		t.Fatal("README Layout has no code block")
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^(\S+)`).FindAllStringSubmatch(parts[1], -1) {
		listed[m[1]] = true
	}
	dataFolders := []string{"scenarios/", "fixtures/phrases/", "fixtures/reviews/", "fixtures/settings/", "mock/testdata/", "mock/ui/"}
	for _, d := range dataFolders {
		if !listed[d] {
			t.Errorf("README Layout does not name the folder %s", d)
		}
	}
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (strings.HasPrefix(d.Name(), ".") && d.Name() != ".ci" || d.Name() == "artifacts") {
				return filepath.SkipDir
			}
			return nil
		}
		if p == ".git" {
			return nil // a linked worktree's pointer to its repository
		}
		p = filepath.ToSlash(p)
		if p == ".git" {
			return nil // a git worktree's pointer to its repository
		}
		for _, dir := range dataFolders {
			if strings.HasPrefix(p, dir) && !strings.HasSuffix(p, ".go") {
				return nil
			}
		}
		if !listed[p] {
			t.Errorf("README Layout does not list %s", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for p := range listed {
		if strings.HasSuffix(p, "/") {
			continue
		}
		if _, err := os.Stat(p); err != nil {
			t.Errorf("README Layout lists %s, which does not exist", p)
		}
	}
}

// The README's Go snippet is mocktest's ExampleNew, line for line, with
// the example's stand-in for *testing.T and its printing left out.
func TestReadmeGoSnippetIsExampleNew(t *testing.T) {
	_, after, ok := strings.Cut(readFile(t, "README.md"), "func TestClientRetries(t *testing.T) {\n")
	if !ok {
		t.Fatal("README.md has no func TestClientRetries")
	}
	snippet, _, _ := strings.Cut(after, "\n}\n```")
	_, body, ok := strings.Cut(readFile(t, "mock/mocktest/example_test.go"), "func ExampleNew() {\n")
	if !ok {
		t.Fatal("mock/mocktest/example_test.go has no ExampleNew")
	}
	body, _, _ = strings.Cut(body, "\t// Output:")
	_, body, _ = strings.Cut(body, "defer t.finish()\n\n")
	body = strings.ReplaceAll(body, "fmt.Println(", "t.Log(")
	if strings.TrimSpace(body) != strings.TrimSpace(snippet) {
		t.Errorf("README's TestClientRetries differs from ExampleNew:\nREADME:\n%s\nExampleNew:\n%s", snippet, body)
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
