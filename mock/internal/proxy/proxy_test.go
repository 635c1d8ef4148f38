package proxy

import (
	"strings"
	"testing"
	"time"
)

func TestSpecProblemsAndTakes(t *testing.T) {
	for raw, want := range map[string]string{
		"https://api.example.test":     "",
		"http://127.0.0.1:9/base":      "",
		"ftp://x":                      "absolute http or https",
		"/relative":                    "absolute http or https",
		"https://u:p@api.example.test": "no query, fragment or user",
		"https://api.example.test/?q":  "no query, fragment or user",
	} {
		_, err := ParseURL(raw)
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("ParseURL(%q) = %v, want %q", raw, err, want)
		}
	}
	sp := &Spec{URL: "https://api.example.test", Paths: []string{"/questions/**", "[", "x"}}
	var fields []string
	for _, p := range sp.Problems() {
		fields = append(fields, p.Field)
	}
	if got := strings.Join(fields, " "); got != "paths[1] paths[2]" {
		t.Errorf("problems at %s, want paths[1] paths[2]", got)
	}
	ok := &Spec{URL: "https://api.example.test", Paths: []string{"/questions/**"}}
	for _, tc := range []struct {
		path  string
		faked bool
		want  bool
	}{{"/feedbacks", true, false}, {"/unknown", false, true}, {"/questions", true, true}, {"/questions/1", true, true}} {
		if got := ok.Takes(tc.path, tc.faked); got != tc.want {
			t.Errorf("Takes(%s, faked %v) = %v", tc.path, tc.faked, got)
		}
	}
}

func TestPoolSpec(t *testing.T) {
	own := &Spec{URL: "https://own.example.test"}
	if p := NewPool("", time.Second, nil); p.Spec(nil) != nil || p.Spec(own) != own {
		t.Error("without Options.Proxy: a scenario's own spec or none")
	}
	if p := NewPool("https://all.example.test", time.Second, nil); p.Spec(nil).URL != "https://all.example.test" || p.Spec(own) != own {
		t.Error("with Options.Proxy: a scenario's own spec wins, else the server's")
	}
}
