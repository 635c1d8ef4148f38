package shared

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"

	"github.com/replymock/replymock/mock/internal/session"
	"github.com/replymock/replymock/mock/internal/wire"
)

// Keeper keeps what changed somewhere that outlives the process (the
// state folder): the sessions named, as they are now, and, with server,
// the server's own state.
type Keeper func(ctx context.Context, sessions []string, server bool) error

// Unkept is a Keeper's error when it kept only part of what it was
// given, so that a write fails only if what it changed was not kept.
type Unkept struct {
	Server   error
	Sessions map[string]error
}

func (u *Unkept) Error() string { return errors.Join(u.Unwrap()...).Error() }

// Unwrap is what was not kept, the server's state first.
func (u *Unkept) Unwrap() []error {
	var errs []error
	if u.Server != nil {
		errs = append(errs, u.Server)
	}
	for _, id := range slices.Sorted(maps.Keys(u.Sessions)) {
		errs = append(errs, fmt.Errorf("session %q: %w", id, u.Sessions[id]))
	}
	return errs
}

// changes tracks what changed since it was last kept, for a Keeper.
// Each mark counts one version, and sync waits until the versions
// marked before it are kept. One keeping runs at a time and takes every
// change marked before it starts, so writes that come together are kept
// together.
type changes struct {
	mu       sync.Mutex
	keep     Keeper // nil: nothing outlives the process, Sync returns at once
	sessions map[string]struct{}
	server   bool
	marked   uint64              // versions marked
	kept     uint64              // versions kept
	running  chan struct{}       // closed when the keeping under way ends
	evicted  map[string]struct{} // since their last keeping
	failed   map[string]error    // by session; session.All: the server's state
	// undone holds, for a session whose change a keeping refused, the
	// versions marked by then: a keeping that fails rolls its session
	// back, so every write marked before fails too, even when a later
	// keeping of the session succeeds. Cleared when no sync waits.
	undone  map[string]failure
	waiting int // syncs under way
}

// failure is a keeping's error for a session, and the versions marked
// when it was noted.
type failure struct {
	err  error
	upTo uint64
}

// evict notes that session id was dropped to make room: a keeper shared
// with other processes leaves it be.
func (c *changes) evict(id string) {
	c.mu.Lock()
	if c.keep != nil {
		if c.evicted == nil {
			c.evicted = make(map[string]struct{})
		}
		c.evicted[id] = struct{}{}
	}
	c.mu.Unlock()
}

// Evicted reports whether session id, now gone from the store, was
// dropped to make room rather than by a reset or a restore, once each
// time the session goes.
func (st *State) Evicted(id string) bool {
	st.changes.mu.Lock()
	defer st.changes.mu.Unlock()
	_, ok := st.changes.evicted[id]
	delete(st.changes.evicted, id)
	return ok
}

// mark marks ids, and with server the server's state, changed; without
// a Keeper nothing is marked.
func (c *changes) mark(server bool, ids ...string) {
	c.mu.Lock()
	if c.keep != nil {
		c.markLocked(ids, server)
	}
	c.mu.Unlock()
}

// session marks session id changed, as the session store tells.
func (c *changes) session(id string) { c.mark(false, id) }

// sync returns once every change marked before the call is kept,
// keeping them itself unless a keeping under way takes them. It returns
// ctx's error, or the Keeper's when it did not keep sid's changes (for
// session.All, any change).
func (c *changes) sync(ctx context.Context, sid string) error {
	c.mu.Lock()
	want := c.marked
	c.waiting++
	defer func() {
		if c.waiting--; c.waiting == 0 {
			c.undone = nil
		}
		c.mu.Unlock()
	}()
	for c.kept < want {
		if running := c.running; running != nil {
			c.mu.Unlock()
			select {
			case <-running:
			case <-ctx.Done():
				c.mu.Lock()
				return ctx.Err()
			}
			c.mu.Lock()
			continue
		}
		ids := slices.Sorted(maps.Keys(c.sessions))
		server, upTo, keep := c.server, c.marked, c.keep
		c.sessions, c.server = nil, false
		done := make(chan struct{})
		c.running = done
		c.mu.Unlock()
		err := runKeeper(keep, context.WithoutCancel(ctx), ids, server) // once begun, the keeping ends: others wait on it
		c.mu.Lock()
		c.running = nil
		close(done)
		var unkept *Unkept
		if err != nil && !errors.As(err, &unkept) {
			c.markLocked(ids, server) // not kept: marked again
			return err
		}
		c.noteFailed(ids, server, unkept)
		c.kept = max(c.kept, upTo)
	}
	if f, ok := c.undone[sid]; ok && want <= f.upTo && c.failed[sid] == nil {
		if sid == session.All {
			return f.err
		}
		return fmt.Errorf("session %q: %w", sid, f.err)
	}
	return c.failedFor(sid)
}

// markLocked marks ids, and with server the server's state, changed.
// c.mu must be held.
func (c *changes) markLocked(ids []string, server bool) {
	c.marked++
	if c.sessions == nil {
		c.sessions = make(map[string]struct{})
	}
	for _, id := range ids {
		c.sessions[id] = struct{}{}
	}
	c.server = c.server || server
}

// noteFailed notes what a keeping of ids (and server) did not keep, and
// marks it again. c.mu must be held.
func (c *changes) noteFailed(ids []string, server bool, unkept *Unkept) {
	for _, id := range ids {
		delete(c.failed, id)
	}
	if server {
		delete(c.failed, session.All)
	}
	if unkept == nil {
		return
	}
	if c.failed == nil {
		c.failed = make(map[string]error)
	}
	if c.undone == nil {
		c.undone = make(map[string]failure)
	}
	for id, err := range unkept.Sessions {
		c.failed[id] = err
		c.undone[id] = failure{err, c.marked}
		c.markLocked([]string{id}, false)
	}
	if unkept.Server != nil { // rolled back too: noted as a session's is
		c.failed[session.All] = unkept.Server
		c.undone[session.All] = failure{unkept.Server, c.marked}
		c.markLocked(nil, true)
	}
}

// failedFor is why sid's changes (for session.All, any) are not kept.
// c.mu must be held.
func (c *changes) failedFor(sid string) error {
	if sid != session.All {
		if err := c.failed[sid]; err != nil {
			return fmt.Errorf("session %q: %w", sid, err)
		}
		return nil
	}
	if len(c.failed) == 0 {
		return nil
	}
	sessions := maps.Clone(c.failed)
	delete(sessions, session.All) // the server's, said once
	if len(sessions) == 0 {
		sessions = nil
	}
	return &Unkept{Server: c.failed[session.All], Sessions: sessions}
}

// runKeeper runs keep and turns a panic in it into its error. The
// keeping under way ends either way, so no later Sync waits for ever.
func runKeeper(keep Keeper, ctx context.Context, ids []string, server bool) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("keeping the state panicked: %v", v)
		}
	}()
	return keep(ctx, ids, server)
}

// SetKeeper makes keep what every change is kept through. Set it once,
// before serving.
func (st *State) SetKeeper(keep Keeper) {
	st.changes.mu.Lock()
	st.changes.keep = keep
	st.changes.mu.Unlock()
}

// Sync returns once every change made before it was called is kept, at
// once without a Keeper.
func (st *State) Sync(ctx context.Context) error { return st.changes.sync(ctx, session.All) }

// MarkChanged marks sessions ids, and with server the server's own
// state, as changed.
func (st *State) MarkChanged(server bool, ids ...string) { st.changes.mark(server, ids...) }

// SyncWrite is Sync for a write about to be answered with success, so
// that an answered write outlives the process. sid names the session
// written; none, or session.All, any. Otherwise it returns the error to
// answer instead: the change is made but would not outlive a restart.
func (st *State) SyncWrite(ctx context.Context, sid ...string) error {
	scope := session.All
	if len(sid) == 1 && sid[0] != "" {
		scope = sid[0]
	}
	err := st.changes.sync(ctx, scope)
	if err == nil {
		return nil
	}
	if ctx.Err() != nil { // the client left; the keeping under way goes on
		st.log.Info("state: a client left before its change was kept", "err", err)
		return err
	}
	var apiErr *wire.APIError
	if errors.As(err, &apiErr) { // the Keeper's own answer (a shared store out of reach: 503)
		st.log.Warn("state: a change was not kept", "err", err)
		return apiErr
	}
	st.log.Error("state: a change was not kept", "err", err)
	e := wire.StatusError(http.StatusInternalServerError)
	e.Message = "the change is made, but the state folder did not keep it, so a restart would lose it: " + wire.Clip(err.Error())
	return e
}
