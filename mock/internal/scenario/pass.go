package scenario

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/replymock/replymock/mock/internal/wire"
	"github.com/replymock/replymock/mock/internal/yamlfile"
)

var scenarioNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// folderState is the scenarios folder as one reading of it found it.
type folderState struct {
	files   map[string][]byte            // each scenario's bytes, or the text of its read error
	skipped map[string]*yamlfile.Problem // the files left unread, and why
}

// poll reads every scenario file of p and records the reading. It warns
// of each file left unread that the previous reading did not report the
// same way, and returns the bytes read and the previous reading's (nil
// before the first).
func (l *Loader) poll(p *pass) (read, prev map[string][]byte) {
	read = p.readAll()
	l.mu.Lock()
	last := l.polled
	l.polled = &folderState{files: read, skipped: p.skipped}
	l.mu.Unlock()
	for _, n := range slices.Sorted(maps.Keys(p.skipped)) {
		if last == nil || last.skipped[n] == nil || *last.skipped[n] != *p.skipped[n] {
			l.log.Warn("scenario file skipped", "err", p.skipped[n])
		}
	}
	if last != nil {
		prev = last.files
	}
	return read, prev
}

// pass is one reading of the scenario layers: each file is read once and
// each scenario built once, however many others extend it. A pass opens
// only the files its listing found regular.
type pass struct {
	l       *Loader
	names   []string                     // the scenarios in the layers, sorted
	from    map[string]int               // the layer each name is read from
	skipped map[string]*yamlfile.Problem // NAME.yaml entries that are not regular files, and why
	files   map[string]fileRead
	built   map[string]*Scenario // the ones built without problems
}

type fileRead struct {
	data []byte
	err  error
}

func (l *Loader) newPass() (*pass, error) {
	names, from, skipped, err := l.listScenarios()
	if err != nil {
		return nil, err
	}
	p := &pass{l: l, names: names, from: from, skipped: skipped, files: make(map[string]fileRead), built: make(map[string]*Scenario)}
	for n, err := range skipped {
		p.files[n] = fileRead{err: err}
	}
	return p, nil
}

// read returns the bytes of scenario name's file, reading it once. A
// name the listing did not find is not looked for: it was not checked.
func (p *pass) read(name string) ([]byte, error) {
	f, ok := p.files[name]
	if !ok {
		if i, listed := p.from[name]; listed {
			ly := &p.l.scenarios[i]
			if ly.given != nil {
				f.data = ly.given[name+".yaml"].Data
			} else {
				f.data, f.err = readChecked(ly.fsys, name+".yaml")
			}
		} else {
			f.err = fs.ErrNotExist
		}
		p.files[name] = f
	}
	return f.data, f.err
}

// display names scenario name's file in messages.
func (p *pass) display(name string) string {
	if i, ok := p.from[name]; ok {
		return p.l.scenarios[i].display(name + ".yaml")
	}
	return name + ".yaml"
}

// readAll reads every scenario file, giving for each its bytes, or the
// text of its read error: a version of the file too, to notice changes.
func (p *pass) readAll() map[string][]byte {
	out := make(map[string][]byte, len(p.names))
	for _, n := range p.names {
		data, err := p.read(n)
		if err != nil {
			data = []byte(err.Error())
		}
		out[n] = data
	}
	return out
}

// loadAll loads every scenario in the folder, with the bytes each was
// built from; any problem fails it. Files that are not regular are
// skipped with a warning.
func (l *Loader) loadAll() (map[string]*Scenario, map[string][]byte, error) {
	p, err := l.newPass()
	if err != nil {
		return nil, nil, err
	}
	l.poll(p)
	scs := make(map[string]*Scenario, len(p.names))
	sources := make(map[string][]byte, len(p.names))
	var errs []error
	for _, n := range p.names {
		sc, err := p.load(n, nil)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		scs[n], sources[n] = sc, p.files[n].data
	}
	return scs, sources, errors.Join(errs...)
}

// listScenarios lists the scenarios of every layer, sorted, with the
// layer each is read from, and the NAME.yaml entries that are not
// regular files, with why. A name in an earlier layer, regular or not,
// hides the later layers' files of that name.
func (l *Loader) listScenarios() ([]string, map[string]int, map[string]*yamlfile.Problem, error) {
	from := make(map[string]int)
	skipped := make(map[string]*yamlfile.Problem)
	for i := range l.scenarios {
		ly := &l.scenarios[i]
		var names []string
		var sk map[string]*yamlfile.Problem
		if ly.given != nil {
			for file := range ly.given {
				names = append(names, strings.TrimSuffix(file, ".yaml"))
			}
		} else {
			var err error
			if names, sk, err = scenarioFiles(ly); err != nil {
				return nil, nil, nil, err
			}
		}
		hidden := func(n string) bool {
			_, listed := from[n]
			return listed || skipped[n] != nil
		}
		for _, n := range names {
			if !hidden(n) {
				from[n] = i
			}
		}
		for n, err := range sk {
			if !hidden(n) {
				skipped[n] = err
			}
		}
	}
	return slices.Sorted(maps.Keys(from)), from, skipped, nil
}

// scenarioFiles lists the scenarios in a layer's folder, and the
// NAME.yaml entries that are not regular files, with why (see
// checkFile). Those are never opened.
func scenarioFiles(ly *layer) ([]string, map[string]*yamlfile.Problem, error) {
	fsys := ly.fsys
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", ly.dir, err)
	}
	var names []string
	skipped := make(map[string]*yamlfile.Problem)
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".yaml")
		if !ok {
			continue
		}
		if !e.Type().IsRegular() {
			if err := checkFile(fsys, e.Name()); err != nil {
				skipped[name] = &yamlfile.Problem{File: ly.display(e.Name()), Message: "skipped: " + err.Error()}
				continue
			}
		}
		names = append(names, name)
	}
	return names, skipped, nil
}

// notFound is the error for a scenario name without a file.
func (l *Loader) notFound(name string) error {
	names, _, skipped, err := l.listScenarios()
	if !scenarioNameRE.MatchString(name) {
		err := fmt.Errorf("scenario name %q: use lower-case letters, digits, '-' and '_'", name)
		if near := wire.Nearest(name, names); near != "" {
			err = fmt.Errorf("%w: did you mean %s?", err, near)
		}
		return usageError{err}
	}
	if err != nil {
		return err
	}
	if err := skipped[name]; err != nil {
		return err
	}
	return usageError{&notFoundError{name: name, where: whereAll(l.scenarios), have: names}}
}

// usageError is a scenario name the server was started with that names
// none: the command line's exit code 2, as for a bad flag.
type usageError struct{ error }

func (usageError) ExitCode() int { return 2 }

func (e usageError) Unwrap() error { return e.error }

// notFoundError is a scenario name with no file.
type notFoundError struct {
	name  string
	where string // the layers looked in
	have  []string
}

func (e *notFoundError) Error() string {
	if near := wire.Nearest(e.name, e.have); near != "" {
		return fmt.Sprintf("scenario %q not found in %s: did you mean %s? (have: %s)", e.name, e.where, near, strings.Join(e.have, ", "))
	}
	return fmt.Sprintf("scenario %q not found in %s; have: %s", e.name, e.where, strings.Join(e.have, ", "))
}

// load reads and validates the scenario name and what it extends; chain
// lists the scenarios that extend it, to catch a loop.
func (p *pass) load(name string, chain []string) (*Scenario, error) {
	if !scenarioNameRE.MatchString(name) {
		return nil, fmt.Errorf("scenario name %q: use lower-case letters, digits, '-' and '_'", name)
	}
	if sc, ok := p.built[name]; ok {
		return sc, nil
	}
	data, err := p.read(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &notFoundError{name: name, where: whereAll(p.l.scenarios), have: p.names}
	}
	if err != nil {
		var nr *notRegularError
		if errors.As(err, &nr) {
			return nil, err
		}
		return nil, fmt.Errorf("scenarios/%s.yaml: %w", name, err)
	}
	sc, err := p.build(name, p.display(name), data, chain)
	if err == nil {
		p.built[name] = sc
	}
	return sc, err
}
