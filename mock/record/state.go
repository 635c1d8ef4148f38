package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/replymock/replymock/mock/probe/upstream"
)

// recordState is an unfinished recording, kept in Out/.record-NAME.jsonl
// so that a run cut short goes on where it stood. The file's first line
// holds the target and its settings, then a line is appended per page.
type recordState struct {
	From     string          `json:"from"`
	Settings json.RawMessage `json:"settings"`

	offset  int // the list's offset the next page starts at
	total   int // the list's total, as last answered
	records []json.RawMessage
	seen    map[string]bool
}

// statePage is a line of the state file after the first.
type statePage struct {
	Offset  int               `json:"offset"` // of the page's first record
	Total   int               `json:"total"`
	Records []json.RawMessage `json:"records"`
}

// add keeps a page's records, each once.
func (st *recordState) add(p statePage) {
	if st.seen == nil {
		st.seen = map[string]bool{}
	}
	for _, raw := range p.Records {
		if k := recordKey(raw); k == "/" || !st.seen[k] {
			st.seen[k] = true
			st.records = append(st.records, raw)
		}
	}
	st.offset, st.total = p.Offset+len(p.Records), p.Total
}

// loadState reads the state file of an earlier run from the same
// target, or returns nil for none. A line cut short by a crash is cut
// off the file.
func loadState(path, from string) (*recordState, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil
	}
	st := &recordState{}
	good := 0
	for i, line := range bytes.SplitAfter(data, []byte("\n")) {
		if !bytes.HasSuffix(line, []byte("\n")) {
			break
		}
		if i == 0 {
			if json.Unmarshal(line, st) != nil || st.From != from || st.Settings == nil {
				return nil, nil // another target's, or unreadable: start again
			}
		} else {
			var p statePage
			if json.Unmarshal(line, &p) != nil {
				break
			}
			st.add(p)
		}
		good += len(line)
	}
	if good == 0 {
		return nil, nil
	}
	if good < len(data) {
		if err := os.Truncate(path, int64(good)); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// stateSize is the size of the state file at path, 0 for none. A file
// over max, what a recording may read, is refused.
func stateSize(path string, max int64) (int64, error) {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return 0, nil
	case fi.Size() > max:
		return 0, fmt.Errorf("the unfinished recording %s holds %s, more than the %s a recording reads (--max-read-mib): remove it to start again, or raise the bound", path, upstream.Size(fi.Size()), upstream.Size(max))
	}
	return fi.Size(), nil
}

// budget is the most a recording writes, and what it has written.
type budget struct{ max, used int64 }

// take counts n more bytes written to file, or refuses them past max.
func (b *budget) take(n int64, file string) error {
	if b.used+n > b.max {
		return fmt.Errorf("writing %s would take what the recording writes over %s (--max-write-mib), %s written before it", file, upstream.Size(b.max), upstream.Size(b.used))
	}
	b.used += n
	return nil
}

// appendLine appends v as a line of JSON to the file at path and syncs
// it, within the budget out.
func appendLine(path string, v any, create bool, out *budget) error {
	b := append(mustJSON(v), '\n')
	if err := out.take(int64(len(b)), filepath.Base(path)); err != nil {
		return err
	}
	flags := os.O_WRONLY | os.O_APPEND
	if create {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// recordKey names a record by its id and feedback_id.
func recordKey(raw json.RawMessage) string {
	var k struct {
		ID         json.Number `json:"id"`
		FeedbackID string      `json:"feedback_id"`
	}
	json.Unmarshal(raw, &k)
	return k.ID.String() + "/" + k.FeedbackID
}
