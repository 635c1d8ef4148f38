package mcp

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/replymock/replymock/mock/internal/fault"
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

// TestSchemasFollowTheTables: add_fault's kind enum is the fault kind
// table's, and list_reviews' rating range the API's.
func TestSchemasFollowTheTables(t *testing.T) {
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
	var want []any
	for _, k := range fault.Kinds() {
		want = append(want, k.Name)
	}
	checked := 0
	for _, tl := range res.Tools {
		b, _ := json.Marshal(tl.InputSchema)
		var s struct {
			Properties map[string]struct {
				Enum             []any
				Minimum, Maximum *float64
			}
		}
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		switch tl.Name {
		case "add_fault":
			checked++
			if got := s.Properties["kind"].Enum; !slices.Equal(got, want) {
				t.Errorf("add_fault's kinds %v, the table's %v", got, want)
			}
		case "list_reviews":
			checked++
			r := s.Properties["rating"]
			if r.Minimum == nil || r.Maximum == nil || *r.Minimum != 1 || *r.Maximum != 5 {
				t.Errorf("list_reviews' rating range %v to %v, want 1 to 5", r.Minimum, r.Maximum)
			}
		}
	}
	if checked != 2 {
		t.Fatalf("checked %d tools, want add_fault and list_reviews", checked)
	}
}
