package db

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// DefaultSlotLeaseTTL is how long a slot lease lasts without renewal: the
// slots of a process that died are free again this long after its last
// renewal.
const DefaultSlotLeaseTTL = 10 * time.Second

// SlotLeases shares the model servers' slots among processes through the
// model_slot_leases table (one row a slot). Holder names this process; its
// leases last TTL unless renewed. It satisfies llm.Leases.
type SlotLeases struct {
	DB     Querier
	Holder string
	TTL    time.Duration // default DefaultSlotLeaseTTL

	mu    sync.Mutex
	known map[string]int // slots whose rows exist, by server
	held  map[lease]bool // leases Acquire gave and Release has not taken back
}

// lease is one slot of one server.
type lease struct {
	server string
	slot   int
}

// NewSlotLeases returns the leases of this process: its holder name is the
// host, the process id and a random part (a restarted process is another
// holder, whose predecessor's leases expire).
func NewSlotLeases(db Querier) *SlotLeases {
	host, _ := os.Hostname()
	return &SlotLeases{DB: db, Holder: fmt.Sprintf("%s/%d/%s", host, os.Getpid(), rand.Text()[:8])}
}

func (l *SlotLeases) ttl() time.Duration {
	if l.TTL > 0 {
		return l.TTL
	}
	return DefaultSlotLeaseTTL
}

// Acquire takes a free slot below slots of server for Holder in one
// statement; ok is false when every one is held. The rows of the server's
// slots are created the first time it is asked for them.
func (l *SlotLeases) Acquire(ctx context.Context, server string, slots int) (int, bool, error) {
	if err := l.ensure(ctx, server, slots); err != nil {
		return 0, false, err
	}
	var slot int
	err := l.DB.QueryRow(ctx, `
		UPDATE model_slot_leases SET holder = $2, expires_at = now() + $4::interval
		WHERE (server, slot) = (
			SELECT server, slot FROM model_slot_leases
			WHERE server = $1 AND slot < $3 AND expires_at < now()
			ORDER BY slot LIMIT 1 FOR UPDATE SKIP LOCKED)
		RETURNING slot`, server, l.Holder, slots, l.ttl()).Scan(&slot)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("lease a slot of %s: %w", server, err)
	}
	l.mu.Lock()
	if l.held == nil {
		l.held = map[lease]bool{}
	}
	l.held[lease{server, slot}] = true
	l.mu.Unlock()
	return slot, true, nil
}

// ensure creates the rows of server's slots once per process.
func (l *SlotLeases) ensure(ctx context.Context, server string, slots int) error {
	l.mu.Lock()
	done := l.known[server] >= slots
	l.mu.Unlock()
	if done {
		return nil
	}
	_, err := l.DB.Exec(ctx, `
		INSERT INTO model_slot_leases (server, slot)
		SELECT $1, s FROM generate_series(0, $2 - 1) AS s
		ON CONFLICT (server, slot) DO NOTHING`, server, slots)
	if err != nil {
		return fmt.Errorf("create the slots of %s: %w", server, err)
	}
	l.mu.Lock()
	if l.known == nil {
		l.known = map[string]int{}
	}
	l.known[server] = max(l.known[server], slots)
	l.mu.Unlock()
	return nil
}

// Release frees slot of server if Holder still holds it.
func (l *SlotLeases) Release(ctx context.Context, server string, slot int) error {
	_, err := l.DB.Exec(ctx, `
		UPDATE model_slot_leases SET holder = '', expires_at = '-infinity'
		WHERE server = $1 AND slot = $2 AND holder = $3`, server, slot, l.Holder)
	// Not renewed from now on, even if the database did not hear the
	// release: the lease then runs out.
	l.mu.Lock()
	delete(l.held, lease{server, slot})
	l.mu.Unlock()
	if err != nil {
		return fmt.Errorf("release slot %d of %s: %w", slot, server, err)
	}
	return nil
}

// Renew extends every live lease of Holder by TTL. Holding none (a process
// between turns), it asks nothing of the database: it is called every few
// seconds.
func (l *SlotLeases) Renew(ctx context.Context) error {
	l.mu.Lock()
	none := len(l.held) == 0
	l.mu.Unlock()
	if none {
		return nil
	}
	_, err := l.DB.Exec(ctx, `
		UPDATE model_slot_leases SET expires_at = now() + $2::interval
		WHERE holder = $1 AND expires_at >= now()`, l.Holder, l.ttl())
	if err != nil {
		return fmt.Errorf("renew the slot leases of %s: %w", l.Holder, err)
	}
	return nil
}
