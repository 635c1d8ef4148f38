package journal

import (
	"bytes"
	"net/http"
	"slices"
	"strings"
	"sync"
)

// sessions stands for the server's sessions as the journals see them: a
// Key per id, opened when a session comes and dropped when it goes, under
// one lock (the server's sessionsMu).
type sessions struct {
	j    *Journals
	mu   sync.Mutex
	keys map[string]Key
}

func newSessions(j *Journals) *sessions { return &sessions{j: j, keys: map[string]Key{}} }

// key returns the Key of session id, opening its journal if it has none.
func (s *sessions) key(id string) Key {
	s.mu.Lock()
	defer s.mu.Unlock()
	k, ok := s.keys[id]
	if !ok {
		k = s.j.Open(id)
		s.keys[id] = k
	}
	return k
}

// reset drops session id, as a reset or an eviction does.
func (s *sessions) reset(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if k, ok := s.keys[id]; ok {
		s.j.Drop(k)
		delete(s.keys, id)
	}
}

// request builds a record as the server's pipeline does: method, path
// and query cut from the request line, the header map as it came, the
// request body and the answer kept up to MaxBody.
func request(sid, method, target string, h http.Header, body string, resp []byte) Record {
	line := method + " " + target + " HTTP/1.1"
	method, rest, _ := strings.Cut(line, " ")
	target, _, _ = strings.Cut(rest, " ")
	path, query, _ := strings.Cut(target, "?")
	r := Record{Entry: Entry{RequestID: "req", Method: method, Path: path, Query: query, Session: sid,
		Scenario: "default", Status: 200}, Header: h}
	if len(body) > MaxBody {
		body, r.Truncated = body[:MaxBody], true
	}
	r.Body = body
	if len(resp) > MaxBody {
		resp, r.Truncated = bytes.Clone(resp[:MaxBody]), true
	}
	r.Resp = resp
	return r
}

// seqs lists the sequence numbers of records.
func seqs(recs []*Record) []int64 {
	var out []int64
	for _, r := range recs {
		out = append(out, r.Seq)
	}
	return out
}

// found is find without a bound on its work.
func (j *Journals) found(p *Pattern, limit int) []*Record {
	recs, _ := j.find(p, limit, nil)
	return recs
}

// all returns the ring's entries, oldest first.
func (rg *ring) all() []*Record { return slices.Clone(rg.entries) }

// clientWaiters is how many requests of client wait on the journal now.
func (j *Journals) clientWaiters(client string) int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.clients[client]
}
