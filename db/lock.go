package db

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// ErrLocked means another session holds the lock.
var ErrLocked = errors.New("held by another process")

// ErrLockLost means a held lock's connection ended, and the lock with it.
var ErrLockLost = errors.New("lock lost")

// Lock is a session-level advisory lock held on a connection of its own,
// for what only one process may do at a time (hold the Discord gateway).
// It is held for as long as that connection lives. Wait and Check are for
// one goroutine, the lock's watcher; Release may come from any.
type Lock struct {
	conn *pgx.Conn
	key  int64

	mu sync.Mutex // held while conn is in use: a pgx connection is not safe for concurrent use
	// interrupt ends the Wait in progress, if any, for Release.
	imu       sync.Mutex
	interrupt context.CancelFunc
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

// Wait returns when the lock's connection ends — the lock went with it
// (ErrLockLost) — or, with nil, when ctx ends or Release interrupts it. It
// only reads from the connection, sending nothing: the end of the
// connection (a database restart or failover, a terminated backend) shows
// at once and costs the database no statement. A connection that goes
// silent without ending (a network cut) shows only to Check.
func (l *Lock) Wait(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	l.imu.Lock()
	l.interrupt = cancel
	l.imu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	for ctx.Err() == nil {
		// Nothing is listened for: a notification does not come, but the
		// wait reads, and so sees the connection end.
		if _, err := l.conn.WaitForNotification(ctx); err != nil && ctx.Err() == nil {
			return fmt.Errorf("lock %d: %w: %w", l.key, ErrLockLost, err)
		}
	}
	return nil
}

// Check reports whether the lock is still held: it is, while its
// connection answers. with, when not nil, asks instead of a ping — a
// statement run on the lock's connection (a heartbeat), so one round trip
// both checks and records. Its error is ErrLockLost when the connection
// is gone; with's own failure on a connection that still answers is
// returned as it is.
func (l *Lock) Check(ctx context.Context, with func(ctx context.Context, q Querier) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var err error
	if with == nil {
		err = l.conn.Ping(ctx)
	} else {
		err = with(ctx, l.conn)
	}
	if err != nil && (with == nil || l.conn.IsClosed()) {
		return fmt.Errorf("lock %d: %w: %w", l.key, ErrLockLost, err)
	}
	return err
}

// Release gives the lock up and closes its connection. The unlock is
// explicit: the server ends a closed session in its own time, and the lock
// must be free for others as soon as Release returns.
func (l *Lock) Release(ctx context.Context) error {
	l.imu.Lock()
	if l.interrupt != nil {
		l.interrupt()
	}
	l.imu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	_, unlockErr := l.conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", l.key)
	closeErr := l.conn.Close(ctx)
	if err := errors.Join(unlockErr, closeErr); err != nil {
		return fmt.Errorf("release lock %d: %w", l.key, err)
	}
	return nil
}
