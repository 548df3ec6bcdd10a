package db_test

import (
	"context"
	"errors"
	"testing"

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
	if err := first.Check(ctx); err != nil {
		t.Errorf("Check while held: %v", err)
	}
	if err := first.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := first.Check(ctx); err == nil {
		t.Error("Check after Release reports the lock held")
	}
	second, err := db.TryLock(ctx, pool, key)
	if err != nil {
		t.Fatalf("TryLock after release: %v", err)
	}
	second.Release(ctx)
}
