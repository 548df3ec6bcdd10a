package db

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrLocked means another session holds the lock.
var ErrLocked = errors.New("held by another process")

// Lock is a session-level advisory lock held on a connection of its own,
// for what only one process may do at a time (hold the Discord gateway).
// It is held for as long as that connection lives.
type Lock struct {
	conn *pgx.Conn
	key  int64
}

// TryLock takes advisory lock key without waiting. It returns ErrLocked
// when another session holds it. The connection is taken out of the pool,
// so pool maintenance never closes it under the lock.
func TryLock(ctx context.Context, pool *pgxpool.Pool, key int64) (*Lock, error) {
	pc, err := pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("lock %d: acquire connection: %w", key, err)
	}
	var ok bool
	if err := pc.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", key).Scan(&ok); err != nil {
		pc.Release()
		return nil, fmt.Errorf("lock %d: %w", key, err)
	}
	if !ok {
		pc.Release()
		return nil, fmt.Errorf("lock %d: %w", key, ErrLocked)
	}
	return &Lock{conn: pc.Hijack(), key: key}, nil
}

// Check reports whether the lock is still held: it is, while its
// connection answers.
func (l *Lock) Check(ctx context.Context) error {
	if err := l.conn.Ping(ctx); err != nil {
		return fmt.Errorf("lock %d lost: %w", l.key, err)
	}
	return nil
}

// Release gives the lock up and closes its connection. The unlock is
// explicit: the server ends a closed session in its own time, and the lock
// must be free for others as soon as Release returns.
func (l *Lock) Release(ctx context.Context) error {
	_, unlockErr := l.conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", l.key)
	closeErr := l.conn.Close(ctx)
	if err := errors.Join(unlockErr, closeErr); err != nil {
		return fmt.Errorf("release lock %d: %w", l.key, err)
	}
	return nil
}
