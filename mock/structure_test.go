package mock_test

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Hard limits of TestCodeShape. Anything below them is only reported:
// a size is a reason to look, not a reason to squeeze code.
const (
	maxFileLines = 1000
	maxFuncLines = 150
	modulePath   = "github.com/replymock/replymock"
)

type sourceFile struct {
	rel  string // from the repository's root, with slashes
	pkg  string // the package's directory, with slashes
	name string // the package's name
	size int    // lines
	ast  *ast.File
	fset *token.FileSet
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
		f, err := parser.ParseFile(fset, p, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		out = append(out, sourceFile{rel: rel, pkg: path.Dir(rel), name: f.Name.Name,
			size: strings.Count(string(src), "\n"), ast: f, fset: fset})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

type sized struct {
	name  string
	lines int
}

// TestCodeShape reports the largest packages, files and functions (run
// with -v to see them). It fails only on a file over maxFileLines or a
// function over maxFuncLines: split those by what they do.
func TestCodeShape(t *testing.T) {
	pkgLines := map[string]int{}
	var files, funcs []sized
	for _, f := range moduleSources(t) {
		pkgLines[f.pkg] += f.size
		files = append(files, sized{f.rel, f.size})
		if f.size > maxFileLines {
			t.Errorf("%s: %d lines, over %d: split it by what it does", f.rel, f.size, maxFileLines)
		}
		for _, decl := range f.ast.Decls {
			d, ok := decl.(*ast.FuncDecl)
			if !ok || d.Body == nil {
				continue
			}
			n := f.fset.Position(d.End()).Line - f.fset.Position(d.Pos()).Line + 1
			name := f.rel + ":" + funcName(d)
			funcs = append(funcs, sized{name, n})
			if n > maxFuncLines {
				t.Errorf("%s: %d lines, over %d: split it by what it does", name, n, maxFuncLines)
			}
		}
	}
	var pkgs []sized
	for p, n := range pkgLines {
		pkgs = append(pkgs, sized{p, n})
	}
	report(t, "packages", pkgs)
	report(t, "files", files)
	report(t, "functions", funcs)
}

// report logs the ten largest of list.
func report(t *testing.T, what string, list []sized) {
	slices.SortFunc(list, func(a, b sized) int {
		return cmp.Or(b.lines-a.lines, strings.Compare(a.name, b.name))
	})
	var b strings.Builder
	fmt.Fprintf(&b, "the largest %s (non-test lines):\n", what)
	for _, s := range list[:min(10, len(list))] {
		fmt.Fprintf(&b, "%6d  %s\n", s.lines, s.name)
	}
	t.Log(b.String())
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

// importRule is a direction imports within the module must not take.
type importRule struct {
	why string
	// breaks reports whether package from (a directory, with its
	// package name) importing to (a directory, or an outside path)
	// breaks the rule.
	breaks func(from sourceFile, to string) bool
}

// importRules keep the layers apart. Go already refuses cycles; these
// say which way the layers go.
var importRules = []importRule{
	{
		why: "only the facade wires the fleet: the API and the admin API know nothing of Redis",
		breaks: func(from sourceFile, to string) bool {
			fleet := to == "mock/internal/fleet" || strings.HasPrefix(to, "github.com/redis/")
			return fleet && from.pkg != "mock" && from.pkg != "mock/internal/fleet"
		},
	},
	{
		why: "the state folder is kept behind the session store: the handlers never write it",
		breaks: func(from sourceFile, to string) bool {
			handler := from.pkg == "mock/internal/api" || from.pkg == "mock/internal/admin"
			return handler && to == "mock/internal/statedir"
		},
	},
	{
		why: "packages under mock/internal sit below the facade; only commands and test helpers use it",
		breaks: func(from sourceFile, to string) bool {
			below := strings.HasPrefix(from.pkg, "mock/internal/") && from.name != "main" && !strings.HasSuffix(from.name, "test")
			above := to == "mock" || to == "mock/cli" || to == "mock/record" || to == "mock/mocktest"
			return below && above
		},
	},
	{
		why: "the probe is an oracle of the contract: it imports nothing of the module but its client",
		breaks: func(from sourceFile, to string) bool {
			probe := from.pkg == "mock/probe" || from.pkg == "mock/probe/upstream"
			return probe && inModule(to) && to != "mock/probe/upstream"
		},
	},
	{
		why: "these packages are the ground the others stand on: they import nothing of the module",
		breaks: func(from sourceFile, to string) bool {
			leaf := from.pkg == "mock/internal/wire" || from.pkg == "mock/internal/budget" ||
				from.pkg == "mock/internal/reviews" || from.pkg == "mock/npm"
			return leaf && inModule(to)
		},
	},
}

// importsOf gives f's imports: the module's as directories from its
// root ("." for the root), the others as they are.
func importsOf(f sourceFile) []string {
	var out []string
	for _, im := range f.ast.Imports {
		p := strings.Trim(im.Path.Value, `"`)
		switch {
		case p == modulePath:
			p = "."
		case strings.HasPrefix(p, modulePath+"/"):
			p = strings.TrimPrefix(p, modulePath+"/")
		}
		out = append(out, p)
	}
	return out
}

// inModule reports whether an import path, as importsOf gives it, is
// one of the module's packages: the module's own start with mock,
// fixtures or scenarios, or are the root.
func inModule(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return p == "." || first == "mock" || first == "fixtures" || first == "scenarios"
}

func TestImportRules(t *testing.T) {
	for _, f := range moduleSources(t) {
		for _, to := range importsOf(f) {
			for _, r := range importRules {
				if r.breaks(f, to) {
					t.Errorf("%s imports %s: %s", f.rel, to, r.why)
				}
			}
		}
	}
}

// The package map of mock/README.md is made from the package comments:
// each package's first sentence. `go test ./mock -run TestPackageMap
// -update` writes it again.
const (
	packageMapDoc   = "README.md"
	packageMapStart = "<!-- package map: made by TestPackageMap -update -->"
	packageMapEnd   = "<!-- end of package map -->"
)

func TestPackageMap(t *testing.T) {
	synopsis := map[string]string{}
	for _, f := range moduleSources(t) {
		if f.ast.Doc == nil {
			continue
		}
		text := new(doc.Package).Synopsis(f.ast.Doc.Text())
		command := path.Base(f.pkg)
		if f.pkg == "." {
			command = "replymock"
		}
		for _, prefix := range []string{"Package " + f.name + " ", "Command " + command + " "} {
			text = strings.TrimPrefix(text, prefix)
		}
		synopsis[f.pkg] = strings.TrimSuffix(text, ".")
	}
	var b strings.Builder
	b.WriteString(packageMapStart + "\n\n| package | what it is |\n|---|---|\n")
	for _, f := range moduleSources(t) {
		if _, done := synopsis[f.pkg]; !done && f.pkg != "." {
			t.Errorf("%s has no package comment: say in a sentence what the package is", f.pkg)
			synopsis[f.pkg] = "" // said once
		}
	}
	for _, p := range slices.Sorted(mapKeys(synopsis)) {
		fmt.Fprintf(&b, "| `%s` | %s |\n", p, synopsis[p])
	}
	b.WriteString("\n" + packageMapEnd)
	want := b.String()

	readme, err := os.ReadFile(packageMapDoc)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok1 := strings.Cut(string(readme), packageMapStart)
	_, after, ok2 := strings.Cut(rest, packageMapEnd)
	if !ok1 || !ok2 {
		t.Fatalf("mock/%s has no package map between %q and %q", packageMapDoc, packageMapStart, packageMapEnd)
	}
	if got := packageMapStart + strings.SplitAfter(rest, packageMapEnd)[0]; got == want {
		return
	}
	if *update {
		if err := os.WriteFile(packageMapDoc, []byte(before+want+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("mock/%s's package map differs from the package comments: run go test ./mock -run TestPackageMap -update", packageMapDoc)
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
