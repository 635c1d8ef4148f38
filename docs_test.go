package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The shell examples of the document pages run as written. A page is any
// Markdown file of the repository; an example is a fenced block whose
// info string is sh, shell or bash. Its commands run in order, in one
// bash per block, against one fresh server (the real binary, built once,
// on a free loopback port that takes the place of localhost:8080), with
// that binary on PATH as replymock and a fresh empty folder as the
// working directory. What a command prints is written under it as
// comment lines that start with "#> " (a lone "#>" is an empty line);
// "..." in such a line stands for any text within the line, a line
// "#> ..." for any number of lines, and a last line "#> [exit N]" for
// the command's exit status, which is otherwise 0, shown or not. A
// block not meant to run says so and why: ```sh norun REASON. After each
// block the server's shared state (the active scenario, run-time faults,
// overrides, the default session's settings and data) is as before it:
// a block works in sessions of its own or undoes what it changed. Each
// block runs twice and must print the same both times, as a reader
// who pastes it twice sees; what a command prints ends with a line
// break, so that pasted outputs do not run together.

// docExample is one fenced shell block of a page.
type docExample struct {
	page  string
	line  int // of the opening fence
	info  string
	steps []docStep
}

// docStep is a command and what it prints.
type docStep struct {
	line    int      // of the command's first line
	command string   // shell text, continuation lines and comments included
	want    []string // the "#>" lines, without the prefix; nil: not shown
	exit    int
}

var exitLineRE = regexp.MustCompile(`^\[exit (\d+)\]$`)

// docExamples reads the shell blocks of a Markdown page.
func docExamples(t *testing.T, page, text string) []docExample {
	var out []docExample
	var cur *docExample
	var step *docStep
	inFence := false
	for i, line := range strings.Split(text, "\n") {
		n := i + 1
		if strings.HasPrefix(line, "```") {
			if inFence {
				inFence = false
				if cur != nil {
					out = append(out, *cur)
					cur, step = nil, nil
				}
				continue
			}
			inFence = true
			info := strings.TrimSpace(strings.TrimPrefix(line, "```"))
			if lang, _, _ := strings.Cut(info, " "); lang == "sh" || lang == "shell" || lang == "bash" {
				cur = &docExample{page: page, line: n, info: info}
			}
			continue
		}
		if cur == nil {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "#>"); ok && (rest == "" || rest[0] == ' ') {
			if step == nil {
				t.Errorf("%s:%d: output shown before any command", page, n)
				continue
			}
			rest = strings.TrimPrefix(rest, " ")
			if m := exitLineRE.FindStringSubmatch(rest); m != nil {
				step.exit, _ = strconv.Atoi(m[1])
				continue
			}
			step.want = append(step.want, rest)
			continue
		}
		if step == nil || step.want != nil || step.exit != 0 {
			if strings.TrimSpace(line) == "" && step == nil {
				continue
			}
			cur.steps = append(cur.steps, docStep{line: n})
			step = &cur.steps[len(cur.steps)-1]
		}
		step.command += line + "\n"
	}
	if inFence {
		t.Errorf("%s: a code block is not closed", page)
	}
	return out
}

// wantRE turns a step's shown output into a pattern of the whole output.
func wantRE(want []string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`^`)
	for i, line := range want {
		if line == "..." {
			b.WriteString(`(?:[^\n]*(?:\n|$))*?`)
			continue
		}
		parts := strings.Split(line, "...")
		for j, p := range parts {
			if j > 0 {
				b.WriteString(`[^\n]*?`)
			}
			b.WriteString(regexp.QuoteMeta(p))
		}
		if i < len(want)-1 {
			b.WriteString(`\n`)
		}
	}
	b.WriteString(`$`)
	return regexp.MustCompile(b.String())
}

// docServer is the server the examples run against.
type docServer struct {
	addr string // 127.0.0.1:PORT
	bin  string // the folder holding the replymock binary
}

// startDocServer builds replymock and starts it on a free loopback port.
func startDocServer(t *testing.T) docServer {
	t.Helper()
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "replymock"), ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, filepath.Join(dir, "replymock"), "--addr", "127.0.0.1:0", "--log-format", "text")
	cmd.Dir = dir
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); cmd.Wait() })
	addrRE := regexp.MustCompile(`msg="replymock serving" addr=(\S+)`)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := addrRE.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				break
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	select {
	case addr := <-found:
		return docServer{addr: addr, bin: dir}
	case <-time.After(60 * time.Second):
		t.Fatal("replymock did not say where it serves")
	}
	return docServer{}
}

// sharedState reads what a block must leave as it found it.
func (s docServer) sharedState(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, p := range []string{"/__mock/scenarios?session=*", "/__mock/faults?session=*", "/__mock/overrides", "/__mock/settings", "/__mock/data"} {
		resp, err := http.Get("http://" + s.addr + p)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Fprintf(&b, "%s %d %s\n", p, resp.StatusCode, body)
	}
	return b.String()
}

// local puts the test's server where the documents say localhost:8080.
func (s docServer) local(text string) string {
	for _, a := range []string{"localhost:8080", "127.0.0.1:8080"} {
		text = strings.ReplaceAll(text, a, s.addr)
	}
	return text
}

const stepMark = "\x1fstep-done"

// run runs a block's commands in one bash and returns each one's output
// and exit status.
func (s docServer) run(t *testing.T, ex docExample) (outs []string, codes []int) {
	t.Helper()
	var script strings.Builder
	script.WriteString("exec 2>&1\n")
	for _, st := range ex.steps {
		script.WriteString(s.local(st.command))
		fmt.Fprintf(&script, "printf '\\n%s %%d\\n' $?\n", stepMark)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-c", script.String())
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "PATH="+s.bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+cmd.Dir)
	out, err := cmd.Output()
	if err != nil {
		t.Errorf("%s:%d: the block did not run to its end: %v\n%s", ex.page, ex.line, err, out)
	}
	rest := string(out)
	for range ex.steps {
		before, after, ok := strings.Cut(rest, "\n"+stepMark+" ")
		if !ok {
			break
		}
		code, tail, _ := strings.Cut(after, "\n")
		c, _ := strconv.Atoi(code)
		outs, codes, rest = append(outs, before), append(codes, c), tail
	}
	return outs, codes
}

func TestDocExamples(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatal("the document examples need bash")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Fatal("the document examples need curl")
	}
	var pages []string
	for _, p := range repositoryFiles(t) {
		if strings.HasSuffix(p, ".md") {
			pages = append(pages, p)
		}
	}
	slices.SortFunc(pages, func(a, b string) int { // the guide first
		if (a == "README.md") != (b == "README.md") {
			if a == "README.md" {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	srv := startDocServer(t)
	before := srv.sharedState(t)
	ran, commands, compared, norun := 0, 0, 0, 0
	for _, p := range pages {
		t.Run(p, func(t *testing.T) {
			for _, ex := range docExamples(t, p, readFile(t, p)) {
				if _, reason, ok := strings.Cut(ex.info, " norun"); ok {
					if strings.TrimSpace(strings.TrimPrefix(reason, ":")) == "" {
						t.Errorf("%s:%d: a block not run says why: ```sh norun: REASON", ex.page, ex.line)
					}
					norun++
					continue
				}
				if ex.info != strings.Fields(ex.info)[0] {
					t.Errorf("%s:%d: info string %q: a shell block is run, or marked norun with a reason", ex.page, ex.line, ex.info)
					continue
				}
				ran++
				commands += len(ex.steps)
				for round := range 2 {
					compared += srv.check(t, ex, round)
					if after := srv.sharedState(t); after != before {
						t.Errorf("%s:%d: the block leaves the server changed (use a session of its own, or undo):\n%s", ex.page, ex.line, stateDiff(before, after))
						before = after
					}
				}
			}
		})
	}
	t.Logf("%d pages: %d shell blocks run: %d steps (commands up to what they print), %d with their output compared; %d blocks marked norun", len(pages), ran, commands, compared, norun)
}

// check runs a block and compares what each command prints with the
// page; it returns how many commands' output it compared. round is 0
// for the first run of the block, 1 for the second.
func (s docServer) check(t *testing.T, ex docExample, round int) (compared int) {
	t.Helper()
	when := ""
	if round > 0 {
		when = " (run a second time)"
	}
	outs, codes := s.run(t, ex)
	for i, st := range ex.steps {
		if i >= len(outs) {
			t.Errorf("%s:%d: did not run%s", ex.page, st.line, when)
			continue
		}
		if outs[i] != "" && !strings.HasSuffix(outs[i], "\n") {
			t.Errorf("%s:%d: what it prints does not end with a line break (curl -w '\\n', or echo), so the next output runs on: %q", ex.page, st.line, tail(outs[i]))
		}
		got := trimLines(outs[i])
		if codes[i] != st.exit {
			t.Errorf("%s:%d: exit status %d, want %d%s; it printed:\n%s", ex.page, st.line, codes[i], st.exit, when, got)
		}
		if st.want == nil {
			continue
		}
		compared++
		want := strings.Split(s.local(strings.Join(st.want, "\n")), "\n")
		if !wantRE(want).MatchString(got) {
			t.Errorf("%s:%d:\n%s\nprints%s:\n%s\nthe page shows:\n%s", ex.page, st.line, strings.TrimSpace(st.command), when, got, strings.Join(st.want, "\n"))
		}
	}
	return compared
}

// trimLines drops what a reader cannot see: spaces at the ends of lines
// and empty lines at the end.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

// stateDiff shows the parts of the shared state that differ, shortened.
func stateDiff(before, after string) string {
	short := func(s string) string {
		if len(s) > 300 {
			return s[:300] + "..."
		}
		return s
	}
	b, a := strings.Split(before, "\n"), strings.Split(after, "\n")
	var out strings.Builder
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			fmt.Fprintf(&out, "before: %s\nafter:  %s\n", short(b[i]), short(a[i]))
		}
	}
	return out.String()
}

// tail is the end of s, for a message.
func tail(s string) string {
	if len(s) > 60 {
		return "..." + s[len(s)-60:]
	}
	return s
}
