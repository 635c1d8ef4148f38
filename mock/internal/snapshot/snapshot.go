// Package snapshot takes a session whole and restores it.
//
// It owns the snapshot document (its parts, checks, JSON and YAML) and
// the Keeper that takes and restores a server's sessions. It owns no HTTP.
package snapshot

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/fault"
	"github.com/replymock/replymock/mock/internal/fixture"
	"github.com/replymock/replymock/mock/internal/media"
	"github.com/replymock/replymock/mock/internal/scenario"
	"github.com/replymock/replymock/mock/internal/session"
	"github.com/replymock/replymock/mock/internal/settings"
	"github.com/replymock/replymock/mock/internal/shared"
	"github.com/replymock/replymock/mock/internal/shop"
	"github.com/replymock/replymock/mock/internal/wire"
)

// Format names the document GET /__mock/snapshot writes and POST
// /__mock/snapshot reads: a session as it is (see Snapshot).
const Format = "replymock-snapshot/1"

// MaxBytes bounds a snapshot document. A session's seeded reviews and a
// living shop's arrivals and answers fit with room.
const MaxBytes = 96 << 20

// MaxYAMLBytes bounds a snapshot sent as YAML, which takes many times
// its size while it is read. A bigger one goes as JSON.
const MaxYAMLBytes = 8 << 20

// MaxYAMLNodes bounds the values of a snapshot sent as YAML (see
// wire.YAMLNodes). The server's own YAML of MaxYAMLBytes has 900,000 at most.
const MaxYAMLNodes = 1_000_000

// Body is how POST /__mock/snapshot reads a snapshot.
var Body = &wire.Body{Limit: MaxBytes, YAMLLimit: MaxYAMLBytes, YAMLNodes: MaxYAMLNodes, Shape: Shape,
	Bound:     fmt.Sprintf("a snapshot of %d MiB at most", MaxBytes>>20),
	YAMLBound: fmt.Sprintf("a YAML snapshot of %d MiB and %d values at most; send a bigger one as JSON, as GET /__mock/snapshot?format=json writes it", MaxYAMLBytes>>20, MaxYAMLNodes)}

// Shape bounds a snapshot's JSON before it is decoded. The reviews are
// kept raw, and each is decoded and checked alone when restored.
var Shape = &wire.Shape{What: "a snapshot", Items: MaxBytes / 256, Array: 1000, Members: fault.MaxHeaders,
	Arrays: []wire.Bound{
		{Path: "overrides.auth.tokens", Max: maxTokens},
		{Path: "faults", Max: fault.MaxRuntime},
		{Path: "shared_fault_counters", Max: fault.MaxRuntime},
		{Path: "scenarios", Max: maxScenarios},
		{Path: "scenarios[].fault_counters", Max: scenario.MaxFaults},
		{Path: "scenarios[].seeded.reviews", Max: fixture.MaxSeedReviews},
		{Path: "scenarios[].shop.arrivals", Max: scenario.MaxShopReviews},
		{Path: "scenarios[].shop.changed", Max: scenario.MaxShopReviews},
	},
	Raw: []string{"scenarios[].seeded.reviews[]", "scenarios[].shop.arrivals[]", "scenarios[].shop.changed[]"},
}

// maxTokens bounds the tokens of a snapshot's overrides, above what a
// session may keep (access.MaxSessionOverrideBytes).
const maxTokens = access.MaxSessionOverrideBytes / 16

// Bounds of a snapshot's review ids (exact in a float64) and scenarios.
const (
	maxRecordID  = 1 << 50
	maxScenarios = 1000
)

// Snapshot is everything that makes a session what it is: its pick,
// overrides and run-time faults, and its state in each scenario it used.
// Restored, the session answers byte for byte as it did. The journal and
// rate-limit windows are not part of it.
type Snapshot struct {
	Format        string    `json:"format"`
	Session       string    `json:"session"`
	TakenAt       time.Time `json:"taken_at"`
	ServerVersion string    `json:"server_version,omitempty"` // of the server that took it
	// MediaBase is the base of the media URLs in its reviews. Restored on
	// another server, the URLs move to that server's.
	MediaBase string `json:"media_base,omitempty"`
	// Scenario is the session's pick (PUT /__mock/scenario); "" follows
	// the server's.
	Scenario  string            `json:"scenario,omitempty"`
	Overrides *access.Overrides `json:"overrides,omitempty"`
	// Faults are the session's run-time faults, in the order added.
	Faults []Fault `json:"faults,omitempty"`
	// SharedFaultCounters count the session's requests that met run-time
	// faults for every session.
	SharedFaultCounters []SharedFaultCount `json:"shared_fault_counters,omitempty"`
	Scenarios           []ScenarioState    `json:"scenarios,omitempty"`
}

// Fault is a run-time fault and what the session's requests did with it.
type Fault struct {
	fault.Fault
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

// ScenarioState is a session's state in one scenario.
type ScenarioState struct {
	Name string `json:"name"`
	// Fingerprint names the scenario's version, and DataEnd where its
	// data ends when anchored to now. Fault counters and the living shop
	// are restored only on the same version and end.
	Fingerprint   string               `json:"fingerprint"`
	DataEnd       string               `json:"data_end,omitempty"`
	Settings      *settings.Settings   `json:"settings,omitempty"`
	LastWrite     *session.Write       `json:"last_write,omitempty"` // which stale reads lag
	FaultCounters []ScenarioFaultCount `json:"fault_counters,omitempty"`
	Seeded        *Seeded              `json:"seeded,omitempty"`
	Shop          *shop.Snapshot       `json:"shop,omitempty"`
}

// Seeded is what a session seeded in a scenario (PUT /__mock/data).
type Seeded struct {
	Mode    string            `json:"mode"`    // replace or append
	Reviews []json.RawMessage `json:"reviews"` // as the list shows them, oldest first
}

// check looks the document over before anything is built of it.
func (snap *Snapshot) check() error {
	if snap.Format != Format {
		return wire.InvalidBody("format", "must be %q (a snapshot of GET /__mock/snapshot), got %q", Format, wire.Clip(snap.Format))
	}
	if !session.ValidID(snap.Session) {
		return wire.InvalidBody("session", "%s", session.MsgBadID)
	}
	if snap.Overrides != nil {
		if err := snap.Overrides.Validate(); err != nil {
			return wire.At(err, "overrides")
		}
		if err := shared.CheckOverrides(*snap.Overrides, "overrides.auth.tokens"); err != nil {
			return err
		}
	}
	if snap.MediaBase != "" {
		if _, err := media.ParsePublicURL(snap.MediaBase); err != nil {
			return wire.InvalidBody("media_base", "%v", err)
		}
	}
	if len(snap.Faults) > fault.MaxRuntime {
		return wire.InvalidBody("faults", "at most %d, got %d", fault.MaxRuntime, len(snap.Faults))
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
	if len(snap.Scenarios) > maxScenarios {
		return wire.InvalidBody("scenarios", "at most %d, got %d", maxScenarios, len(snap.Scenarios))
	}
	if len(snap.SharedFaultCounters) > fault.MaxRuntime {
		return wire.InvalidBody("shared_fault_counters", "at most %d, got %d", fault.MaxRuntime, len(snap.SharedFaultCounters))
	}
	seen := make(map[string]bool)
	for i := range snap.Scenarios {
		if err := snap.Scenarios[i].check(fmt.Sprintf("scenarios[%d]", i), seen); err != nil {
			return err
		}
	}
	return nil
}

// check looks a scenario's state over, at path in the document; seen
// holds the names before it.
func (rec *ScenarioState) check(path string, seen map[string]bool) error {
	if rec.Name == "" || seen[rec.Name] {
		return wire.InvalidBody(path+".name", "must name a scenario, each once")
	}
	seen[rec.Name] = true
	if len(rec.FaultCounters) > scenario.MaxFaults {
		return wire.InvalidBody(path+".fault_counters", "at most %d, got %d", scenario.MaxFaults, len(rec.FaultCounters))
	}
	for j, c := range rec.FaultCounters {
		if c.Index < 0 || c.Matched < 0 || c.Hit < 0 || c.Hit > c.Matched {
			return wire.InvalidBody(fmt.Sprintf("%s.fault_counters[%d]", path, j), "index must be >= 0 and counters 0 <= hit <= matched")
		}
	}
	if sd := rec.Seeded; sd != nil && len(sd.Reviews) > fixture.MaxSeedReviews {
		return wire.InvalidBody(path+".seeded.reviews", "at most %d, got %d", fixture.MaxSeedReviews, len(sd.Reviews))
	}
	if sh := rec.Shop; sh != nil {
		return sh.Check(path + ".shop")
	}
	return nil
}
