package snapshot

import (
	"context"
	"sync"
	"time"

	"github.com/replymock/replymock/mock/internal/state"
)

// Keeper takes and restores the sessions of one server's state. Its
// turns bound what snapshots in flight hold: one restore decodes and
// builds at a time, each holding a document of up to MaxBytes; two are
// written at a time (a living shop at its bound is some 20 MB of JSON,
// and its YAML takes more).
type Keeper struct {
	st      *state.State
	now     func() time.Time
	version string // the server's, written in each snapshot

	restoreMu sync.Mutex    // one restore at a time (Restoring)
	writers   chan struct{} // a place for each snapshot being written (Writing)
}

// NewKeeper is the keeper of st's sessions, telling the time by now; a
// snapshot says it was taken by a server of version.
func NewKeeper(st *state.State, now func() time.Time, version string) *Keeper {
	return &Keeper{st: st, now: now, version: version, writers: make(chan struct{}, 2)}
}

// State is the state whose sessions k takes and restores.
func (k *Keeper) State() *state.State { return k.st }

// Now is the time by k's clock.
func (k *Keeper) Now() time.Time { return k.now() }

// Restoring waits for the turn to restore a snapshot sent; done ends it.
func (k *Keeper) Restoring() (done func()) {
	k.restoreMu.Lock()
	return k.restoreMu.Unlock
}

// Writing waits for a turn to write a snapshot, while ctx lasts; done
// ends it, and ok is false when ctx ended first.
func (k *Keeper) Writing(ctx context.Context) (done func(), ok bool) {
	select {
	case k.writers <- struct{}{}:
		return func() { <-k.writers }, true
	case <-ctx.Done():
		return nil, false
	}
}
