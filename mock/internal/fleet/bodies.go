package fleet

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"sync"
)

// minSharedBody is the size from which the journal stores a response
// body once for all entries with the same bytes (j:b:H). A smaller one
// is stored with its entry.
const minSharedBody = 1 << 10

// maxLastBody bounds the last body a replica keeps to compare with.
const maxLastBody = 64 << 10

// maxSentHashes bounds the hashes a replica remembers sending.
const maxSentHashes = 4096

// bodyCache spares the journal work on repeated response bodies: the
// same page as the last is compared rather than hashed again, and a body
// Redis has is sent by hash only (again whole if the append says Redis
// dropped it).
type bodyCache struct {
	mu    sync.Mutex
	last  []byte // a copy of the last body hashed
	lastH string
	known map[string]struct{}
}

// hash returns the hash of response b ("" to store it inline), and
// whether the body must be sent with the entry.
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
