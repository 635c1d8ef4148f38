package mock_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/replymock/replymock/fixtures"
	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/scenarios"
)

// countFS counts the opens of each file.
type countFS struct {
	fs.FS
	mu    sync.Mutex
	opens map[string]int
}

func (c *countFS) Open(name string) (fs.File, error) {
	c.mu.Lock()
	c.opens[name]++
	c.mu.Unlock()
	return c.FS.Open(name)
}

func (c *countFS) take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	got := c.opens
	c.opens = make(map[string]int)
	return got
}

// Start-up and each reload read every scenario file exactly once, though
// most of the shipped ones extend default.
func TestEachScenarioFileReadOnce(t *testing.T) {
	files := &countFS{FS: scenarios.FS, opens: make(map[string]int)}
	s := newServer(t, mock.Options{Scenarios: files})
	names, err := fs.Glob(scenarios.FS, "*.yaml")
	if err != nil || len(names) < 10 {
		t.Fatalf("shipped scenarios: %v %v", names, err)
	}
	check := func(when string) {
		t.Helper()
		opens := files.take()
		for _, n := range names {
			if opens[n] != 1 {
				t.Errorf("%s: %s read %d times, want once", when, n, opens[n])
			}
		}
		for n, k := range opens {
			if strings.HasSuffix(n, ".yaml") && !strings.Contains(n, "/") && k > 1 {
				t.Errorf("%s: %s read %d times", when, n, k)
			}
		}
	}
	check("start")
	if err := s.Reload(); err != nil {
		t.Fatal(err)
	}
	check("reload of unchanged files")
	if _, err := mock.ValidateScenarios(mock.Options{Scenarios: files}); err != nil {
		t.Fatal(err)
	}
	check("validate")
}

// secret stands for what a file outside the folders may hold. Were such
// a file read, it would show: the loader quotes a seed or kind it
// rejects.
const secret = "sk-live-4f9c2e-DO-NOT-LEAK"

// lockedBuffer collects a server's logs.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// within runs f and fails the test if it has not returned after 10 s. It
// detects a hang (a named pipe opened waits for a writer for ever); it
// does not measure speed.
func within[T any](t *testing.T, what string, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("%s has not returned after 10 s: it opened a file that blocks (a named pipe)", what)
		panic("unreachable")
	}
}

func openRoot(t *testing.T, dir string) fs.FS {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root.FS()
}

// unsafeEntries are the files made by addUnsafe, with what the problem
// reported for each must say.
var unsafeEntries = map[string]string{
	"leak":    "symbolic link that cannot be followed inside the folder",
	"climb":   "symbolic link that cannot be followed inside the folder",
	"pipe":    "a named pipe, not a regular file",
	"to-pipe": "a named pipe, not a regular file",
	"folder":  "a folder, not a regular file",
}

// addUnsafe puts into dir a symbolic link to secretFile (outside every
// folder), absolute (leak.yaml) and relative (climb.yaml), a named pipe,
// a link to the pipe and a folder named like a file.
func addUnsafe(t *testing.T, dir, secretFile string) {
	t.Helper()
	rel, err := filepath.Rel(dir, secretFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range []error{
		os.Symlink(secretFile, filepath.Join(dir, "leak.yaml")),
		os.Symlink(rel, filepath.Join(dir, "climb.yaml")),
		syscall.Mkfifo(filepath.Join(dir, "pipe.yaml"), 0o600),
		os.Symlink("pipe.yaml", filepath.Join(dir, "to-pipe.yaml")),
		os.Mkdir(filepath.Join(dir, "folder.yaml"), 0o700),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// unsafeFolders makes copies of the shipped scenarios and fixtures
// folders, each with the unsafe entries of addUnsafe (the fixtures' in
// reviews/), and returns them opened as main opens them, with os.Root.
func unsafeFolders(t *testing.T) (scenariosFS, fixturesFS fs.FS) {
	base := t.TempDir()
	secretFile := filepath.Join(base, "outside", "secret.yaml")
	scDir, fxDir := filepath.Join(base, "scenarios"), filepath.Join(base, "fixtures")
	for _, err := range []error{
		os.Mkdir(filepath.Dir(secretFile), 0o700),
		os.WriteFile(secretFile, []byte("kind: "+secret+"\nseed: "+secret+"\n"), 0o600),
		os.CopyFS(scDir, scenarios.FS),
		os.CopyFS(fxDir, fixtures.FS),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	addUnsafe(t, scDir, secretFile)
	addUnsafe(t, filepath.Join(fxDir, "reviews"), secretFile)
	return openRoot(t, scDir), openRoot(t, fxDir)
}

// Through os.Root, a scenarios folder's links out of it, named pipes and
// folders named NAME.yaml are skipped with a warning that names each and
// says why; none is opened, none's contents show anywhere.
func TestUnsafeScenarioFilesSkipped(t *testing.T) {
	scFS, fxFS := unsafeFolders(t)
	var logs lockedBuffer
	opts := mock.Options{Scenarios: scFS, Fixtures: fxFS, Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	type built struct {
		s   *mock.Server
		err error
	}
	b := within(t, "mock.New", func() built {
		s, err := mock.New(opts)
		return built{s, err}
	})
	if b.err != nil {
		t.Fatalf("mock.New: %v", b.err)
	}
	served := make(map[string]bool)
	for _, sc := range b.s.Scenarios(mock.DefaultSession) {
		served[sc.Name] = true
	}
	if !served["default"] || !served["flaky"] {
		t.Errorf("the regular files are not all served: %v", served)
	}
	warnings := strings.Split(logs.String(), "\n")
	for name, why := range unsafeEntries {
		if served[name] {
			t.Errorf("%s.yaml is served", name)
		}
		found := false
		for _, l := range warnings {
			found = found || strings.Contains(l, "level=WARN") && strings.Contains(l, "scenarios/"+name+".yaml: skipped: ") && strings.Contains(l, why)
		}
		if !found {
			t.Errorf("no warning names scenarios/%s.yaml and says %q; logs:\n%s", name, why, logs.String())
		}
	}
	r := get(t, b.s, "/api/v1/feedbacks", "X-Mock-Scenario", "leak")
	if r.status != http.StatusBadRequest {
		t.Errorf("X-Mock-Scenario: leak: %d %s, want 400", r.status, r.body)
	}
	if strings.Contains(string(r.body), secret) || strings.Contains(logs.String(), secret) {
		t.Errorf("the secret shows:\n%s\n%s", r.body, logs.String())
	}

	results := within(t, "mock.ValidateScenarios", func() []mock.ScenarioResult {
		results, err := mock.ValidateScenarios(opts)
		if err != nil {
			t.Error(err)
		}
		return results
	})
	reported := make(map[string]bool)
	for _, res := range results {
		why, unsafe := unsafeEntries[res.Name]
		switch {
		case unsafe && (res.Err == nil || !strings.Contains(res.Err.Error(), why)):
			t.Errorf("validate %s: %v, want a problem saying %q", res.Name, res.Err, why)
		case !unsafe && res.Err != nil:
			t.Errorf("validate %s: %v", res.Name, res.Err)
		case res.Err != nil && strings.Contains(res.Err.Error(), secret):
			t.Errorf("validate %s shows the secret: %v", res.Name, res.Err)
		}
		reported[res.Name] = true
	}
	for name := range unsafeEntries {
		if !reported[name] {
			t.Errorf("validate says nothing of %s.yaml", name)
		}
	}
}

// A scenario naming a fixture that is a link out of the folder, a named
// pipe or a folder fails at start, promptly, with the reference placed
// and the reason, and without the linked file's contents.
func TestUnsafeFixturesRefused(t *testing.T) {
	scFS, fxFS := unsafeFolders(t)
	def, err := fs.ReadFile(scFS, "default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for name, why := range unsafeEntries {
		t.Run(name, func(t *testing.T) {
			files := fstest.MapFS{
				"default.yaml": {Data: def},
				"uses.yaml":    {Data: []byte("extends: default\ndescription: x\ndata:\n  fixtures: [reviews/" + name + ".yaml]\n")},
			}
			var logs lockedBuffer
			err := within(t, "mock.New", func() error {
				_, err := mock.New(mock.Options{Scenarios: files, Fixtures: fxFS, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
				return err
			})
			want := "scenarios/uses.yaml:4:14: data.fixtures[0]: fixtures/reviews/" + name + ".yaml: "
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), why) {
				t.Errorf("mock.New: %v\nwant a problem with %q and %q", err, want, why)
			}
			if err != nil && strings.Contains(err.Error()+logs.String(), secret) {
				t.Errorf("the secret shows: %v\n%s", err, logs.String())
			}
		})
	}
}

// tripFS is a MapFS with only Open, so the loader cannot ask it for a
// file's type: opening a named pipe, a socket or a device is recorded as
// the hang it could be on a disk.
type tripFS struct {
	m      fstest.MapFS
	mu     sync.Mutex
	opened []string
}

func (t *tripFS) Open(name string) (fs.File, error) {
	if f := t.m[name]; f != nil && f.Mode&(fs.ModeNamedPipe|fs.ModeSocket|fs.ModeDevice) != 0 {
		t.mu.Lock()
		t.opened = append(t.opened, name)
		t.mu.Unlock()
	}
	return t.m.Open(name)
}

func (t *tripFS) trips() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.opened)
}

// statTripFS is a tripFS that can also tell a file's type without
// opening it, as os.DirFS and os.Root's file systems do.
type statTripFS struct{ *tripFS }

func (t statTripFS) Stat(name string) (fs.FileInfo, error)  { return t.m.Stat(name) }
func (t statTripFS) Lstat(name string) (fs.FileInfo, error) { return t.m.Lstat(name) }
func (t statTripFS) ReadLink(name string) (string, error)   { return t.m.ReadLink(name) }

func mapOf(t *testing.T, fsys fs.FS) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		m[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Whatever the file system, the loader opens no named pipe, socket or
// device, in the scenarios folder or among the fixtures. A file system
// that cannot tell a symbolic link's target without opening it has its
// links refused; one that can has a link to a regular file followed.
func TestSpecialFilesNeverOpened(t *testing.T) {
	special := map[string]fs.FileMode{"named pipe": fs.ModeNamedPipe, "socket": fs.ModeSocket, "device": fs.ModeDevice | fs.ModeCharDevice}
	for _, withStat := range []bool{false, true} {
		t.Run(fmt.Sprintf("stat=%v", withStat), func(t *testing.T) {
			sc, fx := &tripFS{m: mapOf(t, scenarios.FS)}, &tripFS{m: mapOf(t, fixtures.FS)}
			file := func(kind string) string { return strings.ReplaceAll(kind, " ", "-") + ".yaml" }
			for kind, mode := range special {
				sc.m[file(kind)] = &fstest.MapFile{Mode: mode}
				fx.m["reviews/"+file(kind)] = &fstest.MapFile{Mode: mode}
			}
			sc.m["link.yaml"] = &fstest.MapFile{Mode: fs.ModeSymlink, Data: []byte("empty-shop.yaml")}
			opts := mock.Options{Scenarios: sc, Fixtures: fx}
			if withStat {
				opts.Scenarios, opts.Fixtures = statTripFS{sc}, statTripFS{fx}
			}
			var logs lockedBuffer
			opts.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			s := newServer(t, opts)
			for kind := range special {
				if !strings.Contains(logs.String(), "scenarios/"+file(kind)+": skipped: a "+kind+", not a regular file") {
					t.Errorf("no warning about %s:\n%s", file(kind), logs.String())
				}
				uses := fstest.MapFS{
					"default.yaml": sc.m["default.yaml"],
					"uses.yaml":    {Data: []byte("extends: default\ndescription: x\ndata:\n  fixtures: [reviews/" + file(kind) + "]\n")},
				}
				opts := opts
				opts.Scenarios = uses
				if _, err := mock.New(opts); err == nil || !strings.Contains(err.Error(), "fixtures/reviews/"+file(kind)+": a "+kind+", not a regular file") {
					t.Errorf("a fixture that is a %s: %v", kind, err)
				}
			}
			linked := false
			for _, info := range s.Scenarios(mock.DefaultSession) {
				linked = linked || info.Name == "link"
			}
			if linked != withStat {
				t.Errorf("link.yaml served: %v, want %v", linked, withStat)
			}
			if !withStat && !strings.Contains(logs.String(), "scenarios/link.yaml: skipped: a symbolic link, not followed: this file system cannot tell what it leads to without opening it") {
				t.Errorf("no warning about link.yaml:\n%s", logs.String())
			}
			if err := s.Reload(); err != nil {
				t.Errorf("reload: %v", err)
			}
			if _, err := mock.ValidateScenarios(opts); err != nil {
				t.Error(err)
			}
			if got := append(sc.trips(), fx.trips()...); len(got) > 0 {
				t.Errorf("opened: %v", got)
			}
		})
	}
}

// A scenario file over MaxFileBytes is refused unread, by the server's
// loader and by validate, naming the file; the others are served.
func TestScenarioFileTooLarge(t *testing.T) {
	dir := t.TempDir()
	def, err := fs.ReadFile(scenarios.FS, "default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "default.yaml"), def, 0o600); err != nil {
		t.Fatal(err)
	}
	huge := append([]byte("name: huge\n#"), bytes.Repeat([]byte("x"), mock.MaxFileBytes)...)
	if err := os.WriteFile(filepath.Join(dir, "huge.yaml"), huge, 0o600); err != nil {
		t.Fatal(err)
	}
	results, err := mock.ValidateScenarios(mock.Options{Scenarios: os.DirFS(dir)})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]error{}
	for _, r := range results {
		seen[r.Name] = r.Err
	}
	if seen["default"] != nil {
		t.Errorf("default: %v", seen["default"])
	}
	if e := seen["huge"]; e == nil || !strings.Contains(e.Error(), "huge.yaml") || !strings.Contains(e.Error(), "larger than 32 MiB") {
		t.Errorf("huge.yaml: %v; want it refused as larger than 32 MiB, by name", e)
	}
	if _, err := mock.ReadFile(filepath.Join(dir, "huge.yaml")); err == nil || !strings.Contains(err.Error(), "larger than 32 MiB") {
		t.Errorf("ReadFile: %v", err)
	}
	if data, err := mock.ReadFile(filepath.Join(dir, "default.yaml")); err != nil || !bytes.Equal(data, def) {
		t.Errorf("ReadFile of a small file: %v", err)
	}
}
