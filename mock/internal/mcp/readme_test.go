package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	faultpkg "github.com/replymock/replymock/mock/internal/fault"
	"gopkg.in/yaml.v3"
)

// TestToolListIsTheTable holds README.md's tool list to the tool table:
// the same tools, in the same order, with the same line and mark.
func TestToolListIsTheTable(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, list, ok := strings.Cut(string(b), "| tool | does | what it does |\n|---|---|---|\n")
	list, _, ok2 := strings.Cut(list, "\n\n")
	if !ok || !ok2 {
		t.Fatal("README.md has no tool list")
	}
	var want []string
	for _, tl := range tools {
		mark := "writes"
		if tl.reads {
			mark = "reads"
		}
		want = append(want, "| `"+tl.name+"` | "+mark+" | "+tl.about+" |")
	}
	got := strings.Split(list, "\n")
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("line %d of the tool list:\n got %s\nwant %s", i+1, g, w)
		}
	}
}

// TestSchemasFollowTheDocuments holds each tool input that mirrors an
// operation to the OpenAPI documents: the same parameters, the same
// fault and settings members, the same settings enums. add_fault's kinds
// are the fault kind table's, and list_reviews' rating range the API's.
func TestSchemasFollowTheDocuments(t *testing.T) {
	ctx := context.Background()
	st, ct := sdk.NewInMemoryTransports()
	ss, err := New(Config{}).SDK().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	inputs := map[string]obj{}
	for _, tl := range res.Tools {
		b, _ := json.Marshal(tl.InputSchema)
		var s obj
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		inputs[tl.Name] = s
	}
	apiDoc, adminDoc := readDoc(t, "../../openapi.yaml"), readDoc(t, "../../admin-openapi.yaml")

	// Query parameters: a tool's members, but session (the scope) and
	// query (each of its keys a query.NAME parameter).
	for tool, op := range map[string]struct {
		doc        obj
		path, verb string
	}{
		"list_reviews":  {apiDoc, "/feedbacks", "get"}, // the document's server is /api/v1
		"list_requests": {adminDoc, "/__mock/requests", "get"},
		"wait_request":  {adminDoc, "/__mock/requests", "get"},
		"verify":        {adminDoc, "/__mock/verify", "get"},
	} {
		var want []string
		item := op.doc.at("paths", op.path)
		for _, p := range append(item.list("parameters"), item.at(op.verb).list("parameters")...) {
			p = op.doc.deref(p)
			if p.str("in") == "query" && p.str("name") != "session" {
				want = append(want, p.str("name"))
			}
		}
		got := slices.DeleteFunc(inputs[tool].at("properties").keys(), func(k string) bool { return k == "session" || k == "query" })
		if slices.Sort(want); !slices.Equal(got, want) {
			t.Errorf("%s takes %v; %s %s takes %v", tool, got, strings.ToUpper(op.verb), op.path, want)
		}
	}

	fault := inputs["add_fault"]
	docFault := adminDoc.at("components", "schemas", "Fault", "properties")
	if got, want := slices.DeleteFunc(fault.at("properties").keys(), func(k string) bool { return k == "session" }),
		slices.DeleteFunc(docFault.keys(), func(k string) bool { return k == "id" }); !slices.Equal(got, want) {
		t.Errorf("add_fault takes %v; the admin document's Fault %v", got, want)
	}
	var kinds, want []string
	for _, branch := range fault.list("anyOf") {
		kinds = append(kinds, branch.strs("required")...)
	}
	for _, k := range faultpkg.Kinds() {
		want = append(want, k.Name)
	}
	if !slices.Equal(kinds, want) {
		t.Errorf("add_fault's kinds %v, the table's %v", kinds, want)
	}

	if got, want := fault.at("properties", "latency", "properties", "fixed").str("pattern"), adminDoc.at("components", "schemas", "Duration").str("pattern"); got != want {
		t.Errorf("add_fault's durations match %q; the admin document's %q", got, want)
	}

	patch := inputs["patch_settings"].at("properties", "settings", "properties")
	docPatch := apiDoc.at("components", "schemas", "SettingsPatch", "properties")
	for _, el := range []struct{ name, items string }{{"feedback", "items"}, {"question", ""}} {
		got, doc := patch.at(el.name), docPatch.at(el.name)
		if el.items != "" {
			got, doc = got.at(el.items), doc.at(el.items)
		}
		if !slices.Equal(got.at("properties").keys(), doc.at("properties").keys()) {
			t.Errorf("patch_settings' %s takes %v; the document's %v", el.name, got.at("properties").keys(), doc.at("properties").keys())
		}
		for _, name := range doc.at("properties").keys() {
			g, d := got.at("properties", name), apiDoc.deref(doc.at("properties", name))
			if fmt.Sprint(g["enum"], g["maximum"], g["maxLength"]) != fmt.Sprint(d["enum"], d["maximum"], d["maxLength"]) {
				t.Errorf("patch_settings' %s.%s is %v; the document's %v", el.name, name, g, d)
			}
		}
	}

	r := inputs["list_reviews"].at("properties", "rating")
	if r["minimum"] != 1.0 || r["maximum"] != 5.0 {
		t.Errorf("list_reviews' rating range %v to %v, want 1 to 5", r["minimum"], r["maximum"])
	}
}

// obj is a JSON or YAML object read into Go values.
type obj map[string]any

func readDoc(t *testing.T, path string) obj {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any // not obj: yaml.v3 would make every object one
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// at is the object under the keys; nil when one is missing.
func (o obj) at(keys ...string) obj {
	for _, k := range keys {
		m, _ := o[k].(map[string]any)
		o = m
	}
	return o
}

func (o obj) str(key string) string { s, _ := o[key].(string); return s }

func (o obj) keys() []string { return slices.Sorted(maps.Keys(o)) }

func (o obj) list(key string) []obj {
	var out []obj
	items, _ := o[key].([]any)
	for _, v := range items {
		m, _ := v.(map[string]any)
		out = append(out, m)
	}
	return out
}

func (o obj) strs(key string) []string {
	var out []string
	items, _ := o[key].([]any)
	for _, v := range items {
		s, _ := v.(string)
		out = append(out, s)
	}
	return out
}

// deref follows o's $ref within the document d.
func (d obj) deref(o obj) obj {
	ref, ok := strings.CutPrefix(o.str("$ref"), "#/")
	if !ok {
		return o
	}
	return d.at(strings.Split(ref, "/")...)
}
