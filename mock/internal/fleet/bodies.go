package fleet

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"sync"
)

// minSharedBody is the size from which the journal keeps a response apart
// from its entry, once for all the entries that answered the same bytes
// (j:b:H, journal.go); a smaller one goes inline, with its entry.
const minSharedBody = 1 << 10

// maxLastBody bounds the body a replica keeps a copy of, to compare.
const maxLastBody = 64 << 10

// maxSentHashes bounds the hashes a replica remembers having sent.
const maxSentHashes = 4096

// bodyCache is what a replica knows of the responses it journals: the
// hash of the last one (the same page, request after request, is
// compared, not hashed again), and the hashes whose body it sent and
// Redis took, which it sends without their body (Redis may have dropped
// one since, with the last entry referring to it: the step says so,
// and the replica sends that body again).
type bodyCache struct {
	mu    sync.Mutex
	last  []byte // a copy of the last body hashed
	lastH string
	known map[string]struct{}
}

// hash is the hash of response b, "" to keep it inline, and whether its
// body should go with the entry.
func (c *bodyCache) hash(b []byte) (h string, send bool) {
	if len(b) < minSharedBody {
		return "", false
	}
	c.mu.Lock()
	if bytes.Equal(b, c.last) {
		h = c.lastH
	}
	c.mu.Unlock()
	if h == "" {
		sum := sha256.Sum256(b)
		h = hex.EncodeToString(sum[:16])
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(b) <= maxLastBody && (len(c.last) != len(b) || c.lastH != h) {
		c.last, c.lastH = append(c.last[:0], b...), h
	}
	_, ok := c.known[h]
	return h, !ok
}

// sent notes that Redis holds the body of hash h.
func (c *bodyCache) sent(h string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.known == nil || len(c.known) >= maxSentHashes {
		c.known = make(map[string]struct{})
	}
	c.known[h] = struct{}{}
}

// gone notes that Redis holds the body of hash h no longer.
func (c *bodyCache) gone(h string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.known, h)
}
