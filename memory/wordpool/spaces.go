package wordpool

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/yorozu-bot/yorozu/db"
)

// DefaultMaxSpaces is how many spaces' pools Spaces keeps in memory.
const DefaultMaxSpaces = 1000

// seedTimeout bounds the query that seeds a space's pool.
const seedTimeout = 10 * time.Second

// Spaces keeps one Pool per space, so the words of one community never
// become another's topics. A space's pool is made on first use and seeded
// then from the pool saved for it (Save), else from that space's stored
// user messages. The pools of the spaces used least lately are dropped
// beyond a maximum (seeded again when used again; what they learnt since
// the last Save is lost). It is safe for concurrent use.
type Spaces struct {
	q    db.Querier
	size int
	max  int
	log  *slog.Logger

	mu    sync.Mutex
	pools map[string]*spacePool
}

type spacePool struct {
	pool   *Pool
	used   time.Time
	once   sync.Once   // seeds the pool
	seeded atomic.Bool // the seeding is over (and its texts tokenised)
	asked  atomic.Bool // Ready started the seeding in the background

	savedMu sync.Mutex
	saved   []string // the words as last saved or read from the saved pool
}

// NewSpaces returns the per-space pools over q, each keeping size nouns
// (DefaultSize when ≤ 0), at most maxSpaces pools at once
// (DefaultMaxSpaces when ≤ 0). logger gets seeding failures (nil: the
// default logger).
func NewSpaces(q db.Querier, size, maxSpaces int, logger *slog.Logger) *Spaces {
	if size <= 0 {
		size = DefaultSize
	}
	if maxSpaces <= 0 {
		maxSpaces = DefaultMaxSpaces
	}
	if logger == nil {
		logger = slog.Default()
	}
	return &Spaces{q: q, size: size, max: maxSpaces, log: logger, pools: map[string]*spacePool{}}
}

// Pool returns the pool of space, making and seeding it on first use. A
// seeding failure is logged; the pool then starts empty.
func (s *Spaces) Pool(ctx context.Context, space string) *Pool {
	sp := s.spacePool(space)
	s.seed(ctx, sp, space)
	return sp.pool
}

// Ready is Pool for a caller that must not wait (a turn before its model
// call): nil while the pool of space is not seeded yet, its seeding then
// going on in the background.
func (s *Spaces) Ready(space string) *Pool {
	sp := s.spacePool(space)
	if sp.seeded.Load() {
		return sp.pool
	}
	if sp.asked.CompareAndSwap(false, true) {
		go s.seed(context.Background(), sp, space)
	}
	return nil
}

// spacePool is the entry of space, made when missing.
func (s *Spaces) spacePool(space string) *spacePool {
	s.mu.Lock()
	defer s.mu.Unlock()
	sp := s.pools[space]
	if sp == nil {
		if len(s.pools) >= s.max {
			s.evictLocked()
		}
		sp = &spacePool{pool: New(s.size)}
		s.pools[space] = sp
	}
	sp.used = time.Now()
	return sp
}

// seed seeds sp's pool once: from the pool saved for space, else from
// space's stored messages, which it then tokenises.
func (s *Spaces) seed(ctx context.Context, sp *spacePool, space string) {
	sp.once.Do(func() {
		defer sp.seeded.Store(true)
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), seedTimeout)
		defer cancel()
		words, ok, err := db.SavedWordPool(ctx, s.q, space)
		if err != nil {
			s.log.Warn("read saved word pool", "space", space, "err", err)
		}
		if ok {
			sp.pool.SeedWords(words)
			sp.savedMu.Lock()
			sp.saved = words
			sp.savedMu.Unlock()
			return
		}
		if err := sp.pool.SeedFromDB(ctx, s.q, space, 0); err != nil {
			s.log.Warn("seed word pool", "space", space, "err", err)
		}
		sp.pool.Knows("") // tokenises the texts seeded, here rather than in the first caller
	})
}

// evictLocked drops the least lately used tenth of the pools. s.mu is held.
func (s *Spaces) evictLocked() {
	type entry struct {
		space string
		used  time.Time
	}
	all := make([]entry, 0, len(s.pools))
	for k, v := range s.pools {
		all = append(all, entry{k, v.used})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].used.Before(all[j].used) })
	for _, e := range all[:max(1, len(all)/10)] {
		delete(s.pools, e.space)
	}
}

// Save stores each seeded pool whose words changed since it was seeded or
// last saved (db.SaveWordPool), so the next process seeds it from that one
// row instead of the space's messages. It returns the failures, joined;
// a pool that failed is tried again next time.
func (s *Spaces) Save(ctx context.Context) error {
	type entry struct {
		space string
		sp    *spacePool
	}
	s.mu.Lock()
	all := make([]entry, 0, len(s.pools))
	for k, sp := range s.pools {
		if sp.seeded.Load() {
			all = append(all, entry{k, sp})
		}
	}
	s.mu.Unlock()
	var errs []error
	for _, e := range all {
		words := e.sp.pool.Words()
		e.sp.savedMu.Lock()
		same := slices.Equal(words, e.sp.saved)
		e.sp.savedMu.Unlock()
		if same {
			continue
		}
		if err := db.SaveWordPool(ctx, s.q, e.space, words); err != nil {
			errs = append(errs, err)
			continue
		}
		e.sp.savedMu.Lock()
		e.sp.saved = words
		e.sp.savedMu.Unlock()
	}
	return errors.Join(errs...)
}

// SaveEvery calls Save every interval until ctx ends, logging failures.
// The caller saves once more when it stops.
func (s *Spaces) SaveEvery(ctx context.Context, interval time.Duration) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if err := s.Save(ctx); err != nil && ctx.Err() == nil {
				s.log.Warn("save word pools", "err", err)
			}
		}
	}
}

// Words returns the kept nouns of space, oldest first (the admin page).
func (s *Spaces) Words(ctx context.Context, space string) []string {
	return s.Pool(ctx, space).Words()
}
