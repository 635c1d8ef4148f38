package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The layout of the repository is a code block under this heading of
// this file, a path from the repository's root at the start of each line.
const (
	layoutDoc     = "mock/README.md"
	layoutHeading = "## Layout"
)

// The README's Layout section names every file of the repository: a
// newcomer finds each one there with what it owns. Data folders
// (scenarios, fixtures, golden files, fuzz cases) are named as folders.
// What is not the repository's (a demo's state folder, npm's packages,
// a built binary: whatever .gitignore leaves out) is not listed.
func TestReadmeLayoutListsEveryFile(t *testing.T) {
	section, ok := markdownSection(readFile(t, layoutDoc), layoutHeading)
	if !ok {
		t.Fatalf("%s has no %s section", layoutDoc, layoutHeading)
	}
	parts := strings.Split(section, "```")
	if len(parts) < 3 {
		t.Fatalf("%s: %s has no code block", layoutDoc, layoutHeading)
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^(\S+)`).FindAllStringSubmatch(parts[1], -1) {
		listed[m[1]] = true
	}
	dataFolders := []string{"scenarios/", "fixtures/phrases/", "fixtures/reviews/", "fixtures/settings/", "mock/testdata/", "mock/ui/", "mock/internal/media/files/"}
	for _, d := range dataFolders {
		if !listed[d] {
			t.Errorf("%s: %s does not name the folder %s", layoutDoc, layoutHeading, d)
		}
	}
files:
	for _, p := range repositoryFiles(t) {
		for _, dir := range dataFolders {
			if strings.HasPrefix(p, dir) && !strings.HasSuffix(p, ".go") {
				continue files
			}
		}
		if !listed[p] {
			t.Errorf("%s: %s does not list %s", layoutDoc, layoutHeading, p)
		}
	}
	for p := range listed {
		if strings.HasSuffix(p, "/") {
			continue
		}
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %s lists %s, which does not exist", layoutDoc, layoutHeading, p)
		}
	}
}

// markdownSection returns the text under heading, up to the next heading
// of its level or above (a line in a code block is not a heading).
func markdownSection(doc, heading string) (string, bool) {
	level := len(heading) - len(strings.TrimLeft(heading, "#"))
	var out []string
	in, fenced := false, false
	for line := range strings.Lines(doc) {
		line = strings.TrimSuffix(line, "\n")
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if !fenced && strings.HasPrefix(line, "#") {
			hashes := len(line) - len(strings.TrimLeft(line, "#"))
			switch {
			case line == heading:
				in = true
				continue
			case in && hashes <= level && strings.HasPrefix(line[hashes:], " "):
				return strings.Join(out, "\n"), true
			}
		}
		if in {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n"), in
}

// repositoryFiles lists the repository's files, as slash paths from its
// root: those git tracks and those it would add (the work tree's new
// files, less what .gitignore leaves out), each one still on disk.
// Without git, or outside a git work tree (a source archive), it walks
// the tree, leaving out what the .gitignore files name.
func repositoryFiles(t *testing.T) []string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		return walkHonouringGitignore(t)
	}
	if _, err := os.Stat(".git"); errors.Is(err, fs.ErrNotExist) {
		return walkHonouringGitignore(t)
	}
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files, to list the repository's files: %v\n%s", err, stderr.String())
	}
	var files []string
	seen := map[string]bool{}
	for p := range strings.SplitSeq(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if seen[p] {
			continue
		}
		seen[p] = true
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the work tree, not yet in the index
		}
		files = append(files, p)
	}
	if len(files) == 0 {
		t.Fatal("git ls-files lists no files")
	}
	return files
}

// ignoreRule is one line of a .gitignore, in the subset of their syntax
// that walkHonouringGitignore reads.
type ignoreRule struct {
	dir     string // the folder of its .gitignore, "" for the root
	pattern string // a path.Match pattern
	rooted  bool   // it holds a slash: matched against the path from dir, not a name
	dirOnly bool   // it ends in a slash: folders only
}

func (r ignoreRule) matches(p string, isDir bool) bool {
	if r.dirOnly && !isDir {
		return false
	}
	rel := p
	if r.dir != "" {
		var ok bool
		if rel, ok = strings.CutPrefix(p, r.dir+"/"); !ok {
			return false
		}
	}
	if !r.rooted {
		rel = path.Base(rel)
	}
	ok, _ := path.Match(r.pattern, rel)
	return ok
}

// walkHonouringGitignore lists the files under the working directory, as
// repositoryFiles does, leaving out .git and what the .gitignore files
// name. It reads comments, blank lines, globs, a leading or inner slash
// (a path from the file's folder) and a trailing one (folders only); a
// .gitignore with other syntax (negation, "**", escapes) fails the test
// rather than be read wrong.
func walkHonouringGitignore(t *testing.T) []string {
	t.Helper()
	var rules []ignoreRule
	var files []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		p = filepath.ToSlash(p)
		if d.Name() == ".git" {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil // a linked worktree's pointer to its repository
		}
		for _, r := range rules {
			if r.matches(p, d.IsDir()) {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
		}
		if !d.IsDir() {
			files = append(files, p)
			return nil
		}
		dir := p
		if p == "." {
			dir = ""
		}
		b, err := os.ReadFile(path.Join(p, ".gitignore"))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		for line := range strings.Lines(string(b)) {
			line = strings.TrimRight(line, " \r\n")
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			if strings.HasPrefix(line, "!") || strings.Contains(line, "**") || strings.Contains(line, "\\") {
				return fmt.Errorf("%s: %q: without git, this test reads no negation, \"**\" or escape", path.Join(p, ".gitignore"), line)
			}
			r := ignoreRule{dir: dir}
			line, r.dirOnly = strings.CutSuffix(line, "/")
			r.rooted = strings.Contains(line, "/")
			r.pattern = strings.TrimPrefix(line, "/")
			rules = append(rules, r)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("listing the repository's files without git: %v", err)
	}
	return files
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
