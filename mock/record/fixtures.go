package record

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/replymock/replymock/mock"
	"github.com/replymock/replymock/mock/internal/atomicfile"
	"github.com/replymock/replymock/mock/internal/settings"
	"gopkg.in/yaml.v3"
)

// apiRecord is a record as the API sends it; fields it does not name are
// kept aside.
type apiRecord = mock.Feedback

// knownFields are apiRecord's fields by their JSON names.
var knownFields = func() map[string]bool {
	m := map[string]bool{}
	t := reflect.TypeFor[apiRecord]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		m[name] = true
	}
	return m
}()

// fixtureReview is a review as a reviews fixture writes it.
type fixtureReview struct {
	FeedbackID       string       `yaml:"feedback_id"`
	NmID             int64        `yaml:"nm_id"`
	ImtID            int64        `yaml:"imt_id"`
	Text             string       `yaml:"text,omitempty"`
	Pros             string       `yaml:"pros,omitempty"`
	Cons             string       `yaml:"cons,omitempty"`
	ProductValuation int          `yaml:"product_valuation"`
	ValuationTags    []string     `yaml:"valuation_tags,omitempty"`
	CreatedDate      string       `yaml:"created_date"`
	AnswerText       string       `yaml:"answer_text,omitempty"`
	AnswerState      string       `yaml:"answer_state"`
	ProductName      string       `yaml:"product_name"`
	SupplierArticle  string       `yaml:"supplier_article"`
	BrandName        string       `yaml:"brand_name"`
	Photos           []mock.Photo `yaml:"photos,omitempty"`
	Video            *mock.Video  `yaml:"video,omitempty"`
	UserName         string       `yaml:"user_name,omitempty"`
	WasViewed        int          `yaml:"was_viewed"`
	State            string       `yaml:"state"`
	CreatedAt        string       `yaml:"created_at"`
}

// write turns the recorded state into the scenario's files, within the
// budget out.
func write(cfg Config, base string, st *recordState, res *Result, out *budget) error {
	recs, err := decodeRecords(st.records, res.UnknownFields)
	if err != nil {
		return err
	}
	an := newAnonymizer(cfg, res.Anonymized)
	from, _ := url.Parse(base)
	order := oldestFirst(recs)
	reviews := make([]fixtureReview, 0, len(order))
	for n, i := range order {
		r := recs[i]
		if r.FeedbackID == "" {
			// A fixture names each review: one the upstream sent without
			// a feedback_id gets one made up, and counted.
			r.FeedbackID = fmt.Sprintf("recorded-%d", n+1)
			res.Unreadable["feedback_id (made up)"]++
		}
		an.record(&r)
		reviews = append(reviews, fixtureOf(r, from, res.Unreadable))
	}
	res.Reviews = len(reviews)
	res.Calibration = calibrate(recs)

	var settings map[string]any
	json.Unmarshal(st.Settings, &settings)
	// The records are held twice, as they came and decoded, until
	// recorded/NAME.json is written: it goes first.
	kept := filepath.Join("recorded", cfg.Name+".json")
	err = writeStreamed(filepath.Join(cfg.Out, kept), kept,
		keptRecords{from: res.From, settings: settings, order: order, raws: st.records, reviews: reviews}.writeTo, out)
	if err != nil {
		return err
	}
	res.Files = append(res.Files, filepath.ToSlash(kept))
	st.records = nil
	err = writeFiles(cfg.Out, scenarioFiles(cfg, res, settings, reviews), res, out)
	slices.Sort(res.Files)
	return err
}

// decodeRecords decodes the recorded records as apiRecords, counting in
// unknown each field apiRecord does not know.
func decodeRecords(records []json.RawMessage, unknown map[string]int) ([]apiRecord, error) {
	recs := make([]apiRecord, len(records))
	for i, raw := range records {
		if err := json.Unmarshal(raw, &recs[i]); err != nil {
			return nil, fmt.Errorf("feedbacks[%d] (id %s): a field of the wrong type: %v", i, recordKey(raw), err)
		}
		var fields map[string]json.RawMessage
		json.Unmarshal(raw, &fields)
		for k := range fields {
			if !knownFields[k] {
				unknown["feedbacks[]."+k]++
			}
		}
	}
	return recs, nil
}

// keptRecords is recorded/NAME.json: the records as they came, oldest
// first and anonymised, with the settings and where they came from. It
// is written as json.MarshalIndent would, but a record at a time, so
// that the records are never all decoded at once.
type keptRecords struct {
	from     string
	settings map[string]any
	order    []int             // of raws, oldest first
	raws     []json.RawMessage // as they came
	reviews  []fixtureReview   // in order: what anonymising made of them
}

func (k keptRecords) writeTo(w io.Writer) error {
	bw := bufio.NewWriter(w)
	feedbacks := "null"
	if len(k.order) > 0 {
		feedbacks = "["
	}
	fmt.Fprintf(bw, "{\n  \"feedbacks\": %s", feedbacks)
	for n, i := range k.order {
		var raw map[string]any
		json.Unmarshal(k.raws[i], &raw)
		b, err := json.MarshalIndent(anonymisedRaw(raw, k.reviews[n]), "    ", "  ")
		if err != nil {
			return err
		}
		if n > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		bw.Write(b)
	}
	if len(k.order) > 0 {
		bw.WriteString("\n  ]")
	}
	from, err := json.Marshal(k.from)
	if err != nil {
		return err
	}
	settings, err := json.MarshalIndent(k.settings, "  ", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintf(bw, ",\n  \"from\": %s,\n  \"settings\": %s\n}", from, settings)
	return bw.Flush()
}

// oldestFirst is the order of recs as the fixture numbers them: oldest
// first, ties by id.
func oldestFirst(recs []apiRecord) []int {
	order := make([]int, len(recs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(strings.Compare(recs[a].CreatedDate, recs[b].CreatedDate), cmp.Compare(recs[a].ID, recs[b].ID))
	})
	return order
}

// fixtureOf is r as a reviews fixture writes it. Media that are not as
// the API writes them are left out and counted in unreadable.
func fixtureOf(r apiRecord, from *url.URL, unreadable map[string]int) fixtureReview {
	fr := fixtureReview{FeedbackID: r.FeedbackID, NmID: r.NmID, ImtID: r.ImtID, Text: r.Text, Pros: r.Pros, Cons: r.Cons,
		ProductValuation: r.ProductValuation, CreatedDate: r.CreatedDate, AnswerText: r.AnswerText, AnswerState: r.AnswerState,
		ProductName: r.ProductName, SupplierArticle: r.SupplierArticle, BrandName: r.BrandName, UserName: r.UserName,
		WasViewed: r.WasViewed, State: r.State, CreatedAt: r.CreatedAt}
	if r.ValuationTags != "" && json.Unmarshal([]byte(r.ValuationTags), &fr.ValuationTags) != nil {
		fr.ValuationTags = nil
		unreadable["valuation_tags"]++
	}
	if r.Photos != "" {
		if json.Unmarshal([]byte(r.Photos), &fr.Photos) != nil {
			fr.Photos = nil
			unreadable["photos"]++
		}
		for j := range fr.Photos {
			fr.Photos[j].FullSize = served(from, fr.Photos[j].FullSize)
			fr.Photos[j].MiniSize = served(from, fr.Photos[j].MiniSize)
		}
	}
	if v := bytes.TrimSpace(r.Video); len(v) > 0 && string(v) != "null" {
		fr.Video = new(mock.Video)
		if json.Unmarshal(v, fr.Video) != nil {
			fr.Video = nil
			unreadable["video"]++
		} else {
			fr.Video.PreviewImage, fr.Video.Link = served(from, fr.Video.PreviewImage), served(from, fr.Video.Link)
		}
	}
	return fr
}

// anonymisedRaw is raw, a record as it came, with the fields that
// anonymising changed taken from r.
func anonymisedRaw(raw map[string]any, r fixtureReview) map[string]any {
	for k, v := range map[string]any{"feedback_id": r.FeedbackID, "nm_id": r.NmID, "imt_id": r.ImtID, "text": r.Text, "pros": r.Pros,
		"cons": r.Cons, "answer_text": r.AnswerText, "product_name": r.ProductName, "supplier_article": r.SupplierArticle,
		"brand_name": r.BrandName, "user_name": r.UserName} {
		if _, ok := raw[k]; ok {
			raw[k] = v
		}
	}
	return raw
}

// scenarioFiles are the settings fixture, the two scenarios and the
// reviews fixtures, by their paths in Out.
func scenarioFiles(cfg Config, res *Result, settings map[string]any, out []fixtureReview) map[string]yamlDoc {
	files := map[string]yamlDoc{
		filepath.Join("fixtures", "settings", cfg.Name+".yaml"): yamlDoc{"The settings recorded from " + res.From + ".", knownSettings(settings, res.UnknownFields)},
		filepath.Join("scenarios", cfg.Name+".yaml"):            yamlDoc{"The shop recorded from " + res.From + ", as it was: serve it with\n  replymock --scenarios OUT/scenarios --fixtures OUT/fixtures --scenario " + cfg.Name, recordedScenario(cfg, res)},
		filepath.Join("scenarios", cfg.Name+"-live.yaml"):       yamlDoc{"The recorded shop, kept alive: its reviews, as many again generated by its measures\n(raise generate.count to scale it up), and new ones arriving at its rate.", liveScenario(cfg, res)},
	}
	for i, name := range fixtureNames(cfg.Name, len(out)) {
		part := out[i*fixtureChunk : min((i+1)*fixtureChunk, len(out))]
		files[filepath.Join("fixtures", name)] = yamlDoc{fmt.Sprintf("Recorded from %s: reviews %d to %d of %d, oldest first.", res.From, i*fixtureChunk+1, i*fixtureChunk+len(part), len(out)),
			map[string]any{"kind": "reviews", "reviews": part}}
	}
	return files
}

// writeFiles writes files under dir, each whole or not at all, and
// lists them in res.Files.
func writeFiles(dir string, files map[string]yamlDoc, res *Result, out *budget) error {
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if err := writeStreamed(filepath.Join(dir, name), name, files[name].encode, out); err != nil {
			return err
		}
		res.Files = append(res.Files, filepath.ToSlash(name))
	}
	return nil
}

// writeStreamed writes the file at p with write, whole or not at all;
// name names it in errors.
func writeStreamed(p, name string, write func(io.Writer) error, out *budget) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := atomicfile.New(p, 0o644)
	if err != nil {
		return err
	}
	defer f.Cleanup()
	if err := write(&budgeted{w: f, out: out, name: name}); err != nil {
		return err
	}
	return f.CloseAtomicallyReplace()
}

// budgeted writes to w within the budget out, for the file name.
type budgeted struct {
	w    io.Writer
	out  *budget
	name string
}

func (b *budgeted) Write(p []byte) (int, error) {
	if err := b.out.take(int64(len(p)), b.name); err != nil {
		return 0, err
	}
	return b.w.Write(p)
}

// fixtureChunk is how many reviews a recorded fixture file holds at
// most: some 10 MB of long reviews, a third of what a fixture may be.
const fixtureChunk = 5000

// fixtureNames are the reviews fixtures of n reviews: reviews/NAME.yaml,
// or reviews/NAME-01.yaml and on for more than fixtureChunk.
func fixtureNames(name string, n int) []string {
	if n <= fixtureChunk {
		return []string{"reviews/" + name + ".yaml"}
	}
	var out []string
	for i := 0; i*fixtureChunk < n; i++ {
		out = append(out, fmt.Sprintf("reviews/%s-%02d.yaml", name, i+1))
	}
	return out
}

// yamlDoc is a YAML file with a comment on top.
type yamlDoc struct {
	comment string
	v       any
}

func (d yamlDoc) encode(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for l := range strings.SplitSeq(d.comment, "\n") {
		bw.WriteString("# " + l + "\n")
	}
	enc := yaml.NewEncoder(bw)
	enc.SetIndent(2)
	if err := enc.Encode(d.v); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	return bw.Flush()
}

// served is a media URL as a fixture writes it. A replymock's own media
// (/__mock/media/...) become a path, so that the server that serves the
// fixture serves them too.
func served(from *url.URL, raw string) string {
	u, err := url.Parse(raw)
	if err != nil || from == nil || u.Host != from.Host || !strings.HasPrefix(u.Path, "/__mock/media/") {
		return raw
	}
	return u.Path
}

// knownSettings is s without the fields a settings fixture does not
// have, which are counted in unknown.
func knownSettings(s map[string]any, unknown map[string]int) map[string]any {
	feedbackKeys, questionKeys := settings.FeedbackFields(), settings.QuestionFields()
	keep := func(m map[string]any, keys []string, path string) map[string]any {
		out := map[string]any{}
		for k, v := range m {
			if slices.Contains(keys, k) {
				out[k] = v
			} else {
				unknown[path+"."+k]++
			}
		}
		return out
	}
	out := map[string]any{"kind": "settings"}
	for k := range s {
		if k != "feedback" && k != "question" {
			unknown["settings."+k]++
		}
	}
	var fb []any
	items, _ := s["feedback"].([]any)
	for _, el := range items {
		m, _ := el.(map[string]any)
		fb = append(fb, keep(m, feedbackKeys, "settings.feedback[]"))
	}
	out["feedback"] = fb
	if q, ok := s["question"].(map[string]any); ok {
		out["question"] = keep(q, questionKeys, "settings.question")
	}
	return out
}
