package mock_test

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The shape issue 23 asks of the code, checked on every run: packages,
// files and functions of a size a newcomer can read, and imports that go
// one way, as mock/README.md's package table declares them. What is over
// a bound today is listed below with why, and the list only shrinks: an
// entry that fits again fails the test until it is struck out.
const (
	maxPackageLines  = 3500
	maxFileLines     = 600
	maxFuncLines     = 80
	maxServerFields  = 15
	modulePath       = "github.com/replymock/replymock"
	packageTableHead = "| package | owns | imports within the module |"
)

// overBounds names what is over a bound, by package directory, file or
// function (file.go:Func, with the receiver type for methods), and why.
var overBounds = map[string]string{}

type sourceFile struct {
	rel   string // from the repository's root, with slashes
	lines int
	ast   *ast.File
	fset  *token.FileSet
}

// moduleSources parses the non-test Go files of the repository, but for
// testdata and the folders Go ignores.
func moduleSources(t *testing.T) []sourceFile {
	t.Helper()
	var out []sourceFile
	root := ".."
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		out = append(out, sourceFile{rel: filepath.ToSlash(rel), lines: strings.Count(string(src), "\n"), ast: f, fset: fset})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCodeShape(t *testing.T) {
	over := map[string]string{}
	pkgLines := map[string]int{}
	serverFields := -1
	for _, f := range moduleSources(t) {
		dir := path.Dir(f.rel)
		pkgLines[dir] += f.lines
		if f.lines > maxFileLines {
			over[f.rel] = fmt.Sprintf("%d lines, over %d", f.lines, maxFileLines)
		}
		for _, decl := range f.ast.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Body == nil {
					continue
				}
				n := f.fset.Position(d.End()).Line - f.fset.Position(d.Pos()).Line + 1
				if n > maxFuncLines {
					over[f.rel+":"+funcName(d)] = fmt.Sprintf("%d lines, over %d", n, maxFuncLines)
				}
			case *ast.GenDecl:
				if dir != "mock" {
					continue
				}
				for _, sp := range d.Specs {
					if ts, ok := sp.(*ast.TypeSpec); ok && ts.Name.Name == "Server" {
						serverFields = 0
						for _, fl := range ts.Type.(*ast.StructType).Fields.List {
							serverFields += max(len(fl.Names), 1)
						}
					}
				}
			}
		}
	}
	for dir, n := range pkgLines {
		if n > maxPackageLines {
			over[dir] = fmt.Sprintf("%d lines, over %d", n, maxPackageLines)
		}
	}
	if serverFields < 0 {
		t.Fatal("no type Server in package mock")
	}
	if serverFields > maxServerFields {
		over["mock.Server"] = fmt.Sprintf("%d fields, over %d", serverFields, maxServerFields)
	}
	for _, k := range slices.Sorted(mapKeys(over)) {
		if _, ok := overBounds[k]; !ok {
			t.Errorf("%s: %s (split it; a file may stay over only with a comment saying why, listed in overBounds)", k, over[k])
		}
	}
	for _, k := range slices.Sorted(mapKeys(overBounds)) {
		if _, ok := over[k]; !ok {
			t.Errorf("%s fits its bound now: strike it out of overBounds", k)
		}
	}
}

func funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	typ := d.Recv.List[0].Type
	if st, ok := typ.(*ast.StarExpr); ok {
		typ = st.X
	}
	if ix, ok := typ.(*ast.IndexExpr); ok {
		typ = ix.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + d.Name.Name
	}
	return d.Name.Name
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// Imports go one way: each package imports, within the module, only what
// mock/README.md's package table says it may, and the table names every
// package there is.
func TestImportsFollowThePackageTable(t *testing.T) {
	allowed := packageTable(t)
	seen := map[string]bool{}
	for _, f := range moduleSources(t) {
		dir := path.Dir(f.rel)
		seen[dir] = true
		may, ok := allowed[dir]
		if !ok {
			continue // reported once below
		}
		for _, im := range f.ast.Imports {
			p := strings.Trim(im.Path.Value, `"`)
			if p != modulePath && !strings.HasPrefix(p, modulePath+"/") {
				continue
			}
			to := strings.TrimPrefix(strings.TrimPrefix(p, modulePath), "/")
			if to == "" {
				to = "."
			}
			if !slices.Contains(may, to) {
				t.Errorf("%s imports %s, which mock/README.md's package table does not allow %s", f.rel, to, dir)
			}
		}
	}
	for dir := range seen {
		if _, ok := allowed[dir]; !ok {
			t.Errorf("mock/README.md's package table does not name %s", dir)
		}
	}
	for dir := range allowed {
		if !seen[dir] {
			t.Errorf("mock/README.md's package table names %s, which holds no Go source", dir)
		}
	}
}

// packageTable reads mock/README.md's table: each package's directory
// and the directories it may import ("none" for none).
func packageTable(t *testing.T) map[string][]string {
	t.Helper()
	fh, err := os.Open("README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	out := map[string][]string{}
	in := false
	code := regexp.MustCompile("`([^`]+)`")
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == packageTableHead:
			in = true
		case in && !strings.HasPrefix(line, "|"):
			in = false
		case in && !strings.HasPrefix(line, "|---"):
			cells := strings.Split(line, "|")
			if len(cells) < 5 {
				t.Fatalf("mock/README.md: a package table row without its three cells: %s", line)
			}
			m := code.FindStringSubmatch(cells[1])
			if m == nil {
				t.Fatalf("mock/README.md: a package table row without a `package`: %s", line)
			}
			var may []string
			for _, c := range code.FindAllStringSubmatch(cells[3], -1) {
				may = append(may, c[1])
			}
			out[m[1]] = may
		}
	}
	if len(out) == 0 {
		t.Fatalf("mock/README.md has no package table (a line %q)", packageTableHead)
	}
	return out
}
