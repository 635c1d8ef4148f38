package fault

import (
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/replymock/replymock/mock/internal/wire"
	"gopkg.in/yaml.v3"
)

// pickFields are the Fault fields that pick the requests a fault hits
// (and its id); every other field asks for a kind.
var pickFields = []string{"id", "name", "method", "path", "probability", "after", "times", "seed"}

// kindNamesOf lists the kind table's names, in its order.
func kindNamesOf() []string {
	var out []string
	for _, k := range Kinds() {
		out = append(out, k.Name)
	}
	return out
}

// faultFields lists Fault's fields as JSON names them.
func faultFields() []string {
	var out []string
	typ := reflect.TypeFor[Fault]()
	for i := range typ.NumField() {
		if name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sameSet reports where got and want differ, as a list: what got names
// that want lacks, and what it lacks.
func sameSet(t *testing.T, where string, got, want []string) {
	t.Helper()
	for _, g := range got {
		if !slices.Contains(want, g) {
			t.Errorf("%s names %q, which the kind table (mock/internal/fault, kinds) lacks", where, g)
		}
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("%s lacks %q, which the kind table has", where, w)
		}
	}
}

// The kind table is whole: each kind names a Fault field, every Fault
// field that does not pick requests is a kind's, and names and metric
// values are each used once.
func TestKindTable(t *testing.T) {
	var kindFields []string
	for _, f := range faultFields() {
		if !slices.Contains(pickFields, f) {
			kindFields = append(kindFields, f)
		}
	}
	sameSet(t, "Fault's fields beyond those that pick requests", kindFields, kindNamesOf())
	for _, k := range Kinds() {
		if k.Name == "" || k.in == nil || k.label == nil {
			t.Errorf("kind %q: a name, in and label are needed", k.Name)
		}
		if n := btoi(k.delay != nil) + btoi(k.answer != nil) + btoi(k.wrap != nil) + btoi(k.live != nil); n != 1 {
			t.Errorf("kind %q: give it one of delay (it waits), answer (in place of the API's), wrap (it changes the API's answer) and live (it changes what a read shows, as a live service would); it has %d", k.Name, n)
		}
	}
	if names := kindNamesOf(); len(slices.Compact(slices.Sorted(slices.Values(names)))) != len(names) {
		t.Errorf("kind names used twice: %v", names)
	}
}

// The places that list the fault kinds outside Go list the kind table's:
// the admin OpenAPI document's Fault schema (its fields and what its
// description says a fault needs), the panel's words in each language
// (i18n.js), the panel's script, scenarios/README.md (its Faults table and
// what it says a fault needs) and mock/cli/README.md (the metric's values).
func TestKindsAreListedAlike(t *testing.T) {
	kinds := kindNamesOf()

	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Description string               `yaml:"description"`
				Properties  map[string]yaml.Node `yaml:"properties"`
			} `yaml:"schemas"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal([]byte(readFile(t, "../../admin-openapi.yaml")), &doc); err != nil {
		t.Fatal(err)
	}
	schema, ok := doc.Components.Schemas["Fault"]
	if !ok {
		t.Fatal("mock/admin-openapi.yaml has no schema Fault")
	}
	var props []string
	for p := range schema.Properties {
		if !slices.Contains(pickFields, p) {
			props = append(props, p)
		}
	}
	sameSet(t, "mock/admin-openapi.yaml's Fault schema", props, kinds)
	if want := "Needs " + needs() + "."; schema.Description != want {
		t.Errorf("mock/admin-openapi.yaml's Fault schema says %q, want %q", schema.Description, want)
	}

	i18n := readFile(t, "../../ui/i18n.js")
	langs := regexp.MustCompile(`(?m)^  (\w+): \{$`).FindAllStringSubmatchIndex(i18n, -1)
	if len(langs) < 2 {
		t.Fatalf("mock/ui/i18n.js: found %d languages in MESSAGES, want en and ru at least", len(langs))
	}
	word := regexp.MustCompile(`"kind-([^"]+)":`)
	for i, l := range langs {
		end := len(i18n)
		if i+1 < len(langs) {
			end = langs[i+1][0]
		}
		var named []string
		for _, m := range word.FindAllStringSubmatch(i18n[l[1]:end], -1) {
			named = append(named, m[1])
		}
		lang := i18n[l[2]:l[3]]
		sameSet(t, "mock/ui/i18n.js ("+lang+")", named, kinds)
		if !slices.Equal(named, kinds) && len(named) == len(kinds) {
			t.Errorf("mock/ui/i18n.js (%s) has the kinds' words in the order %v, want the table's %v", lang, named, kinds)
		}
	}

	app := readFile(t, "../../ui/app.js")
	// The panel shows the kinds i18n.js has words for, in their order;
	// it names a kind only to say more of it or for its own controls.
	if !strings.Contains(app, `const FAULT_KINDS = Object.keys(MESSAGES.en).filter((k) => k.startsWith("kind-"))`) {
		t.Error("mock/ui/app.js: FAULT_KINDS must be the kinds i18n.js has a word kind-NAME for")
	}
	for _, obj := range []string{"KIND_DETAILS", "PANEL"} {
		m := regexp.MustCompile(`(?s)const ` + obj + ` = \{(.*?)\n?\};`).FindStringSubmatch(app)
		if m == nil {
			t.Errorf("mock/ui/app.js has no const %s", obj)
			continue
		}
		for _, k := range regexp.MustCompile(`(?m)(?:^|[{,])\s*(\w+):`).FindAllStringSubmatch(m[1], -1) {
			if !slices.Contains(kinds, k[1]) {
				t.Errorf("mock/ui/app.js's %s names %q, which the kind table lacks", obj, k[1])
			}
		}
	}

	const flagsDoc, scenariosDoc = "mock/cli/README.md", "scenarios/README.md"
	cliReadme := readFile(t, "../../cli/README.md")
	readme := readFile(t, "../../../scenarios/README.md")
	// The metric's values: the kinds', then auth's and the rate limit's.
	if m := regexp.MustCompile("`replymock_injected_faults_total\\{kind,scenario\\}` \\(([^)]*)\\)").FindStringSubmatch(cliReadme); m == nil {
		t.Error(flagsDoc + " does not list replymock_injected_faults_total's kinds")
	} else {
		var metrics []string
		for _, k := range Kinds() {
			metrics = append(metrics, k.Name)
		}
		if got, want := strings.Join(strings.Fields(m[1]), " "), strings.Join(metrics, ", ")+", unauthorized, rate_limited"; got != want {
			t.Errorf("%s lists replymock_injected_faults_total's kinds as %q, want %q", flagsDoc, got, want)
		}
	}
	if want := "A fault needs " + needs() + "."; !strings.Contains(strings.Join(strings.Fields(readme), " "), want) {
		t.Errorf("%s does not say %q", scenariosDoc, want)
	}
	_, faults, ok := strings.Cut(readme, "\n## Faults\n")
	if !ok {
		t.Fatal(scenariosDoc + " has no ## Faults section")
	}
	faults, _, _ = strings.Cut(faults, "\n## ")
	var rows []string
	for _, m := range regexp.MustCompile("(?m)^\\| `(\\w+)` \\|").FindAllStringSubmatch(faults, -1) {
		if !slices.Contains(pickFields, m[1]) {
			rows = append(rows, m[1])
		}
	}
	sameSet(t, scenariosDoc+"'s Faults table", rows, kinds)
}

// needs says in words what a fault must ask for: "latency, or one of
// error, drop and truncate (latency may come with one of them)".
func needs() string {
	waits, acts := kindNames()
	return fmt.Sprintf("%s, or one of %s (%s may come with one of them)", wire.JoinWords(waits, "or"), wire.JoinWords(acts, "and"), wire.JoinWords(waits, "or"))
}
