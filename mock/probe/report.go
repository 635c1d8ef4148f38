package probe

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"
)

// Formats are the report formats Write knows.
var Formats = []string{"table", "json", "junit"}

// Write writes the report in format: "table", "json" or "junit".
func (r *Report) Write(w io.Writer, format string) error {
	switch format {
	case "table":
		return r.WriteTable(w)
	case "json":
		return r.WriteJSON(w)
	case "junit":
		return r.WriteJUnit(w)
	}
	return fmt.Errorf("unknown report format %q; want one of %s", format, strings.Join(Formats, ", "))
}

// summary is the report's last line.
func (r *Report) summary() string {
	return fmt.Sprintf("%d rules: %d hold, %d differ, %d could not be checked; %d requests sent (at most %d), %s",
		len(r.Results), r.Count(Holds), r.Count(Differs), r.Count(NotChecked), r.Requests, r.MaxRequests, r.Duration.Round(100*time.Millisecond))
}

// WriteTable writes the report for a person: a line a rule, and the
// evidence under each rule that differs.
func (r *Report) WriteTable(w io.Writer) error {
	mode := "read-only"
	if r.Writes {
		mode = "with writes"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "replymock probe of %s (%s)\n\n", r.Target, mode)
	width := len("RULE")
	for _, res := range r.Results {
		width = max(width, len(res.Rule))
	}
	const statusWidth = len(NotChecked)
	fmt.Fprintf(&b, "%-*s  %-*s  %s\n", width, "RULE", statusWidth, "RESULT", "DETAIL")
	for _, res := range r.Results {
		fmt.Fprintf(&b, "%-*s  %-*s  %s\n", width, res.Rule, statusWidth, res.Status, res.Detail)
		for _, ev := range res.Evidence {
			indent := strings.Repeat(" ", width+2)
			fmt.Fprintf(&b, "%s> %s\n", indent, ev.Request)
			if ev.Body != "" {
				fmt.Fprintf(&b, "%s  %s\n", indent, ev.Body)
			}
			if ev.Status == 0 {
				fmt.Fprintf(&b, "%s< (no answer)\n", indent)
			} else {
				fmt.Fprintf(&b, "%s< %d %s\n", indent, ev.Status, ev.Answer)
			}
		}
	}
	fmt.Fprintf(&b, "\n%s\n", r.summary())
	_, err := io.WriteString(w, b.String())
	return err
}

// jsonReport is the JSON form of a Report, with durations in
// milliseconds and the counts.
type jsonReport struct {
	*Report
	DurationMS int64 `json:"duration_ms"`
	Summary    struct {
		Holds      int `json:"holds"`
		Differs    int `json:"differs"`
		NotChecked int `json:"could_not_check"`
	} `json:"summary"`
	Results []jsonResult `json:"rules"`
}

type jsonResult struct {
	Result
	DurationMS int64 `json:"duration_ms"`
}

// WriteJSON writes the report as one JSON object, for machines.
func (r *Report) WriteJSON(w io.Writer) error {
	out := jsonReport{Report: r, DurationMS: r.Duration.Milliseconds()}
	out.Summary.Holds, out.Summary.Differs, out.Summary.NotChecked = r.Count(Holds), r.Count(Differs), r.Count(NotChecked)
	out.Results = make([]jsonResult, len(r.Results))
	for i, res := range r.Results {
		out.Results[i] = jsonResult{res, res.Duration.Milliseconds()}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// junitCounts are the attributes a suite and the suites share.
type junitCounts struct {
	Name     string `xml:"name,attr"`
	Tests    int    `xml:"tests,attr"`
	Failures int    `xml:"failures,attr"`
	Errors   int    `xml:"errors,attr"`
	Skipped  int    `xml:"skipped,attr"`
	Time     string `xml:"time,attr"`
}

type junitSuites struct {
	XMLName xml.Name `xml:"testsuites"`
	junitCounts
	Suites []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	junitCounts
	Timestamp  string          `xml:"timestamp,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
	SystemOut  string          `xml:"system-out,omitempty"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

func seconds(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// WriteJUnit writes the report as JUnit XML, so CI shows each rule as a
// test. A rule that differs fails; one that could not be checked is
// skipped.
func (r *Report) WriteJUnit(w io.Writer) error {
	counts := junitCounts{Name: "replymock probe", Tests: len(r.Results), Failures: r.Count(Differs), Skipped: r.Count(NotChecked), Time: seconds(r.Duration)}
	suite := junitSuite{
		junitCounts: counts, Timestamp: r.Started.UTC().Format(time.RFC3339),
		Properties: []junitProperty{
			{"target", r.Target},
			{"writes", fmt.Sprint(r.Writes)},
			{"requests", fmt.Sprint(r.Requests)},
			{"max_requests", fmt.Sprint(r.MaxRequests)},
		},
		SystemOut: r.summary(),
	}
	for _, res := range r.Results {
		group, _, _ := strings.Cut(res.Rule, ".")
		c := junitCase{Name: res.Rule, Classname: "probe." + group, Time: seconds(res.Duration)}
		switch res.Status {
		case Differs:
			var text strings.Builder
			fmt.Fprintf(&text, "%s\n%s\n", res.Title, res.Detail)
			for _, ev := range res.Evidence {
				fmt.Fprintf(&text, "> %s\n", ev.Request)
				if ev.Body != "" {
					fmt.Fprintf(&text, "  %s\n", ev.Body)
				}
				fmt.Fprintf(&text, "< %d %s\n", ev.Status, ev.Answer)
			}
			c.Failure = &junitMessage{Message: res.Detail, Type: "differs", Text: text.String()}
		case NotChecked:
			c.Skipped = &junitMessage{Message: "could not check: " + res.Detail}
		default:
			c.SystemOut = res.Title + "\n" + res.Detail
		}
		suite.Cases = append(suite.Cases, c)
	}
	doc := junitSuites{junitCounts: counts, Suites: []junitSuite{suite}}
	b, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, xml.Header+string(b)+"\n")
	return err
}
