package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

func TestLockIsHeldByOneSessionAtATime(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	const key = 42
	first, err := db.TryLock(ctx, pool, key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.TryLock(ctx, pool, key); !errors.Is(err, db.ErrLocked) {
		t.Fatalf("second TryLock: err = %v, want ErrLocked", err)
	}
	if err := first.Check(ctx, nil); err != nil {
		t.Errorf("Check while held: %v", err)
	}
	if err := first.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := first.Check(ctx, nil); err == nil {
		t.Error("Check after Release reports the lock held")
	}
	second, err := db.TryLock(ctx, pool, key)
	if err != nil {
		t.Fatalf("TryLock after release: %v", err)
	}
	second.Release(ctx)
}

// Waiting on a held lock sends nothing and sees its connection end at once:
// a wait that runs out leaves the lock held and its connection usable for
// a check with a statement of its own (a statement's failure is not the
// lock's loss); a terminated backend ends the wait with ErrLockLost; and
// Release ends a wait in progress.
func TestLockWaitSeesTheConnectionEnd(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	const key = 43
	lock, err := db.TryLock(ctx, pool, key)
	if err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	err = lock.Wait(wctx)
	cancel()
	if err != nil {
		t.Fatalf("Wait that ran out: %v, want nil", err)
	}
	var held bool
	if err := lock.Check(ctx, func(ctx context.Context, q db.Querier) error {
		return q.QueryRow(ctx, `SELECT count(*) = 1 FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND pid = pg_backend_pid()`, key).Scan(&held)
	}); err != nil || !held {
		t.Fatalf("Check after the wait: held %v, err %v", held, err)
	}
	bad := lock.Check(ctx, func(ctx context.Context, q db.Querier) error {
		_, err := q.Exec(ctx, `SELECT * FROM no_such_table`)
		return err
	})
	if bad == nil || errors.Is(bad, db.ErrLockLost) {
		t.Errorf("a failed statement: %v, want its error, not ErrLockLost", bad)
	}

	waited := make(chan error, 1)
	go func() { waited <- lock.Wait(ctx) }()
	time.Sleep(100 * time.Millisecond) // most likely waiting by now; either way the wait must end
	if _, err := pool.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND objid = $1`, key); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-waited:
		if !errors.Is(err, db.ErrLockLost) {
			t.Errorf("Wait on a terminated backend: %v, want ErrLockLost", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Wait did not see its backend terminated")
	}
	lock.Release(ctx)

	again, err := db.TryLock(ctx, pool, key)
	if err != nil {
		t.Fatalf("TryLock after the loss: %v", err)
	}
	go func() { waited <- again.Wait(ctx) }()
	time.Sleep(100 * time.Millisecond)
	if err := again.Release(ctx); err != nil {
		t.Fatalf("Release during a wait: %v", err)
	}
	select {
	case <-waited:
	case <-time.After(10 * time.Second):
		t.Fatal("Release did not end the wait")
	}
	if other, err := db.TryLock(ctx, pool, key); err != nil {
		t.Errorf("TryLock after Release: %v", err)
	} else {
		other.Release(ctx)
	}
}
