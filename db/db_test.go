package db_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

func TestOpen(t *testing.T) {
	ctx := context.Background()
	pool, err := db.Open(ctx, dbtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var tz string
	var now time.Time
	if err := pool.QueryRow(ctx, "SELECT current_setting('TimeZone'), now()").Scan(&tz, &now); err != nil {
		t.Fatal(err)
	}
	if tz != "UTC" || now.Location() != time.UTC {
		t.Errorf("session time zone %q, scanned time in %v; want UTC for both", tz, now.Location())
	}
}

func TestOpenErrors(t *testing.T) {
	tests := []struct {
		name, url, notWant string
	}{
		{"malformed URL keeps the password out of the error", "postgres://u:s3cret@host:notaport/db", "s3cret"},
		{"nobody listening", "postgres://u:s3cret@127.0.0.1:1/db?connect_timeout=1", "s3cret"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pool, err := db.Open(context.Background(), tc.url)
			if err == nil {
				pool.Close()
				t.Fatal("Open succeeded")
			}
			if strings.Contains(err.Error(), tc.notWant) {
				t.Errorf("error %q shows %q", err, tc.notWant)
			}
		})
	}
}
