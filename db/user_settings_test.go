package db_test

import (
	"context"
	"testing"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

func TestUserTimeZone(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	set := func(user, name string) {
		t.Helper()
		if err := db.SetUserTimeZone(ctx, pool, user, name); err != nil {
			t.Fatal(err)
		}
	}
	get := func(user string) string {
		t.Helper()
		name, err := db.UserTimeZone(ctx, pool, user)
		if err != nil {
			t.Fatal(err)
		}
		return name
	}

	steps := []struct {
		name       string
		do         func()
		user, want string
	}{
		{"a user who chose nothing", func() {}, "u1", ""},
		{"set", func() { set("u1", "Asia/Tokyo") }, "u1", "Asia/Tokyo"},
		{"changed", func() { set("u1", "America/New_York") }, "u1", "America/New_York"},
		{"another user is apart", func() { set("u2", "Europe/London") }, "u1", "America/New_York"},
		{"cleared", func() { set("u1", "") }, "u1", ""},
		{"the other user keeps theirs", func() {}, "u2", "Europe/London"},
		{"set again after clearing", func() { set("u1", "UTC") }, "u1", "UTC"},
	}
	for _, s := range steps {
		s.do()
		if got := get(s.user); got != s.want {
			t.Errorf("%s: time zone of %s = %q, want %q", s.name, s.user, got, s.want)
		}
	}

	if err := db.SetUserTimeZone(ctx, pool, "", "Asia/Tokyo"); err == nil {
		t.Error("a time zone was stored for no user")
	}
	var rows int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM user_settings").Scan(&rows); err != nil || rows != 2 {
		t.Errorf("user_settings has %d rows (%v), want 2: clearing keeps the row, nothing else added", rows, err)
	}
}
