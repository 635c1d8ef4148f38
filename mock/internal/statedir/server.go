package statedir

import (
	"time"

	"github.com/replymock/replymock/mock/internal/access"
	"github.com/replymock/replymock/mock/internal/fault"
	"github.com/replymock/replymock/mock/internal/session"
	"github.com/replymock/replymock/mock/internal/shared"
	"github.com/replymock/replymock/mock/internal/wire"
)

// ServerStateFormat names the server's own state file in a state folder.
const ServerStateFormat = "replymock-server-state/1"

// ServerState is what belongs to the server rather than to a session:
// the active scenario, the run-time faults and overrides for every
// session, and the present that data anchored to now was anchored to.
type ServerState struct {
	Format     string            `json:"format"`
	Scenario   string            `json:"scenario"`
	DataAnchor time.Time         `json:"data_anchor"`
	Faults     []fault.Fault     `json:"faults,omitempty"`
	Overrides  *access.Overrides `json:"overrides,omitempty"`
}

// TakeServer is st's server state now, its data anchored to anchor.
func TakeServer(st *shared.State, anchor time.Time) ServerState {
	o := st.SharedOverrides()
	out := ServerState{Format: ServerStateFormat, Scenario: st.Registry().Default().Name, DataAnchor: anchor.UTC()}
	for _, f := range st.FaultRegistry().Shared() {
		out.Faults = append(out.Faults, *f)
	}
	if o != (access.Overrides{}) {
		out.Overrides = &o
	}
	return out
}

// RestoreServer makes st's own state what in says, keeping the faults'
// ids. A problem changes nothing.
func RestoreServer(st *shared.State, in ServerState) error {
	if in.Format != ServerStateFormat {
		return wire.InvalidBody("format", "must be %q, got %q", ServerStateFormat, wire.Clip(in.Format))
	}
	faults, err := st.FaultRegistry().ReadBack("faults", in.Faults)
	if err != nil {
		return err
	}
	o := access.Overrides{}
	if in.Overrides != nil {
		if err := in.Overrides.Validate(); err != nil {
			return wire.At(err, "overrides")
		}
		o = *in.Overrides
	}
	if in.Scenario != "" && in.Scenario != st.Registry().Default().Name {
		if err := st.SetScenario(session.All, in.Scenario); err != nil {
			return wire.At(err, "scenario")
		}
	}
	st.SetShared(faults, o)
	return nil
}
