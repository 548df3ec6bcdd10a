package scheduler

import (
	"context"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

// MigrationsPending tells a database without the job queue's tables from a
// migrated one, and creates nothing.
func TestMigrationsPending(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pool, err := db.Open(ctx, dbtest.EmptyURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	for range 2 { // the check itself changes nothing
		if msg, err := MigrationsPending(ctx, pool); err != nil || msg == "" {
			t.Fatalf("empty database: pending %q, %v; want a message", msg, err)
		}
	}
	if err := Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	if msg, err := MigrationsPending(ctx, pool); err != nil || msg != "" {
		t.Errorf("migrated database: pending %q, %v", msg, err)
	}
}
