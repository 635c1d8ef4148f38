package mock

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/replymock/replymock/mock/internal/wire"
	"gopkg.in/yaml.v3"
)

// SnapshotFormat names the document GET /__mock/snapshot writes and POST
// /__mock/snapshot reads: a session as it is (see Snapshot).
const SnapshotFormat = "replymock-snapshot/1"

// MaxSnapshotBytes bounds a snapshot document: a session's seeded reviews
// (MaxSeedReviews) and a living shop's arrivals and answers
// (MaxShopReviews each) fit with room.
const MaxSnapshotBytes = 96 << 20

// MaxSnapshotYAMLBytes bounds a snapshot sent as YAML, which takes many
// times its size while it is read: a bigger one goes as JSON.
const MaxSnapshotYAMLBytes = 8 << 20

// Snapshot is everything that makes a session what it is: the scenario it
// picked, its overrides and run-time faults with their counters, and per
// scenario it used its settings, the reviews it seeded, the counters of
// the scenario's faults and its living shop (clock, arrivals, answers and
// drafts, and where the reply engine's random sequence stands). Restored
// (Server.Restore), the session answers the list, counts and settings
// byte for byte as it did. The journal and rate-limit windows are not
// part of it: a restored session starts them afresh.
type Snapshot struct {
	Format  string    `json:"format"`
	Session string    `json:"session"`
	TakenAt time.Time `json:"taken_at"`
	// ServerVersion is the version of the server that took it, for a reader.
	ServerVersion string `json:"server_version,omitempty"`
	// MediaBase is the base of the media URLs in its reviews (the public
	// URL of the server that took it); restored on a server reached
	// elsewhere, the URLs are moved to that server's.
	MediaBase string `json:"media_base,omitempty"`
	// Scenario is the session's pick (PUT /__mock/scenario); "" follows
	// the server's.
	Scenario  string     `json:"scenario,omitempty"`
	Overrides *Overrides `json:"overrides,omitempty"`
	// Faults are the session's run-time faults, in the order added.
	Faults []SnapshotFault `json:"faults,omitempty"`
	// SharedFaultCounters count the session's requests that met run-time
	// faults for every session, by fault id.
	SharedFaultCounters []SharedFaultCount `json:"shared_fault_counters,omitempty"`
	// Scenarios is the session's state in each scenario it used, by name.
	Scenarios []ScenarioSnapshot `json:"scenarios,omitempty"`
}

// SnapshotFault is a run-time fault and what the session's requests did
// with it.
type SnapshotFault struct {
	Fault
	Matched int `json:"matched"` // matching requests seen
	Hit     int `json:"hit"`     // requests the fault applied to
}

// SharedFaultCount is a session's counter of a fault for every session.
type SharedFaultCount struct {
	ID      string `json:"id"`
	Matched int    `json:"matched"`
	Hit     int    `json:"hit"`
}

// ScenarioFaultCount is a session's counter of a scenario's own fault,
// the Index-th of its faults list.
type ScenarioFaultCount struct {
	Index   int `json:"index"`
	Matched int `json:"matched"`
	Hit     int `json:"hit"`
}

// ScenarioSnapshot is a session's state in one scenario.
type ScenarioSnapshot struct {
	Name string `json:"name"`
	// Fingerprint names the scenario's version (its file, fixtures and
	// seed); DataEnd is where its generated data ends, when anchored to
	// the present. Fault counters and the living shop are restored only
	// on the same version and end.
	Fingerprint   string               `json:"fingerprint"`
	DataEnd       string               `json:"data_end,omitempty"`
	Settings      *Settings            `json:"settings,omitempty"`
	FaultCounters []ScenarioFaultCount `json:"fault_counters,omitempty"`
	Seeded        *SeededSnapshot      `json:"seeded,omitempty"`
	Shop          *ShopSnapshot        `json:"shop,omitempty"`
}

// SeededSnapshot is what a session seeded in a scenario (PUT /__mock/data).
type SeededSnapshot struct {
	Mode    string            `json:"mode"`    // replace or append
	Reviews []json.RawMessage `json:"reviews"` // as the list shows them, oldest first
}

// check looks the document over before anything is built of it.
func (snap *Snapshot) check() error {
	if snap.Format != SnapshotFormat {
		return wire.InvalidBody("format", "must be %q (a snapshot of GET /__mock/snapshot), got %q", SnapshotFormat, clip(snap.Format))
	}
	if !validID(snap.Session) {
		return wire.InvalidBody("session", "%s", msgBadSessionID)
	}
	if snap.Overrides != nil {
		if err := snap.Overrides.Validate(); err != nil {
			return prefixField(err, "overrides")
		}
		if n := snap.Overrides.Size(); n > MaxSessionOverrideBytes {
			return wire.InvalidBody("overrides.auth.tokens", "a session's overrides keep at most %d KiB of tokens, and these take %d bytes", MaxSessionOverrideBytes>>10, n)
		}
	}
	if snap.MediaBase != "" {
		if _, err := ParsePublicURL(snap.MediaBase); err != nil {
			return wire.InvalidBody("media_base", "%v", err)
		}
	}
	if len(snap.Faults) > MaxRuntimeFaults {
		return wire.InvalidBody("faults", "at most %d, got %d", MaxRuntimeFaults, len(snap.Faults))
	}
	for i := range snap.Faults {
		f := &snap.Faults[i]
		if probs := f.Fault.Validate(); len(probs) > 0 {
			return wire.InvalidBody(fmt.Sprintf("faults[%d].%s", i, probs[0].Field), "%s", probs[0].Msg)
		}
		if f.Matched < 0 || f.Hit < 0 || f.Hit > f.Matched {
			return wire.InvalidBody(fmt.Sprintf("faults[%d].hit", i), "counters must be 0 <= hit <= matched")
		}
	}
	if len(snap.Scenarios) > maxSnapshotScenarios {
		return wire.InvalidBody("scenarios", "at most %d, got %d", maxSnapshotScenarios, len(snap.Scenarios))
	}
	if len(snap.SharedFaultCounters) > MaxRuntimeFaults {
		return wire.InvalidBody("shared_fault_counters", "at most %d, got %d", MaxRuntimeFaults, len(snap.SharedFaultCounters))
	}
	seen := make(map[string]bool)
	for i, rec := range snap.Scenarios {
		path := fmt.Sprintf("scenarios[%d]", i)
		if rec.Name == "" || seen[rec.Name] {
			return wire.InvalidBody(path+".name", "must name a scenario, each once")
		}
		seen[rec.Name] = true
		if len(rec.FaultCounters) > MaxFaults {
			return wire.InvalidBody(path+".fault_counters", "at most %d, got %d", MaxFaults, len(rec.FaultCounters))
		}
		for j, c := range rec.FaultCounters {
			if c.Index < 0 || c.Matched < 0 || c.Hit < 0 || c.Hit > c.Matched {
				return wire.InvalidBody(fmt.Sprintf("%s.fault_counters[%d]", path, j), "index must be >= 0 and counters 0 <= hit <= matched")
			}
		}
		// Counted before anything is decoded of them.
		if sd := rec.Seeded; sd != nil && len(sd.Reviews) > MaxSeedReviews {
			return wire.InvalidBody(path+".seeded.reviews", "at most %d, got %d", MaxSeedReviews, len(sd.Reviews))
		}
		if sh := rec.Shop; sh != nil {
			if err := sh.Check(path + ".shop"); err != nil {
				return err
			}
		}
	}
	return nil
}

// DecodeSnapshot reads a snapshot document, JSON or YAML, strictly: an
// unknown field is an error naming it.
func DecodeSnapshot(data []byte) (*Snapshot, error) { return decodeSnapshot(data, true) }

// decodeSnapshot is DecodeSnapshot, of YAML too when allowYAML is set.
func decodeSnapshot(data []byte, allowYAML bool) (*Snapshot, error) {
	data = bytes.TrimSpace(data)
	if allowYAML && len(data) > 0 && data[0] != '{' {
		js, err := wire.YAMLToJSON(data)
		if err != nil {
			return nil, err
		}
		data = js
	}
	var snap Snapshot
	if err := wire.DecodeStrict(data, &snap); err != nil {
		return nil, namedUnknown(err)
	}
	return &snap, snap.check()
}

// MarshalSnapshot writes snap as JSON, or as YAML (block style, the
// reviews among it as readable as the rest).
func MarshalSnapshot(snap *Snapshot, asYAML bool) ([]byte, error) {
	js, err := json.Marshal(snap)
	if err != nil || !asYAML {
		return js, err
	}
	var n yaml.Node
	if err := yaml.Unmarshal(js, &n); err != nil {
		return nil, err
	}
	blockStyle(&n)
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&n); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

// blockStyle drops the flow style and quotes JSON gave every node: the
// encoder quotes what needs it.
func blockStyle(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		blockStyle(c)
	}
}

// redactTokens hides the bearer tokens of the session's auth override:
// a snapshot is made to be handed on, and secrets never come back out of
// the server. Restored, such an override is left out (see Restore);
// --state-dir, which keeps them, writes its files itself.
func (snap *Snapshot) redactTokens() {
	if o := snap.Overrides; o != nil && o.Auth != nil && len(o.Auth.Tokens) > 0 {
		c, a := *o, *o.Auth
		a.Tokens = []string{redacted}
		c.Auth = &a
		snap.Overrides = &c
	}
}

// IsSnapshot reports whether data is a snapshot document (its format
// key names one), rather than a scenario or fixture.
func IsSnapshot(data []byte) bool {
	var head struct {
		Format string `yaml:"format"`
	}
	yaml.Unmarshal(data, &head) // JSON is YAML; a broken file is no snapshot
	return strings.HasPrefix(head.Format, "replymock-snapshot/")
}

// ValidateSnapshot checks a snapshot file as POST /__mock/snapshot would
// restore it into a server of opts (its scenarios): a problem is an
// error naming the file and the field; notes say what would not come
// back as it was (a scenario gone or changed since).
func ValidateSnapshot(opts Options, path string, data []byte) (notes []string, err error) {
	if len(data) > MaxSnapshotBytes {
		return nil, &Problem{File: path, Message: fmt.Sprintf("larger than a snapshot may be (%d MiB)", MaxSnapshotBytes>>20)}
	}
	snap, err := DecodeSnapshot(data)
	if err == nil {
		var s *Server
		if s, err = New(opts); err != nil {
			return nil, err
		}
		var res RestoreResult
		res, err = s.Restore("", snap)
		notes = res.Dropped
	}
	if ae, ok := err.(*APIError); ok {
		return nil, &Problem{File: path, Field: ae.Field, Message: ae.Message}
	}
	return notes, err
}
