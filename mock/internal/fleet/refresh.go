package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/replymock/replymock/mock/internal/journal"
	"github.com/replymock/replymock/mock/internal/session"
	"github.com/replymock/replymock/mock/internal/snapshot"
	"github.com/replymock/replymock/mock/internal/statedir"
	"github.com/replymock/replymock/mock/internal/wire"
)

// refresh brings the server's state and session sid ("" for none,
// session.All for every one) up to date with Redis.
func (s *Store) refresh(ctx context.Context, sid string, write bool) error {
	if sid == session.All {
		return s.refreshAll(ctx, write)
	}
	keys := []string{s.key("epoch"), s.key("sv")}
	if sid != "" {
		keys = append(keys, s.key("v:"+sid))
	}
	known, _ := s.knownOf(sid)
	before := known.version // 0 for none
	vals, ok := s.mget(ctx, keys...)
	if !ok {
		return errOutOfReach
	}
	again, err := s.checkEpoch(ctx, vals[0])
	if err != nil {
		return err
	}
	if again {
		before = -1 // marked for reload with every other
	}
	sv, _ := version(vals[1])
	if !s.holdsServer(sv) && !s.reloadServer(ctx) {
		return errOutOfReach
	}
	if sid == "" {
		return nil
	}
	v, ok := version(vals[2])
	if !ok && before < 0 {
		s.dropUnkept(sid)
		return nil
	}
	if !ok {
		// Nothing in Redis: the session is what this replica has, or
		// starts fresh; the version known before the MGET is gone with it
		// (not one a write made since).
		s.vmu.Lock()
		if e := s.known[sid]; e != nil && e.version == before {
			delete(s.known, sid)
		}
		s.vmu.Unlock()
		return nil
	}
	if s.holdsSession(sid, v) {
		return nil
	}
	if known.badVersion == v && time.Since(known.badAt) < time.Second {
		return errNotHeld(sid, known.badWhy) // not tried again at every request
	}
	return s.reloadSession(ctx, sid)
}

// errOutOfReach is refresh's error when Redis did not answer.
var errOutOfReach = errors.New("the shared store is out of reach")

// dropUnkept drops this replica's copy of session sid if it is marked
// for reload and Redis holds nothing of it. The copy has a change Redis
// never took, and the session starts fresh.
func (s *Store) dropUnkept(sid string) {
	defer s.pins.lockForReload(sid)()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.vmu.Lock()
	e := s.known[sid]
	unkept := e != nil && e.version < 0
	if unkept {
		delete(s.known, sid)
	}
	s.vmu.Unlock()
	if unkept {
		s.st.Sessions().Drop(sid)
	}
}

// version reads a version MGET returned; false for none.
func version(m rueidis.RedisMessage) (int64, bool) {
	if m.IsNil() {
		return 0, false
	}
	v, err := m.AsInt64()
	return v, err == nil
}

// holdsServer reports whether the replica holds the server's version v.
func (s *Store) holdsServer(v int64) bool {
	s.vmu.RLock()
	defer s.vmu.RUnlock()
	return s.sv == v
}

// holdsSession reports whether this replica's copy of session id is
// version v (not evicted or expired here). It touches the session in
// Redis once a quarter of the TTL has gone since it was last touched.
func (s *Store) holdsSession(id string, v int64) bool {
	known, ok := s.knownOf(id)
	if !ok || known.version != v {
		return false
	}
	if known.sum != goneSum {
		if ss, ok := s.st.Sessions().Find(id); !ok || ss.Key() != known.key {
			return false // evicted here, or made anew since: not the copy the version is of
		}
	}
	if s.cfg.TTL > 0 && time.Since(known.touched) > s.cfg.TTL/4 {
		s.touch(id)
	}
	return true
}

// knownOf returns a copy of session id's entry, or false for none.
func (s *Store) knownOf(id string) (entry, bool) {
	s.vmu.RLock()
	defer s.vmu.RUnlock()
	if e := s.known[id]; e != nil {
		return *e, true
	}
	return entry{}, false
}

// touch keeps session id in Redis for another TTL, so a session that is
// only read stays for the other replicas.
func (s *Store) touch(id string) {
	s.vmu.Lock()
	if e := s.known[id]; e != nil {
		e.touched = time.Now()
	}
	s.vmu.Unlock()
	if id == session.Default {
		return
	}
	args := []string{id, strconv.FormatInt(time.Now().UnixMilli(), 10), strconv.FormatInt(s.cfg.TTL.Milliseconds(), 10)}
	go s.exec(context.Background(), touchScript, []string{s.key("v:" + id), s.key("s:" + id), s.key("ids")}, args)
}

// touchScript (touch.lua) extends a session's TTL if Redis still has it.
var touchScript = rueidis.NewLuaScript(lua("touch.lua"))

// reloadServer loads the server's state from Redis. It returns false
// when Redis did not answer.
func (s *Store) reloadServer(ctx context.Context) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	vals, ok := s.mget(ctx, s.key("sv"), s.key("server"))
	if !ok {
		return false
	}
	v, _ := version(vals[0])
	if s.holdsServer(v) {
		return true // another request reloaded it meanwhile
	}
	if doc, err := vals[1].ToString(); err == nil {
		var in statedir.ServerState
		if err := json.Unmarshal([]byte(doc), &in); err != nil {
			s.cfg.Log.Error("store: the server's state does not read; kept as it is here", "err", err)
		} else if err := statedir.RestoreServer(s.st, in); err != nil {
			s.cfg.Log.Error("store: the server's state does not restore; kept as it is here", "err", err)
		}
	}
	_, sum, _ := s.serverDoc() // zero if it does not marshal
	s.vmu.Lock()
	s.sv, s.serverSum = v, sum
	s.vmu.Unlock()
	return true
}

// reloadSession replaces this replica's copy of session id with the
// document Redis holds, or drops it if Redis holds none. It waits until
// the requests served from the copy are done. If the document does not
// restore here, it returns errNotHeld and the copy is not used.
func (s *Store) reloadSession(ctx context.Context, id string) error {
	defer s.pins.lockForReload(id)()
	s.mu.Lock()
	defer s.mu.Unlock()
	vals, ok := s.mget(ctx, s.key("v:"+id), s.key("s:"+id))
	if !ok {
		return errOutOfReach
	}
	v, _ := version(vals[0])
	if s.holdsSession(id, v) {
		return nil // another request reloaded it meanwhile
	}
	key, sum := journal.Key{}, goneSum
	doc, err := vals[1].AsBytes()
	if err != nil {
		s.st.Sessions().Drop(id) // reset to nothing, or dropped, on another replica
		s.noteEviction(ctx, id)
	} else if key, sum, err = s.restore(id, doc); err != nil {
		s.vmu.Lock()
		e := s.entry(id)
		e.version, e.badVersion, e.badAt, e.badWhy = -1, v, time.Now(), err.Error()
		s.vmu.Unlock()
		return errNotHeld(id, e.badWhy)
	}
	s.vmu.Lock()
	e := s.entry(id)
	e.version, e.sum, e.touched, e.key, e.badVersion = v, sum, time.Now(), key, 0
	s.vmu.Unlock()
	return nil
}

// noteEviction asks Redis whether session id, which it holds no document
// of, was evicted or expired there, and if so tells the session store,
// so that the session's next request says when and why.
func (s *Store) noteEviction(ctx context.Context, id string) {
	ttl := s.cfg.TTL.Milliseconds()
	e, err := s.exec(ctx, evictedScript, []string{s.key("evicted"), s.key("evictedq"), s.key("ids")},
		[]string{id, strconv.FormatInt(time.Now().UnixMilli()-ttl, 10), strconv.FormatInt(ttl, 10)}).ToString()
	ms, why, ok := strings.Cut(e, " ")
	at, perr := strconv.ParseInt(ms, 10, 64)
	if err != nil || !ok || perr != nil {
		return // never evicted (nil), or not known: the session starts in silence, as before
	}
	switch why {
	case "ttl":
		why = session.ExpiredWhy(s.cfg.TTL)
	case "sessions":
		why = session.PastWhy("--max-sessions", strconv.Itoa(s.cfg.MaxSessions))
	case "memory":
		why = session.PastWhy("--max-store-memory", strconv.FormatInt(s.cfg.MaxBytes>>20, 10)+"MiB")
	}
	s.st.Sessions().NoteEviction(id, time.UnixMilli(at), why)
}

// errNotHeld is the answer to a request of session id when this replica
// cannot restore the document Redis holds of it.
func errNotHeld(id, why string) *wire.APIError {
	return retryLater(wire.CodeServiceUnavailable, "this replica cannot hold session "+id+" as the shared store has it ("+wire.Clip(why)+"): nothing was served or changed; send it again (another replica may hold it), or give the replicas more memory for seeded reviews")
}

// restore replaces this replica's copy of session id with doc (on error,
// leaves it). It returns the new copy's key and its hash as keep would
// write it, so keep writes it again only once it changes.
func (s *Store) restore(id string, doc []byte) (journal.Key, [32]byte, error) {
	snap, err := snapshot.DecodeJSON(doc)
	var res snapshot.Result
	if err == nil {
		res, err = s.k.Restore(id, snap)
	}
	if err != nil {
		s.cfg.Log.Warn("store: a session's state does not restore here; its requests answer 503 until it does", "session", id, "err", err)
		return journal.Key{}, [32]byte{}, err
	}
	var sum [32]byte
	if taken, err := s.k.TakeOwn(id); err == nil {
		sum, _ = taken.Sum()
	}
	if ss, ok := s.st.Sessions().Find(id); !ok || ss.Key() != res.Copy {
		sum = [32]byte{} // evicted, or made anew since: not the copy's
	}
	return res.Copy, sum, nil
}

// refreshAll is refresh for every session Redis keeps.
func (s *Store) refreshAll(ctx context.Context, write bool) error {
	if err := s.refresh(ctx, "", false); err != nil {
		return err
	}
	now := strconv.FormatInt(time.Now().Add(-s.cfg.TTL).UnixMilli(), 10)
	ids, err := s.do(ctx, s.client.B().Zrangebyscore().Key(s.key("ids")).Min(now).Max("+inf").Build()).AsStrSlice()
	if err != nil {
		return errOutOfReach
	}
	for len(ids) > 0 {
		n := min(len(ids), 512)
		keys := make([]string, n)
		for i, id := range ids[:n] {
			keys[i] = s.key("v:" + id)
		}
		vals, ok := s.mget(ctx, keys...)
		if !ok {
			return errOutOfReach
		}
		for i, id := range ids[:n] {
			if v, ok := version(vals[i]); !ok || s.holdsSession(id, v) {
				continue
			}
			// A session that does not restore fails a write about every
			// session, and is left out of a read.
			if err := s.reloadSession(ctx, id); errors.Is(err, errOutOfReach) || err != nil && write {
				return err
			}
		}
		ids = ids[n:]
	}
	return nil
}

// mget reads keys in one exchange. It returns false when Redis did not
// answer.
func (s *Store) mget(ctx context.Context, keys ...string) (vals []rueidis.RedisMessage, ok bool) {
	err := s.exchange(ctx, func(ctx context.Context) (err error) {
		vals, err = s.client.Do(ctx, s.client.B().Mget().Key(keys...).Build()).ToArray()
		if err != nil && ctx.Err() == nil {
			// Once more: the first command on a connection Redis closed
			// (restarted) fails, and the client dials again.
			vals, err = s.client.Do(ctx, s.client.B().Mget().Key(keys...).Build()).ToArray()
		}
		return err
	})
	return vals, err == nil
}
