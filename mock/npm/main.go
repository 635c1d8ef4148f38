// Command npm builds replymock's npm packages.
//
// Each platform has a package holding its binary (@replymock/linux-x64,
// ...). The replymock package (the command and the test helper) names
// them all as optional dependencies, so npm installs only the one that
// fits the machine. Nothing is downloaded at install.
//
//	go run ./mock/npm                      build every package into mock/npm/dist
//	go run ./mock/npm -out DIR -platforms linux-x64,win32-x64
//	go run ./mock/npm -set-version 0.2.0   bump mock/npm/replymock/package.json
//
// The version is mock/npm/replymock/package.json's: every package has it,
// and each binary has it stamped (-X main.version), built with -trimpath
// and without cgo. mock/npm/README.md says how to test and publish.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
)

// platform is one package of a binary: npm's names for its os and cpu,
// Go's for the build.
type platform struct {
	os, cpu     string // npm's: process.platform and process.arch
	goos, arch  string // Go's
	description string
}

// platforms are the packages built, in the order npm lists them.
var platforms = []platform{
	{"darwin", "arm64", "darwin", "arm64", "macOS on Apple silicon (arm64)"},
	{"darwin", "x64", "darwin", "amd64", "macOS on Intel (x64)"},
	{"linux", "arm64", "linux", "arm64", "Linux on arm64"},
	{"linux", "x64", "linux", "amd64", "Linux on x64 (amd64)"},
	{"win32", "x64", "windows", "amd64", "Windows on x64"},
}

// dir is the platform's folder in the output and the last part of its
// package name: linux-x64.
func (p platform) dir() string { return p.os + "-" + p.cpu }

func (p platform) name() string { return "@replymock/" + p.dir() }

func (p platform) binary() string {
	if p.goos == "windows" {
		return "replymock.exe"
	}
	return "replymock"
}

const (
	modulePath = "github.com/replymock/replymock"
	wrapperDir = "mock/npm/replymock" // the replymock package's sources, from the module's root
)

// versionRE is the versions the packages take: semantic versions, with a
// pre-release part for test builds (0.2.0-rc.1).
var versionRE = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$`)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "npm:", err)
		}
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fset := flag.NewFlagSet("npm", flag.ContinueOnError)
	fset.SetOutput(stderr)
	out := fset.String("out", "", "folder to lay the packages out in, one folder each (default mock/npm/dist)")
	only := fset.String("platforms", "", "comma-separated platforms to build binaries for, e.g. linux-x64 (default all)")
	setVersion := fset.String("set-version", "", "write this version into mock/npm/replymock/package.json (the package's and its optional dependencies') and build nothing")
	if err := fset.Parse(args); err != nil {
		return err
	}
	if fset.NArg() > 0 {
		return fmt.Errorf("no arguments are taken, got %q", fset.Args())
	}
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	manifestPath := filepath.Join(root, wrapperDir, "package.json")
	m, err := readManifest(manifestPath)
	if err != nil {
		return err
	}
	if *setVersion != "" {
		if !versionRE.MatchString(*setVersion) {
			return fmt.Errorf("-set-version %q: want a version such as 0.2.0 or 0.2.0-rc.1", *setVersion)
		}
		m.setVersion(*setVersion)
		return writeJSON(manifestPath, m)
	}
	if err := m.check(); err != nil {
		return fmt.Errorf("%s: %v", manifestPath, err)
	}
	chosen, err := choose(*only)
	if err != nil {
		return err
	}
	if *out == "" {
		*out = filepath.Join(root, "mock", "npm", "dist")
	}
	return build(root, *out, m, chosen, stdout)
}

// choose is the platforms -platforms names, or all of them.
func choose(list string) ([]platform, error) {
	if list == "" {
		return platforms, nil
	}
	var chosen []platform
	for name := range strings.SplitSeq(list, ",") {
		i := slices.IndexFunc(platforms, func(p platform) bool { return p.dir() == strings.TrimSpace(name) })
		if i < 0 {
			var all []string
			for _, p := range platforms {
				all = append(all, p.dir())
			}
			return nil, fmt.Errorf("-platforms: no platform %q; there are %s", name, strings.Join(all, ", "))
		}
		chosen = append(chosen, platforms[i])
	}
	return chosen, nil
}

// build lays out the replymock package and the chosen platforms'
// packages in out, each in a folder of its own made anew. Two platforms
// are built at a time: one build alone leaves a core idle while it links.
func build(root, out string, m *manifest, chosen []platform, log io.Writer) error {
	dst := filepath.Join(out, "replymock")
	if err := fresh(dst); err != nil {
		return err
	}
	if err := copyWrapper(filepath.Join(root, wrapperDir), dst, m); err != nil {
		return err
	}
	fmt.Fprintf(log, "replymock %s: %s\n", m.Version, dst)
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
		turn = make(chan struct{}, 2)
	)
	for _, p := range chosen {
		wg.Go(func() {
			turn <- struct{}{}
			defer func() { <-turn }()
			line, err := buildPlatform(root, filepath.Join(out, p.dir()), p, m.Version)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			fmt.Fprintln(log, line)
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// buildPlatform lays out p's package in dir: its binary and package.json;
// it returns a line that says what it built.
func buildPlatform(root, dir string, p platform, version string) (string, error) {
	start := time.Now()
	if err := fresh(filepath.Join(dir, "bin")); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "bin", p.binary())
	if err := goBuild(root, p, version, bin); err != nil {
		return "", err
	}
	if err := writePlatformPackage(dir, p, version); err != nil {
		return "", err
	}
	info, err := os.Stat(bin)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s %s: %s (%.1f MB binary, built in %s)", p.name(), version, dir,
		float64(info.Size())/1e6, time.Since(start).Round(100*time.Millisecond)), nil
}

// goBuild builds the replymock binary for p, with version stamped, at bin.
func goBuild(root string, p platform, version, bin string) error {
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X main.version="+version, "-o", bin, ".")
	cmd.Dir = root
	// GOFLAGS is dropped: CI's -race, say, needs cgo, and the packages
	// are built the same way wherever they are built.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+p.goos, "GOARCH="+p.arch, "GOFLAGS=")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build for %s/%s: %v\n%s", p.goos, p.arch, err, stderr.String())
	}
	return nil
}

// platformManifest is a platform package's package.json.
type platformManifest struct {
	Name            string   `json:"name"`
	Version         string   `json:"version"`
	Description     string   `json:"description"`
	OS              []string `json:"os"`
	CPU             []string `json:"cpu"`
	Files           []string `json:"files"`
	PreferUnplugged bool     `json:"preferUnplugged"`
}

func writePlatformPackage(dir string, p platform, version string) error {
	pm := platformManifest{
		Name:            p.name(),
		Version:         version,
		Description:     "The replymock binary for " + p.description + ". Install replymock, which depends on it where it fits.",
		OS:              []string{p.os},
		CPU:             []string{p.cpu},
		Files:           []string{"bin/"},
		PreferUnplugged: true,
	}
	if err := writeJSON(filepath.Join(dir, "package.json"), pm); err != nil {
		return err
	}
	readme := fmt.Sprintf("# %s\n\nThe replymock binary for %s, version %s, built from replymock's repository.\n\n"+
		"Install `replymock` instead (`npm install -D replymock`): npm installs this package with it on a machine it fits.\n",
		p.name(), p.description, version)
	return os.WriteFile(filepath.Join(dir, "README.md"), []byte(readme), 0o644)
}

// copyWrapper copies the replymock package's files (package.json's
// files, the manifest and the README) from src to dst.
func copyWrapper(src, dst string, m *manifest) error {
	for _, name := range append([]string{"README.md"}, m.Files...) {
		from := filepath.Join(src, filepath.FromSlash(strings.TrimSuffix(name, "/")))
		err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, err := filepath.Rel(src, p)
			if err != nil {
				return err
			}
			return copyFile(p, filepath.Join(dst, rel))
		})
		if err != nil {
			return fmt.Errorf("the replymock package's file %s: %v", name, err)
		}
	}
	return writeJSON(filepath.Join(dst, "package.json"), m)
}

func copyFile(from, to string) error {
	info, err := os.Stat(from)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	return os.WriteFile(to, b, info.Mode().Perm())
}

// fresh makes dir anew, empty.
func fresh(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	return os.MkdirAll(dir, 0o755)
}

// writeJSON writes v as npm writes package.json: indented by two
// spaces, "<" and ">" as they are.
func writeJSON(path string, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// moduleRoot is the folder of replymock's go.mod, the working directory
// or one above it.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(b, []byte("module "+modulePath+"\n")) {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("run it in replymock's repository: no go.mod of " + modulePath + " here or above")
		}
		dir = up
	}
}
