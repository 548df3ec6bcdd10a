package dbtest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

func TestNewIsMigratedAndIsolated(t *testing.T) {
	ctx := context.Background()
	a, b := dbtest.New(t), dbtest.New(t)
	applied, pending, err := db.MigrationStatus(ctx, a)
	if err != nil || applied == 0 || pending != 0 {
		t.Fatalf("MigrationStatus = %d applied, %d pending, %v; want all applied", applied, pending, err)
	}
	if _, err := db.UpsertSession(ctx, a, db.SessionParams{Key: "web:a", Space: "web"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.SessionByKey(ctx, b, "web:a"); !errors.Is(err, db.ErrNotFound) {
		t.Fatalf("session written in one test database is visible in another: err = %v", err)
	}
}

func TestEmptyURLHasNoSchema(t *testing.T) {
	ctx := context.Background()
	pool, err := db.Open(ctx, dbtest.EmptyURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	applied, pending, err := db.MigrationStatus(ctx, pool)
	if err != nil || applied != 0 || pending == 0 {
		t.Fatalf("MigrationStatus = %d applied, %d pending, %v; want none applied", applied, pending, err)
	}
}
