package fleet

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/redis/rueidis"

	"github.com/replymock/replymock/mock/internal/journal"
	"github.com/replymock/replymock/mock/internal/session"
	"github.com/replymock/replymock/mock/internal/shared"
	"github.com/replymock/replymock/mock/internal/statedir"
	"github.com/replymock/replymock/mock/internal/wire"
)

// The keys, each under Config.Prefix:
//
//   - anchor: the time the generated data is anchored to.
//   - epoch: a mark a Redis that lost its data lacks (epoch.go).
//   - sv, server: the server's version and state.
//   - v:ID, s:ID: a session's version and document. They expire after
//     the TTL, except the default session's.
//   - ids: the sessions, scored by their last write or touch.
//   - sizes, bytes: each document's size, and their sum.
//   - lock:ID, lock-all, locks: the writes' locks (lock.go).
//   - c:ID, counted: the sessions' counts (counts.go).
//   - j:...: the journal (journal.go).

// The scripts that keep a session or the server's state; each file
// says what it does. session.lua is given maxEvictions.
var (
	sessionScript = rueidis.NewLuaScript("local maxEvictions = " + maxEvictions + "\n" + lua("session.lua"))
	evictedScript = rueidis.NewLuaScript(lua("evicted.lua"))
	serverScript  = rueidis.NewLuaScript(lua("server.lua"))
)

// maxEvictions bounds the evictions Redis remembers for the sessions'
// next requests, as session.MaxEvictions does in one process: some 60
// bytes each.
const maxEvictions = "10000"

// lockLost is what the scripts return when the writer's lock is no
// longer its own: it held it past lockTTL without renewing it.
const lockLost = -2

// retryLater is a 503 whose request may go again in a second.
func retryLater(code, msg string) *wire.APIError {
	return &wire.APIError{Status: http.StatusServiceUnavailable, Code: code, RetryAfter: time.Second, Message: msg}
}

// errLockLost is the answer to a write whose lock ran out before its
// change reached Redis, and another replica may have written since.
func errLockLost(id string) *wire.APIError {
	if id == "" {
		id = "every session"
	}
	return retryLater(wire.CodeStoreUnavailable, "this replica's hold on "+id+" ran out (it paused longer than "+lockTTL.String()+") before the change reached the shared store: nothing changed; send it again")
}

// errUnavailable is the answer to a write while Redis is out of reach.
func errUnavailable() *wire.APIError {
	return retryLater(wire.CodeStoreUnavailable, "the shared store (--store) is out of reach: nothing changed; send it again once it is back")
}

// write is one script run that keeps a session (sessionScript) or the
// server's state (serverScript).
type write struct {
	id   string // "" for the server's state
	size int    // the session's document's bytes
	sum  [32]byte
	key  journal.Key // the copy the session's document was taken from
	exec rueidis.LuaExec
}

// keep is the state's Keeper. It writes the changed sessions, and the
// server's state if server, to Redis before the writes that changed
// them are answered. A session Redis refuses (too big) fails only its
// own writes, through shared.Unkept; Redis out of reach fails them all.
func (s *Store) keep(ctx context.Context, ids []string, server bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ws []write
	unkept := &shared.Unkept{Sessions: make(map[string]error)}
	now := strconv.FormatInt(time.Now().UnixMilli(), 10)
	if server {
		if w, ok, err := s.serverWrite(now); err != nil {
			unkept.Server = err
		} else if ok {
			ws = append(ws, w)
		}
	}
	for _, id := range ids {
		w, ok, err := s.sessionWrite(id, now)
		if err != nil {
			unkept.Sessions[id] = err
		} else if ok {
			ws = append(ws, w)
		}
	}
	if len(ws) > 0 {
		if err := s.run(ctx, ws, unkept); err != nil {
			return err
		}
	}
	if unkept.Server == nil && len(unkept.Sessions) == 0 {
		return nil
	}
	return unkept
}

// run sends ws to Redis and notes the versions they made; a copy whose
// write failed is reloaded at its next request. What Redis refused is
// noted in unkept.
func (s *Store) run(ctx context.Context, ws []write, unkept *shared.Unkept) error {
	res := make([]rueidis.RedisResult, len(ws))
	failed := s.exchange(ctx, func(ctx context.Context) error {
		// The server's write, first if any, goes alone; the sessions' go
		// in one pipeline.
		first := 0
		if ws[0].id == "" {
			res[0] = serverScript.Exec(ctx, s.client, ws[0].exec.Keys, ws[0].exec.Args)
			first = 1
		}
		var sess []rueidis.LuaExec
		for _, w := range ws[first:] {
			sess = append(sess, w.exec)
		}
		if len(sess) > 0 {
			copy(res[first:], sessionScript.ExecMulti(ctx, s.client, sess...))
		}
		for _, r := range res {
			if err := r.Error(); err != nil {
				return err
			}
		}
		return nil
	})
	s.vmu.Lock()
	defer s.vmu.Unlock()
	if _, refused := refusal(failed); refused {
		failed = nil // Redis answered: each write's own error says what it refused
	}
	for i, w := range ws {
		v, err := res[i].AsInt64()
		re, refused := refusal(err)
		switch {
		case err == nil && v == lockLost:
			if w.id == "" {
				unkept.Server = errLockLost("")
			} else {
				unkept.Sessions[w.id] = errLockLost(w.id)
			}
		case err == nil && v < 0: // past MaxBytes: nothing written
			unkept.Sessions[w.id] = tooBig(w.id, w.size, s.cfg.MaxBytes, "all sessions together (--max-store-memory)")
		case refused && w.id == "":
			unkept.Server = errRefused(re)
		case refused:
			unkept.Sessions[w.id] = errRefused(re)
		case err != nil && failed == nil:
			failed = err
		}
		if w.id == "" {
			if err != nil || v < 0 {
				s.sv = -1
			} else {
				s.sv, s.serverSum = v, w.sum
			}
		} else {
			e := s.entry(w.id)
			if err != nil || v < 0 {
				e.version = -1
			} else {
				e.version, e.sum, e.touched, e.key = v, w.sum, time.Now(), w.key
			}
		}
	}
	if failed != nil {
		return unavailable(failed)
	}
	return nil
}

// unavailable is the answer to a write whose exchange with Redis failed.
func unavailable(err error) *wire.APIError {
	if re, ok := refusal(err); ok {
		return errRefused(re)
	}
	return errUnavailable()
}

// errRefused is the answer to a write Redis refused, such as OOM when
// Redis is full. Redis's message names no key or value, so it is shown.
func errRefused(re *rueidis.RedisError) *wire.APIError {
	msg := "the shared store (--store) refused the write: nothing changed (Redis: " + wire.Clip(re.Error()) + ")"
	if strings.HasPrefix(re.Error(), "OOM") {
		msg += "; a Redis full needs a maxmemory above --max-store-memory and the journal's bytes"
	}
	return retryLater(wire.CodeStoreUnavailable, msg)
}

// copyLost marks session id for reload, and is the answer to its write
// under way here when the copy it changed went: evicted, or marked for
// reload by a concurrent keeping (for a read) that failed. The write
// answers 503 rather than report a change Redis does not have.
func (s *Store) copyLost(id string) error {
	s.reloadLater(id)
	return retryLater(wire.CodeServiceUnavailable, "this replica lost the copy of session "+id+" the write changed while it ran (evicted to make room for others, --max-sessions, or read again from the store): nothing changed; send it again")
}

// reloadLater makes the next request of session id reload it from
// Redis, because a change made here was not kept.
func (s *Store) reloadLater(id string) {
	s.vmu.Lock()
	s.entry(id).version = -1
	s.vmu.Unlock()
}

// tooBig is the answer to a write that would make session id's
// document size bytes, more than max.
func tooBig(id string, size int, max int64, what string) *wire.APIError {
	return &wire.APIError{Status: http.StatusRequestEntityTooLarge, Code: wire.CodePayloadTooLarge,
		Message: fmt.Sprintf("session %s would keep %d bytes in the shared store, more than it keeps of %s (%d): nothing changed", id, size, what, max)}
}

// entry returns id's entry in known, adding it if missing. The caller
// holds s.vmu.
func (s *Store) entry(id string) *entry {
	e := s.known[id]
	if e == nil {
		e = &entry{}
		s.known[id] = e
	}
	return e
}

// serverWrite is the write of the server's state, or false when there
// is nothing to write. now is the time in ms.
func (s *Store) serverWrite(now string) (write, bool, error) {
	doc, sum, err := s.serverDoc()
	if err != nil {
		return write{}, false, err
	}
	token := s.held.token(session.All)
	s.vmu.RLock()
	skip := s.sv < 0 || sum == s.serverSum || token == "" // only a write about every session writes it
	s.vmu.RUnlock()
	if skip {
		return write{}, false, nil
	}
	return write{sum: sum, exec: rueidis.LuaExec{
		Keys: []string{s.key("sv"), s.key("server"), s.key("lock-all")},
		Args: []string{string(doc), now, token},
	}}, true, nil
}

// serverDoc is the server's state as written to Redis, and its hash.
func (s *Store) serverDoc() ([]byte, [32]byte, error) {
	doc, err := json.Marshal(statedir.TakeServer(s.st, s.anchor))
	if err != nil {
		return nil, [32]byte{}, err
	}
	return doc, sha256.Sum256(doc), nil
}

// sessionWrite is the write of session id as it is now, or false when
// there is nothing to write. now is the time in ms.
func (s *Store) sessionWrite(id, now string) (write, bool, error) {
	known, isKnown := s.knownOf(id)
	ss, found := s.st.Sessions().Find(id)
	evicted := !found && s.st.Evicted(id) // asked once each time it went, whatever follows
	if s.held.holdsOwn(id) && (evicted || isKnown && known.version < 0) {
		return write{}, false, s.copyLost(id)
	}
	if evicted || !found && (known.sum == goneSum || isKnown && known.version < 0) {
		// Gone from this replica: Redis keeps it for the others, and this
		// replica asks Redis again at its next request.
		s.vmu.Lock()
		delete(s.known, id)
		s.vmu.Unlock()
		return write{}, false, nil
	}
	token := s.held.token(id)
	if isKnown && known.version < 0 || token == "" {
		// To be reloaded, or changed by reads only: nothing to write.
		return write{}, false, nil
	}
	doc, sum := "", goneSum
	if found {
		snap, err := s.k.TakeOwn(id)
		if err != nil {
			return write{}, false, err
		}
		if now, ok := s.st.Sessions().Find(id); !ok || now != ss || ss.Dropped() {
			// Evicted while it was taken: what was taken may be empty.
			if s.held.holdsOwn(id) {
				return write{}, false, s.copyLost(id)
			}
			return write{}, false, nil
		}
		if sum, err = snap.Sum(); err != nil {
			return write{}, false, err
		}
		if isKnown && sum == known.sum {
			return write{}, false, nil
		}
		body, err := json.Marshal(snap) // with its taken_at, which the sum leaves out
		if err != nil {
			return write{}, false, err
		}
		if len(body) > MaxSessionBytes {
			s.reloadLater(id)
			return write{}, false, tooBig(id, len(body), MaxSessionBytes, "one session")
		}
		doc = string(body)
	}
	def := "0"
	if id == session.Default {
		def = "1"
	}
	var key journal.Key
	if found {
		key = ss.Key()
	}
	return write{id: id, size: len(doc), sum: sum, key: key, exec: rueidis.LuaExec{
		Keys: []string{s.key("v:" + id), s.key("s:" + id), s.key("ids"), s.key("sizes"), s.key("bytes"), s.key("lock:" + id), s.key("lock-all")},
		Args: []string{doc, strconv.FormatInt(s.cfg.TTL.Milliseconds(), 10), now, strconv.Itoa(s.cfg.MaxSessions), id, s.cfg.Prefix, def,
			strconv.FormatInt(s.cfg.MaxBytes, 10), session.Default, token},
	}}, true, nil
}
