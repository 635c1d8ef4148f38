package scenario

import (
	"bytes"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/replymock/replymock/mock/internal/yamlfile"
	"github.com/replymock/replymock/scenarios"
)

// unknownKeys is a scenario file with n unknown top-level keys, 13 bytes
// a line: 20,000 of them are some 260 KB.
func unknownKeys(n int) []byte {
	var b strings.Builder
	b.WriteString("description: x\n")
	for i := range n {
		fmt.Fprintf(&b, "k%05d: 1234\n", i)
	}
	return []byte(b.String())
}

// unknownInList is a scenario file whose faults list has n entries, each
// with an unknown key: n problems in n small mappings.
func unknownInList(n int) []byte {
	var b strings.Builder
	b.WriteString("description: x\nfaults:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - {x%05d: 1}\n", i)
	}
	return []byte(b.String())
}

// Validating costs time in proportion to the file and its problems:
// 2,000 and 20,000 of them, per problem alike.
func BenchmarkValidateProblems(b *testing.B) {
	for _, shape := range []struct {
		name string
		file func(int) []byte
	}{{"keys", unknownKeys}, {"list", unknownInList}} {
		for _, n := range []int{2_000, 20_000} {
			data := shape.file(n)
			b.Run(fmt.Sprintf("%s=%d", shape.name, n), func(b *testing.B) {
				for b.Loop() {
					if err := ValidateFiles(Config{}, []SourceFile{{Path: "bad.yaml", Data: data}}); err == nil {
						b.Fatal("no problems")
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/problem")
			})
		}
	}
}

// A reload of a file with 10,000 problems logs one line of the first
// MaxLoggedProblems and how many more there are, and the report of
// validating it lists the first yamlfile.MaxProblems the same way.
func TestReloadLogsProblemsCapped(t *testing.T) {
	def, err := scenarios.FS.ReadFile("default.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files := fstest.MapFS{"default.yaml": {Data: def}}
	var logs bytes.Buffer
	r := load(t, Config{Scenarios: files, Logger: slog.New(slog.NewTextHandler(&logs, nil))}, "")
	files["bad.yaml"] = &fstest.MapFile{Data: unknownInList(10_000)}
	if err := r.Reload(false); err == nil {
		t.Fatal("a file of 10,000 problems reloaded")
	}
	line := logs.String()
	if n := strings.Count(line, "\n"); n != 1 {
		t.Fatalf("%d log lines, want 1:\n%.2000s", n, line)
	}
	if n := strings.Count(line, "unknown field"); n != MaxLoggedProblems-2 { // the first two are the missing seed and settings
		t.Errorf("the log line names %d unknown fields, want %d", n, MaxLoggedProblems-2)
	}
	if !strings.Contains(line, "bad.yaml: and 9992 more problems, not listed") || len(line) > 4<<10 {
		t.Errorf("the log line (%d bytes) does not end with the count of those left out:\n%.2000s", len(line), line)
	}
	err = ValidateFiles(Config{}, []SourceFile{{Path: "bad.yaml", Data: unknownInList(10_000)}})
	got := strings.Split(err.Error(), "\n")
	if len(got) != yamlfile.MaxProblems+1 || got[len(got)-1] != fmt.Sprintf("bad.yaml: and %d more problems, not listed", 10_002-yamlfile.MaxProblems) {
		t.Errorf("validating it: %d lines, the last %q", len(got), got[len(got)-1])
	}
}

// A reload of a changed file with many problems costs what validating it
// does (BenchmarkValidateProblems): 10,000 unknown keys, and 20,000
// problems in a list.
func BenchmarkReloadProblems(b *testing.B) {
	def, err := scenarios.FS.ReadFile("default.yaml")
	if err != nil {
		b.Fatal(err)
	}
	for _, shape := range []struct {
		name string
		data []byte
	}{{"keys=10000", unknownKeys(10_000)}, {"list=20000", unknownInList(20_000)}} {
		b.Run(shape.name, func(b *testing.B) {
			files := fstest.MapFS{"default.yaml": {Data: def}}
			r, err := Load(NewLoader(Config{Scenarios: files}), time.Now(), "default")
			if err != nil {
				b.Fatal(err)
			}
			bad := [2][]byte{shape.data, append(slices.Clone(shape.data), "# changed\n"...)}
			i := 0
			for b.Loop() {
				files["bad.yaml"] = &fstest.MapFile{Data: bad[i%2]} // changed each time
				i++
				if err := r.Reload(false); err == nil {
					b.Fatal("reloaded")
				}
			}
		})
	}
}
