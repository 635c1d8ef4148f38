package snapshot

import (
	"context"
	"sync"
	"time"

	"github.com/replymock/replymock/mock/internal/shared"
)

// Keeper takes and restores the sessions of one server's state. To bound
// the memory of snapshots in flight, it restores one at a time and
// writes two at a time.
type Keeper struct {
	st      *shared.State
	now     func() time.Time
	version string // the server's, written in each snapshot

	restoreMu sync.Mutex    // one restore at a time
	writers   chan struct{} // a place for each snapshot being written
}

// NewKeeper is the keeper of st's sessions; its snapshots name version.
func NewKeeper(st *shared.State, now func() time.Time, version string) *Keeper {
	return &Keeper{st: st, now: now, version: version, writers: make(chan struct{}, 2)}
}

// State is the state whose sessions k takes and restores.
func (k *Keeper) State() *shared.State { return k.st }

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
