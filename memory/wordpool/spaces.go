package wordpool

import (
	"context"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/yorozu-bot/yorozu/db"
)

// DefaultMaxSpaces is how many spaces' pools Spaces keeps in memory.
const DefaultMaxSpaces = 1000

// seedTimeout bounds the query that seeds a space's pool.
const seedTimeout = 10 * time.Second

// Spaces keeps one Pool per space, so the words of one community never
// become another's topics. A space's pool is made on first use and seeded
// then from that space's stored user messages. The pools of the spaces used
// least lately are dropped beyond a maximum (seeded again when used again).
// It is safe for concurrent use.
type Spaces struct {
	q    db.Querier
	size int
	max  int
	log  *slog.Logger

	mu    sync.Mutex
	pools map[string]*spacePool
}

type spacePool struct {
	pool *Pool
	used time.Time
	once sync.Once // seeds the pool
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
	s.mu.Lock()
	sp := s.pools[space]
	if sp == nil {
		if len(s.pools) >= s.max {
			s.evictLocked()
		}
		sp = &spacePool{pool: New(s.size)}
		s.pools[space] = sp
	}
	sp.used = time.Now()
	s.mu.Unlock()
	sp.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), seedTimeout)
		defer cancel()
		if err := sp.pool.SeedFromDB(ctx, s.q, space, 0); err != nil {
			s.log.Warn("seed word pool", "space", space, "err", err)
		}
	})
	return sp.pool
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

// Words returns the kept nouns of space, oldest first (the admin page).
func (s *Spaces) Words(ctx context.Context, space string) []string {
	return s.Pool(ctx, space).Words()
}
