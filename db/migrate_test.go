package db_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

func openEmpty(t *testing.T) (url string, open func() *pgxpool.Pool) {
	t.Helper()
	url = dbtest.EmptyURL(t)
	return url, func() *pgxpool.Pool {
		t.Helper()
		pool, err := db.Open(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		return pool
	}
}

// Migrations are applied by version, each once, so a number left unused
// (work that landed out of order) is harmless; a number used twice is not.
func TestMigrationsAreNumberedFromOne(t *testing.T) {
	ms, err := db.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	prev := 0
	for i, m := range ms {
		if (i == 0 && m.Version != 1) || m.Version <= prev || m.Name == "" || m.SQL == "" {
			t.Errorf("migration %d = {%d %q, %d bytes}; want a version above %d (1 first) with a name and SQL", i, m.Version, m.Name, len(m.SQL), prev)
		}
		prev = m.Version
	}
}

func TestMigrateConcurrentAppliesEachFileOnce(t *testing.T) {
	ctx := context.Background()
	_, open := openEmpty(t)
	ms, err := db.Migrations()
	if err != nil {
		t.Fatal(err)
	}

	// Two pools stand for two processes starting at the same time.
	pools := []*pgxpool.Pool{open(), open()}
	if applied, pending, err := db.MigrationStatus(ctx, pools[0]); err != nil || applied != 0 || pending != len(ms) {
		t.Fatalf("before: MigrationStatus = %d, %d, %v; want 0, %d, nil", applied, pending, err, len(ms))
	}
	var wg sync.WaitGroup
	errs := make([]error, len(pools))
	for i, p := range pools {
		wg.Go(func() { errs[i] = db.Migrate(ctx, p) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Migrate #%d: %v", i, err)
		}
	}

	rows, err := pools[0].Query(ctx, "SELECT version, count(*) FROM schema_migrations GROUP BY version ORDER BY version")
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ Version, Count int }
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[row])
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(ms) {
		t.Fatalf("schema_migrations has %d versions; want %d", len(got), len(ms))
	}
	for i, r := range got {
		if r.Version != ms[i].Version || r.Count != 1 {
			t.Errorf("schema_migrations row %d = %+v; want version %d once", i, r, ms[i].Version)
		}
	}

	// Idempotent: a later run changes nothing.
	if err := db.Migrate(ctx, pools[1]); err != nil {
		t.Fatalf("second Migrate: %v", err)
	}
	if applied, pending, err := db.MigrationStatus(ctx, pools[1]); err != nil || applied != len(ms) || pending != 0 {
		t.Fatalf("after: MigrationStatus = %d, %d, %v; want %d, 0, nil", applied, pending, err, len(ms))
	}
}

func TestWithMigrationLockHoldsOffMigrate(t *testing.T) {
	ctx := context.Background()
	_, open := openEmpty(t)
	holder, other, observer := open(), open(), open()

	done := make(chan error, 1)
	err := db.WithMigrationLock(ctx, holder, func(ctx context.Context) error {
		go func() { done <- db.Migrate(ctx, other) }()
		// Wait until Migrate is blocked on the advisory lock.
		deadline := time.Now().Add(10 * time.Second)
		for {
			var waiting bool
			err := observer.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks
				WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))`).Scan(&waiting)
			if err != nil {
				return err
			}
			if waiting {
				break
			}
			if time.Now().After(deadline) {
				return errors.New("Migrate never waited for the lock")
			}
			time.Sleep(10 * time.Millisecond)
		}
		_, pending, err := db.MigrationStatus(ctx, observer)
		if err != nil {
			return err
		}
		if pending == 0 {
			return errors.New("Migrate ran while the lock was held")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("Migrate after the lock was released: %v", err)
	}
}

func TestMigrateHonoursCancelledContext(t *testing.T) {
	_, open := openEmpty(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := db.Migrate(ctx, open()); !errors.Is(err, context.Canceled) {
		t.Fatalf("Migrate with a cancelled context = %v; want context.Canceled", err)
	}
}
