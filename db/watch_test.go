package db_test

import (
	"context"
	"log/slog"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/internal/logtest"
)

// The watch pings only every few minutes while the database answers, yet
// says the database's return within seconds: the part that found it away
// (Check, as River's log does on its errors) wakes it to ping every second
// until the database is back. The outage is the database refusing
// connections with every session ended.
func TestWatchSaysTheReturnSoon(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dbURL := dbtest.URL(t)
	pool, err := db.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	u.Path = "/postgres"
	admin, err := pgx.Connect(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close(context.Background()) })
	allow := func(yes bool) {
		t.Helper()
		if _, err := admin.Exec(context.Background(), "ALTER DATABASE "+pgx.Identifier{name}.Sanitize()+" WITH ALLOW_CONNECTIONS "+map[bool]string{true: "true", false: "false"}[yes]); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { allow(true) })

	logs := &logtest.Buffer{}
	w := db.NewWatch(pool, slog.New(slog.NewTextHandler(logs, nil)))
	acquired := pool.Stat().AcquireCount()
	go w.Run(ctx)
	// Run's first ping, which found the database answering: its next is
	// minutes away.
	for pool.Stat().AcquireCount() == acquired || pool.Stat().AcquiredConns() > 0 {
		time.Sleep(5 * time.Millisecond)
	}

	allow(false)
	if _, err := admin.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1`, name); err != nil {
		t.Fatal(err)
	}
	if !w.Check(ctx) {
		t.Fatal("Check with every session ended and connections refused: the database answers")
	}
	allow(true)
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	defer wcancel()
	if _, err := logs.WaitFor(wctx, regexp.MustCompile(`the database answers again`)); err != nil {
		t.Fatalf("the return was not said within 10 s: %v\n%s", err, logs)
	}
	if n := strings.Count(logs.String(), "does not answer"); n != 1 {
		t.Errorf("%d lines saying the database is away, want 1:\n%s", n, logs)
	}
}
