package shop

import (
	"container/list"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/replymock/replymock/mock/internal/budget"
)

// Owner is the session a kept shop belongs to: its lock guards the shop,
// and the budget tries it to evict the shop while serving another's.
type Owner interface {
	ID() string
	Lasting() bool // the owner's shops are evicted last: the default session's
	TryLock() bool
	Unlock()
}

// Budget keeps the memory of all sessions' living shops under a maximum
// (Options.MaxShopBytes). Past it, the least recently used shops are
// evicted, the lasting owner's last: each starts again from its
// scenario's start, and a warning names it.
//
// mu is taken while an owner's lock is held, never the other way round.
// To evict a shop, its owner's lock is only tried (TryLock): a busy
// owner is passed over until the next time.
type Budget struct {
	bytes     *budget.Budget // the sizes of the shops in lru
	log       *slog.Logger
	mu        sync.Mutex // guards lru, each listed account, and makes each change of bytes whole
	lru       list.List  // *Shop, the most recently used first
	evictions atomic.Int64
}

// account is what the budget knows of a kept shop.
type account struct {
	b       *Budget
	owner   Owner
	evicted func() // called under the owner's lock
	bytes   int64  // Size() when last accounted; guarded by b.mu
	elem    *list.Element
}

// NewBudget is a budget of max bytes that logs its evictions to log.
func NewBudget(max int64, log *slog.Logger) *Budget {
	return &Budget{log: log, bytes: budget.New("replymock_shop_bytes",
		"What all living shops keep together, as counted against --max-shop-memory.", max)}
}

// Bytes is the budget's accounting.
func (b *Budget) Bytes() *budget.Budget { return b.bytes }

// Evictions is how many shops the budget has evicted.
func (b *Budget) Evictions() int64 { return b.evictions.Load() }

// Add accounts sh, owner's new shop; evicted is called if the budget
// evicts it. The caller holds owner's lock. A nil budget keeps nothing.
func (b *Budget) Add(sh *Shop, owner Owner, evicted func()) {
	if b == nil {
		return
	}
	a := &account{b: b, owner: owner, evicted: evicted, bytes: sh.Size()}
	sh.acct = a
	b.mu.Lock()
	defer b.mu.Unlock()
	a.elem = b.lru.PushFront(sh)
	b.bytes.Charge(a.bytes)
	b.enforceLocked(sh)
}

// Touch marks sh as just used and accounts its size, which a run may
// have changed. The caller holds its owner's lock.
func (sh *Shop) Touch() {
	size := sh.Size()
	sh.whileKept(func(a *account) {
		a.b.bytes.Charge(size - a.bytes)
		a.bytes = size
		a.b.lru.MoveToFront(a.elem)
		a.b.enforceLocked(sh)
	})
}

// Release forgets sh, which its session dropped. The caller holds its
// owner's lock.
func (sh *Shop) Release() {
	sh.whileKept(func(a *account) { a.b.dropLocked(a) })
}

// whileKept calls fn with sh's account under the budget's lock, if the
// budget still keeps sh.
func (sh *Shop) whileKept(fn func(a *account)) {
	a := sh.acct
	if a == nil {
		return
	}
	a.b.mu.Lock()
	defer a.b.mu.Unlock()
	if a.elem != nil {
		fn(a)
	}
}

// dropLocked takes a's shop out of the budget. The caller holds b.mu.
func (b *Budget) dropLocked(a *account) {
	b.lru.Remove(a.elem)
	a.elem = nil
	b.bytes.Release(a.bytes)
}

// enforceLocked evicts the least recently used shops but current until
// the total is within the budget; current goes too if it alone is over.
// The caller holds b.mu and current's owner's lock.
func (b *Budget) enforceLocked(current *Shop) {
	owner := current.acct.owner
	for pass := 0; pass < 2 && b.bytes.Over() > 0; pass++ {
		for e := b.lru.Back(); e != nil && b.bytes.Over() > 0; {
			sh := e.Value.(*Shop)
			e = e.Prev()
			switch {
			case sh == current || pass == 0 && sh.acct.owner.Lasting():
			case sh.acct.owner == owner: // another scenario's shop of the same owner: its lock is held
				b.evictLocked(sh)
			case sh.acct.owner.TryLock():
				b.evictLocked(sh)
				sh.acct.owner.Unlock()
			}
		}
	}
	if current.acct.bytes > b.bytes.Max() {
		b.evictLocked(current)
	}
}

// evictLocked drops sh from its owner: the next request starts the shop
// again. The caller holds b.mu and sh's owner's lock.
func (b *Budget) evictLocked(sh *Shop) {
	a := sh.acct
	a.evicted()
	b.dropLocked(a)
	b.evictions.Add(1)
	b.log.Warn("living shop evicted: the shops' memory is over the budget (--max-shop-memory); it starts again from its scenario's start",
		"session", a.owner.ID(), "scenario", sh.sc.Name, "shop_bytes", a.bytes, "shops_bytes", b.bytes.Used(), "max_shop_bytes", b.bytes.Max())
}

// Audit returns the sum of the kept shops' sizes and what the
// accounting holds. The two differ only by a mistake.
func (b *Budget) Audit() (sizes, used int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for e := b.lru.Front(); e != nil; e = e.Next() {
		sizes += e.Value.(*Shop).acct.bytes
	}
	return sizes, b.bytes.Used()
}
