package mock

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/replymock/replymock/fixtures"
	"github.com/replymock/replymock/mock/internal/content"
	"github.com/replymock/replymock/mock/internal/media"
	"github.com/replymock/replymock/mock/internal/reviews"
	"github.com/replymock/replymock/mock/internal/settings"
	"github.com/replymock/replymock/mock/internal/wire"
	"github.com/replymock/replymock/mock/internal/yamlfile"
	"github.com/replymock/replymock/scenarios"
)

var scenarioNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// loader reads scenario and fixture files from layers of folders. It
// keeps what it decoded and built, keyed by content, so that scenarios
// sharing a fixture or data, and a reload of unchanged files, repeat no
// work.
type loader struct {
	scenarios []layer          // NAME.yaml files; the first layer with a name is read
	fixtures  []layer          // the files scenarios name; likewise
	seed      int64            // overrides every scenario's seed when not 0
	now       func() time.Time // anchors data that ends now
	// anchor, when set, anchors data that ends now instead (the loads
	// of New: every scenario at the same present).
	anchor time.Time
	media  media.URLs // the server's public URL, the base of the records' media
	log    *slog.Logger
	cache  dataCache

	mu      sync.Mutex // guards decoded and polled
	decoded map[string]memoized
	polled  *folderState // the scenarios folder when it was last read whole
}

func newLoader(opts Options) *loader {
	l := &loader{
		scenarios: layers(opts.Scenarios, opts.ScenariosDir, opts.ShippedScenarios, scenarios.FS, "scenarios"),
		fixtures:  layers(opts.Fixtures, opts.FixturesDir, opts.ShippedFixtures, fixtures.FS, "fixtures"),
		seed:      opts.Seed, now: opts.Now, media: media.URLs{Base: opts.PublicURL}, log: opts.Logger}
	if l.now == nil {
		l.now = time.Now
	}
	return l
}

// unbased is fixtures with their media URLs relative to the server.
func unbased(fixtures []Feedback, base string) []Feedback {
	if base == "" || len(fixtures) == 0 {
		return fixtures
	}
	out := slices.Clone(fixtures)
	for i := range out {
		rebase{from: base, to: ""}.apply(&out[i])
	}
	return out
}

// anchorAt is the present data that ends now is anchored to.
func (l *loader) anchorAt() time.Time {
	if !l.anchor.IsZero() {
		return l.anchor
	}
	return l.now()
}

// layer is one folder of scenario or fixture files, or the scenario files
// given one by one to ValidateFiles. Of a loader's layers, the first that
// holds a name is the one it is read from: a user's folder hides the
// shipped files of the same names.
type layer struct {
	fsys  fs.FS
	dir   string                // how messages name the folder: the path the user gave, "scenarios", "(shipped) scenarios"
	where string                // how a "not found" message names it
	given map[string]SourceFile // instead of fsys: files by NAME.yaml
}

// layers are the layers of a kind of file (scenarios, fixtures): the
// user's folder, if any, then, without one or with shipped, the
// embedded files.
func layers(user fs.FS, dir string, shipped bool, embedded fs.FS, kind string) []layer {
	var out []layer
	if user != nil {
		ly := layer{fsys: user, dir: dir, where: dir}
		if dir == "" {
			ly.dir, ly.where = kind, "the "+kind+" folder"
		}
		out = append(out, ly)
	}
	if user == nil || shipped {
		out = append(out, layer{fsys: embedded, dir: "(shipped) " + kind, where: "the shipped " + kind})
	}
	return out
}

// display names file (a path inside the layer) in messages: its path as
// the user would find it.
func (ly *layer) display(file string) string {
	if ly.given != nil {
		return ly.given[file].Path
	}
	return filepath.Join(ly.dir, filepath.FromSlash(file))
}

// whereAll names layers in a "not found" message: "my-scenarios or the
// shipped scenarios".
func whereAll(layers []layer) string {
	names := make([]string, len(layers))
	for i, ly := range layers {
		names[i] = ly.where
	}
	return strings.Join(names, " or ")
}

// folderState is the scenarios folder as one reading of it found it.
type folderState struct {
	files   map[string][]byte // each scenario's bytes, or the text of its read error
	skipped map[string]error  // the files left unread, and why
}

// swapPolled records the folder as just read and returns the previous
// reading (nil before the first).
func (l *loader) swapPolled(st *folderState) *folderState {
	l.mu.Lock()
	defer l.mu.Unlock()
	prev := l.polled
	l.polled = st
	return prev
}

// warnSkipped logs each file left unread that prev (a previous reading
// of the folder, or nil) did not already report the same way.
func (l *loader) warnSkipped(skipped map[string]error, prev *folderState) {
	for _, n := range slices.Sorted(maps.Keys(skipped)) {
		err := skipped[n]
		if prev != nil && prev.skipped[n] != nil && prev.skipped[n].Error() == err.Error() {
			continue
		}
		l.log.Warn("scenario file skipped", "err", err)
	}
}

type memoized struct {
	v   any
	err error
}

// memo runs decode once per kind, name and content (see loadFixture).
func (l *loader) memo(kind, name string, data []byte, decode func() (any, error)) (any, error) {
	sum := sha256.Sum256(data)
	key := kind + "\x00" + name + "\x00" + string(sum[:])
	l.mu.Lock()
	defer l.mu.Unlock()
	if m, ok := l.decoded[key]; ok {
		return m.v, m.err
	}
	v, err := decode()
	if l.decoded == nil {
		l.decoded = make(map[string]memoized)
	}
	l.decoded[key] = memoized{v, err}
	return v, err
}

// pass is one reading of the scenario layers: each file is read once and
// each scenario built once, however many others extend it. A pass opens
// only the files its listing found regular.
type pass struct {
	l       *loader
	names   []string         // the scenarios in the layers, sorted
	from    map[string]int   // the layer each name is read from
	skipped map[string]error // NAME.yaml entries that are not regular files, and why
	files   map[string]fileRead
	built   map[string]*Scenario // the ones built without problems
}

type fileRead struct {
	data []byte
	err  error
}

func (l *loader) newPass() (*pass, error) {
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

// read returns the bytes of scenario name's file, reading it the first
// time. A name the listing did not find is not looked for: the file
// would not have been checked before opening.
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

// readAll reads every scenario file in the layers, giving for each its
// bytes, or the text of its read error (a file that cannot be read is a
// version of the file too, to notice when it changes).
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
func (l *loader) loadAll() (map[string]*Scenario, map[string][]byte, error) {
	p, err := l.newPass()
	if err != nil {
		return nil, nil, err
	}
	l.warnSkipped(p.skipped, nil)
	scs := make(map[string]*Scenario, len(p.names))
	sources := make(map[string][]byte, len(p.names))
	var errs []error
	for _, n := range p.names {
		sc, err := p.load(n)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		scs[n], sources[n] = sc, p.files[n].data
	}
	l.swapPolled(&folderState{files: p.readAll(), skipped: p.skipped})
	return scs, sources, errors.Join(errs...)
}

// listScenarios lists the scenarios of every layer, sorted, with the
// layer each is read from, and the NAME.yaml entries that are not
// regular files, with why. A name in an earlier layer, regular or not,
// hides the later layers' files of that name.
func (l *loader) listScenarios() ([]string, map[string]int, map[string]error, error) {
	from := make(map[string]int)
	skipped := make(map[string]error)
	for i := range l.scenarios {
		ly := &l.scenarios[i]
		var names []string
		var sk map[string]error
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

// scenarioFiles lists the scenarios in a layer's folder, sorted, and the
// NAME.yaml entries that are not regular files, with why (see
// checkFile). Those are never opened.
func scenarioFiles(ly *layer) ([]string, map[string]error, error) {
	fsys := ly.fsys
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", ly.dir, err)
	}
	var names []string
	skipped := make(map[string]error)
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".yaml")
		if !ok {
			continue
		}
		// A regular entry needs no further look; the rest (symbolic links
		// among them) are checked without being opened.
		if !e.Type().IsRegular() {
			if err := checkFile(fsys, e.Name()); err != nil {
				skipped[name] = &yamlfile.Problem{File: ly.display(e.Name()), Message: "skipped: " + err.Error()}
				continue
			}
		}
		names = append(names, name)
	}
	sort.Strings(names)
	return names, skipped, nil
}

// notFound is the error for a scenario name without a file.
func (l *loader) notFound(name string) error {
	if !scenarioNameRE.MatchString(name) {
		return fmt.Errorf("scenario name %q: use lower-case letters, digits, '-' and '_'", name)
	}
	names, _, skipped, err := l.listScenarios()
	if err != nil {
		return err
	}
	if err := skipped[name]; err != nil {
		return err
	}
	return &notFoundError{name: name, where: whereAll(l.scenarios), have: names}
}

// notRegularError is a file the loader does not open, and why.
type notRegularError struct{ why string }

func (e *notRegularError) Error() string { return e.why }

// checkFile returns nil if name in fsys is a regular file, or a symbolic
// link that fsys follows to one, and otherwise why it must not be read.
// (An os.Root's file system follows no link out of its folder, and so
// serves none of what lies outside; os.DirFS follows any.) It opens
// nothing: opening a named pipe waits for a writer, so one in a folder
// would hang start-up or hot reload, and a device can be endless.
func checkFile(fsys fs.FS, name string) error {
	mode, err := fileMode(fsys, name)
	if err != nil {
		return err
	}
	if why := notRegular(mode); why != "" {
		return &notRegularError{why}
	}
	return nil
}

// fileMode is the type of what name is, symbolic links followed, found
// without opening it. A file system with Stat (os.DirFS, os.Root's) is
// asked; any other is looked at through the listings of name's folders,
// where a symbolic link cannot be followed, so it is reported as one.
func fileMode(fsys fs.FS, name string) (fs.FileMode, error) {
	if _, ok := fsys.(fs.StatFS); ok {
		fi, err := fs.Stat(fsys, name)
		if err == nil {
			return fi.Mode().Type(), nil
		}
		if li, lerr := fs.Lstat(fsys, name); lerr == nil && li.Mode()&fs.ModeSymlink != 0 {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err // the name is ours already; the cause is what tells
			}
			return 0, &notRegularError{fmt.Sprintf("a symbolic link that cannot be followed inside the folder (%v)", err)}
		}
		return 0, err
	}
	dir, mode := ".", fs.ModeDir
	for elem := range strings.SplitSeq(name, "/") {
		if !mode.IsDir() {
			return 0, &notRegularError{fmt.Sprintf("%s is %s, not a folder", dir, kindOf(mode))}
		}
		entries, err := fs.ReadDir(fsys, dir)
		if err != nil {
			return 0, err
		}
		i, found := slices.BinarySearchFunc(entries, elem, func(e fs.DirEntry, n string) int { return strings.Compare(e.Name(), n) })
		if !found {
			return 0, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
		}
		mode, dir = entries[i].Type(), path.Join(dir, elem)
	}
	return mode, nil
}

// notRegular says what a file of type mode is, when it is not a regular
// file: "a named pipe, not a regular file"; "" for a regular file.
func notRegular(mode fs.FileMode) string {
	switch {
	case mode.IsRegular():
		return ""
	case mode&fs.ModeSymlink != 0: // only from a file system without Stat
		return "a symbolic link, not followed: this file system cannot tell what it leads to without opening it"
	}
	return kindOf(mode) + ", not a regular file"
}

func kindOf(mode fs.FileMode) string {
	switch {
	case mode.IsRegular():
		return "a regular file"
	case mode.IsDir():
		return "a folder"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeDevice != 0:
		return "a device"
	case mode&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "a special file"
}

// readChecked reads a file that checkFile accepted. The open file is
// checked again, in case it was replaced in between; a named pipe put in
// its place in that instant would still hold up the open, which takes
// someone who may write to the folder.
func readChecked(fsys fs.FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if why := notRegular(fi.Mode().Type()); why != "" {
		return nil, &notRegularError{why}
	}
	return readBounded(f, fi.Size())
}

// MaxFileBytes bounds a scenario or fixture file: a reviews fixture of
// 10,000 long reviews takes about a tenth of it. Decoded, a file takes a
// few times its size in memory, so a bigger one is refused unread.
const MaxFileBytes = 32 << 20

// readBounded reads a file of the given size (as its Stat said) of at
// most MaxFileBytes, and refuses one that grew past it meanwhile.
func readBounded(r io.Reader, size int64) ([]byte, error) {
	tooBig := fmt.Errorf("larger than %d MiB, the most a scenario or fixture file may be", MaxFileBytes>>20)
	if size > MaxFileBytes {
		return nil, tooBig
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
	if err == nil && len(data) > MaxFileBytes {
		return nil, tooBig
	}
	return data, err
}

// ReadFile reads the scenario or fixture file at path, as the server
// would: a regular file of at most MaxFileBytes.
func ReadFile(path string) ([]byte, error) {
	data, err := readChecked(os.DirFS(filepath.Dir(path)), filepath.Base(path))
	var pe *fs.PathError
	if errors.As(err, &pe) {
		pe.Path = path // the path as given, not the name in its folder
		return nil, pe
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return data, nil
}

// notFoundError is a scenario name with no file.
type notFoundError struct {
	name  string
	where string // the layers looked in
	have  []string
}

func (e *notFoundError) Error() string {
	return fmt.Sprintf("scenario %q not found in %s; have: %s", e.name, e.where, strings.Join(e.have, ", "))
}

// load reads and validates the scenario NAME and what it extends.
func (p *pass) load(name string) (*Scenario, error) {
	return p.loadChain(name, nil)
}

// loadChain loads name; chain lists the scenarios that extend it, to
// catch a loop.
func (p *pass) loadChain(name string, chain []string) (*Scenario, error) {
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

// build decodes, validates and assembles one scenario file's bytes.
// display names the file in messages; chain is as for loadChain. It
// goes as far as it can, to report every problem at once: past fields
// that did not decode, and past a parent with problems (its own keys
// are then checked alone).
func (p *pass) build(name, display string, data []byte, chain []string) (*Scenario, error) {
	var sf scenarioFile
	yf := yamlfile.Decode(display, data, &sf)
	if !yf.Checkable() {
		return nil, yf.Err()
	}
	var parentErr error
	orphan := yf.HasProblem("extends") // an extends that did not decode
	if sf.Extends != "" && !orphan {
		parent, err := p.parent(yf, sf.Extends, append(chain, name))
		if parent != nil {
			// Each top-level key the file gives replaces the parent's value whole.
			child := sf
			sf = parent.file
			sf.Extends = child.Extends
			for _, key := range scenarioKeys {
				if yf.Has(key) {
					copyScenarioKey(&sf, &child, key)
				}
			}
		} else {
			orphan, parentErr = true, err
		}
	}
	if orphan {
		// Without the parent, what the file leaves to it is unknown: only
		// the keys the file gives are checked.
		yf.Keep = func(field string) bool {
			key, _, _ := strings.Cut(field, ".")
			key, _, _ = strings.Cut(key, "[")
			return key == "extends" || yf.Has(key)
		}
	}
	sf.validate(yf)
	// As written, before an end anchored to now is resolved: a reload
	// that changes nothing else keeps the version serving, and its data.
	written := sf
	written.applyDefaults(time.Time{})
	sf.applyDefaults(p.l.anchorAt())
	sc := &Scenario{Name: name, Description: sf.Description, Descriptions: sf.Descriptions, Extends: sf.Extends, Seed: sf.Seed, Locale: sf.Data.Locale,
		file: sf, rules: settings.Rules{Tones: sf.Tones}, auth: sf.Auth, rateLimit: sf.RateLimit, strict: sf.Strict, shop: sf.Shop,
		// Its own copy: a fault's counters are keyed by its address, and a
		// scenario that extends another must not share the other's.
		faults: slices.Clone(sf.Faults), media: p.l.media}
	for i := range sc.faults {
		sc.faults[i].Prepare()
	}
	if p.l.seed != 0 {
		sc.Seed = p.l.seed
	}
	fixtures := p.l.readFixtures(sc, yf)
	if err := yf.Err(); err != nil || parentErr != nil {
		return nil, errors.Join(err, parentErr)
	}
	key := dataKey(sf.Data, sc.Seed, sc.history, sc.historyDelay(), fixtures)
	sc.data = p.l.cache.source(key, sc.dataBuilder(display, fixtures))
	// The fingerprint leaves out where the server is reached (the media
	// URLs' base): a snapshot names the same version on a server
	// restarted on another port or behind another address.
	sc.fingerprint = fingerprint(written, sc.Seed, dataKey(written.Data, sc.Seed, sc.history, sc.historyDelay(), unbased(fixtures, p.l.media.Base)))
	return sc, nil
}

// parent loads the scenario that NAME extends. A problem finding it is
// placed at the extends line; a parent with problems is named there
// too, and its problems returned.
func (p *pass) parent(yf *yamlfile.File, name string, chain []string) (*Scenario, error) {
	switch {
	case !scenarioNameRE.MatchString(name):
		yf.Problemf("extends", "must be a scenario name (lower-case letters, digits, '-' and '_'), got %q", name)
		return nil, nil
	case slices.Contains(chain, name):
		yf.Problemf("extends", "extends loop: %s -> %s", strings.Join(chain, " -> "), name)
		return nil, nil
	}
	parent, err := p.loadChain(name, chain)
	var nf *notFoundError
	switch {
	case errors.As(err, &nf):
		yf.Problemf("extends", "%v", nf)
		return nil, nil
	case err != nil:
		yf.Problemf("extends", "scenario %q has problems (in %s)", name, p.display(name))
		return nil, err
	}
	return parent, nil
}

// readFixtures loads the settings, review fixtures and phrase bank sc's
// file names, filling sc, and returns the fixtures' reviews. A missing
// fixture is the scenario's problem, placed at the reference; a broken one
// is reported in the fixture's own file. A reference with a problem of
// its own, or one yf does not keep, is not followed. Problems go to yf.
func (l *loader) readFixtures(sc *Scenario, yf *yamlfile.File) []Feedback {
	follow := func(field string) bool {
		return !yf.HasProblem(field) && (yf.Keep == nil || yf.Keep(field))
	}
	problem := func(path string, err error) {
		var nr *notRegularError
		switch {
		case errors.Is(err, fs.ErrNotExist):
			yf.Problemf(path, "no such file in %s", whereAll(l.fixtures))
		case errors.As(err, &nr):
			yf.Problemf(path, "%v", err)
		default:
			yf.Add(err)
		}
	}
	sf := &sc.file
	var err error
	if follow("settings") && !yf.HasProblem("tones") {
		if sc.settings, err = l.loadSettings(sf.Settings, sc.rules); err != nil {
			problem("settings", err)
		}
	}
	sc.history = sc.settings
	if g := sf.Data.Generate; g != nil && g.HistorySettings != "" && follow("data.generate.history_settings") {
		if sc.history, err = l.loadSettings(g.HistorySettings, settings.Rules{}); err != nil {
			problem("data.generate.history_settings", err)
		}
	}
	var fixtures []Feedback
	seen := make(map[string]string)
	for i, fx := range sf.Data.Fixtures {
		if !follow(fmt.Sprintf("data.fixtures[%d]", i)) {
			continue
		}
		recs, err := l.loadReviews(fx)
		if err != nil {
			problem(fmt.Sprintf("data.fixtures[%d]", i), err)
		}
		for _, r := range recs {
			if prev, dup := seen[r.FeedbackID]; dup && prev != fx {
				yf.Problemf(fmt.Sprintf("data.fixtures[%d]", i), "feedback_id %q is also in %s", wire.Clip(r.FeedbackID), prev)
			}
			seen[r.FeedbackID] = fx
		}
		fixtures = append(fixtures, recs...)
	}
	if (sf.Data.Generate != nil || sf.Shop != nil) && follow("data.locale") { // a living shop writes replies too
		if sc.bank, err = l.loadPhrases(sf.Data.Locale); err != nil {
			problem("data.locale", err)
		}
	}
	return fixtures
}

// historyDelay is the reply engine's delay in sc's history: its living
// shop's, so that the history reads as the shop would have written it,
// or content.HistoryDelay.
func (sc *Scenario) historyDelay() time.Duration {
	if sc.shop != nil {
		return sc.shop.ReplyDelay.D()
	}
	return content.HistoryDelay
}

// dataBuilder builds sc's reviews: the fixtures, then the generated ones.
func (sc *Scenario) dataBuilder(display string, fixtures []Feedback) func() (*reviews.Store, error) {
	gen, seed, bank, settings, urls := sc.file.Data.Generate, sc.Seed, sc.bank, sc.history, sc.media
	delay := sc.historyDelay()
	return func() (*reviews.Store, error) {
		fbs := slices.Clone(fixtures)
		if gen != nil {
			more, err := content.Generate(*gen, seed, bank, settings, urls, delay)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", display, err)
			}
			fbs = append(fbs, more...)
		}
		return reviews.New(fbs)
	}
}

// Len is the number of reviews in the scenario's data, building it if needed.
func (sc *Scenario) Len() (int, error) {
	st, err := sc.store()
	if err != nil {
		return 0, err
	}
	return st.Len(), nil
}

// store is the scenario's reviews, built on first use.
func (sc *Scenario) store() (*reviews.Store, error) { return sc.data.get() }

func copyScenarioKey(dst, src *scenarioFile, key string) {
	switch key {
	case "description":
		// A description of its own: the parent's translations no longer fit.
		dst.Description, dst.Descriptions = src.Description, src.Descriptions
	case "descriptions":
		dst.Descriptions = src.Descriptions
	case "seed":
		dst.Seed = src.Seed
	case "tones":
		dst.Tones = src.Tones
	case "settings":
		dst.Settings = src.Settings
	case "auth":
		dst.Auth = src.Auth
	case "rate_limit":
		dst.RateLimit = src.RateLimit
	case "faults":
		dst.Faults = src.Faults
	case "shop":
		dst.Shop = src.Shop
	case "data":
		dst.Data = src.Data
	case "strict":
		dst.Strict = src.Strict
	case "proxy":
		dst.Proxy = src.Proxy
	}
}

// dataSource builds a store once, on first use. Scenarios with the same
// data (an extends without its own data or seed) share one.
type dataSource struct {
	once  sync.Once
	build func() (*reviews.Store, error)
	st    *reviews.Store
	err   error
}

func (d *dataSource) get() (*reviews.Store, error) {
	d.once.Do(func() { d.st, d.err = d.build() })
	return d.st, d.err
}

// dataCache shares built data between scenarios and across reloads, keyed
// by everything the data depends on.
type dataCache struct {
	mu sync.Mutex // guards m
	m  map[string]*dataSource
}

func (c *dataCache) source(key string, build func() (*reviews.Store, error)) *dataSource {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]*dataSource)
	}
	if d, ok := c.m[key]; ok {
		return d
	}
	d := &dataSource{build: build}
	c.m[key] = d
	return d
}

// retain forgets the data no scenario in scs uses any more.
func (c *dataCache) retain(scs map[string]*Scenario) {
	used := make(map[*dataSource]bool, len(scs))
	for _, sc := range scs {
		used[sc.data] = true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, d := range c.m {
		if !used[d] {
			delete(c.m, k)
		}
	}
}

// loadReviews reads a reviews fixture.
func (l *loader) loadReviews(name string) ([]Feedback, error) {
	return loadFixture(l, "reviews", name, func(display string, data []byte) ([]Feedback, error) {
		return content.DecodeReviews(display, data, l.media)
	})
}

// loadFixture reads the fixture name and decodes it once per content:
// many scenarios share the same settings, reviews and phrase bank.
// Decoded values are never changed.
func loadFixture[T any](l *loader, kind, name string, decode func(display string, data []byte) (T, error)) (T, error) {
	var zero T
	for i := range l.fixtures {
		ly := &l.fixtures[i]
		err := checkFile(ly.fsys, name)
		if errors.Is(err, fs.ErrNotExist) {
			continue // not in this layer: the next one may have it
		}
		display := ly.display(name)
		var data []byte
		if err == nil {
			data, err = readChecked(ly.fsys, name)
		}
		if err != nil {
			return zero, fmt.Errorf("%s: %w", display, err)
		}
		v, err := l.memo(kind, display, data, func() (any, error) { return decode(display, data) })
		if t, ok := v.(T); ok {
			return t, err
		}
		return zero, err
	}
	return zero, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

func (l *loader) loadSettings(name string, rules settings.Rules) (Settings, error) {
	// The tones are part of the check, so of the key.
	return loadFixture(l, "settings "+strings.Join(rules.Tones, ","), name, func(display string, data []byte) (Settings, error) {
		return content.DecodeSettings(display, data, rules)
	})
}

func (l *loader) loadPhrases(locale string) (*content.Bank, error) {
	return loadFixture(l, "phrases", "phrases/"+locale+".yaml", content.DecodePhrases)
}
