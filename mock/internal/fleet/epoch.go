package fleet

import (
	"context"
	"crypto/rand"
	"time"

	"github.com/redis/rueidis"

	"github.com/replymock/replymock/mock/internal/statedir"
)

// The store's epoch is a random mark Redis keeps under "epoch" from the
// first replica's start. A Redis that lost its data (restarted without
// persistence, flushed) lacks it. Each replica that finds it gone or
// changed drops what it held of the old data and starts again from its
// start state, so that every replica serves what Redis holds within a
// request or two.

// lostFor is how long answers carry lostWarning after a replica found
// the store had lost its data.
const lostFor = time.Minute

// lostWarning is the X-Mock-Warning of an answer soon after that.
const lostWarning = `299 replymock "the shared store (--store) lost its data (restarted without persistence, or flushed): the replicas went back to their start state, and changes answered before are gone"`

// epochScript (epoch.lua) reads the epoch, setting it first if there is none.
var epochScript = rueidis.NewLuaScript(lua("epoch.lua"))

// checkEpoch compares got, the epoch refresh read, with the one this
// replica knows. The first one read is taken. On a change it starts
// again (startAgain) and reports true. Its error is errOutOfReach.
func (s *Store) checkEpoch(ctx context.Context, got rueidis.RedisMessage) (bool, error) {
	e, _ := got.ToString() // "" for none
	s.vmu.RLock()
	same := e != "" && e == s.epoch
	s.vmu.RUnlock()
	if same {
		return false, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.exec(ctx, epochScript, []string{s.key("epoch")}, []string{rand.Text()}).ToString()
	if err != nil {
		return false, errOutOfReach
	}
	s.vmu.Lock()
	old := s.epoch
	s.epoch = e
	s.vmu.Unlock()
	if old == "" || old == e { // the first read, or another request started again
		return false, nil
	}
	s.startAgain()
	return true, nil
}

// startAgain puts the server's state back as it was at start, and marks
// every session for reload: one Redis holds nothing of starts fresh.
// s.mu must be held.
func (s *Store) startAgain() {
	if err := statedir.RestoreServer(s.st, s.initial); err != nil {
		s.cfg.Log.Error("store: the server's start state does not restore", "err", err)
	}
	_, sum, _ := s.serverDoc()
	s.vmu.Lock()
	s.sv, s.serverSum = 0, sum
	for _, e := range s.known {
		e.version = -1
	}
	s.lostAt = time.Now()
	s.vmu.Unlock()
	s.cfg.Log.Warn("store: the shared store lost its data (its epoch mark is gone); this replica went back to its start state")
}

// lostLately reports when this replica found the store had lost its
// data, if within lostFor.
func (s *Store) lostLately() (time.Time, bool) {
	s.vmu.RLock()
	defer s.vmu.RUnlock()
	return s.lostAt, !s.lostAt.IsZero() && time.Since(s.lostAt) < lostFor
}
