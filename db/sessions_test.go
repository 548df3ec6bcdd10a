package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

func TestUpsertSession(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	t0 := time.Date(2026, 11, 30, 15, 4, 0, 0, time.FixedZone("JST", 9*3600))

	first, err := db.UpsertSession(ctx, pool, db.SessionParams{Space: "guild:9", Key: "discord:channel:1", Source: "discord", ChannelID: "1", At: t0})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		p    db.SessionParams
		want db.Session // ID, CreatedAt copied from first
	}{
		{
			name: "same params again",
			p:    db.SessionParams{Space: "web", Key: "discord:channel:1", Source: "discord", ChannelID: "1", At: t0},
			want: db.Session{Space: "guild:9", Key: "discord:channel:1", Source: "discord", ChannelID: "1", UpdatedAt: t0.UTC()},
		},
		{
			name: "fills fields it lacked, keeps the ones it had, and its space",
			p:    db.SessionParams{Space: "web", Key: "discord:channel:1", Source: "web", GuildID: "9", ChannelID: "2", Title: "雑談", At: t0.Add(time.Hour)},
			want: db.Session{Space: "guild:9", Key: "discord:channel:1", Source: "discord", GuildID: "9", ChannelID: "1", Title: "雑談", UpdatedAt: t0.Add(time.Hour).UTC()},
		},
		{
			name: "an older activity time never moves updated_at back",
			p:    db.SessionParams{Space: "web", Key: "discord:channel:1", At: t0.Add(-time.Hour)},
			want: db.Session{Space: "guild:9", Key: "discord:channel:1", Source: "discord", GuildID: "9", ChannelID: "1", Title: "雑談", UpdatedAt: t0.Add(time.Hour).UTC()},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := db.UpsertSession(ctx, pool, tc.p)
			if err != nil {
				t.Fatal(err)
			}
			tc.want.ID, tc.want.CreatedAt = first.ID, first.CreatedAt
			if got != tc.want {
				t.Errorf("UpsertSession =\n %+v\nwant\n %+v", got, tc.want)
			}
			if got.UpdatedAt.Location() != time.UTC {
				t.Errorf("updated_at in %v; want UTC", got.UpdatedAt.Location())
			}
		})
	}
	if n := countRows(t, pool, "sessions"); n != 1 {
		t.Errorf("sessions has %d rows; want 1", n)
	}

	byKey, err := db.SessionByKey(ctx, pool, "discord:channel:1")
	if err != nil || byKey.ID != first.ID {
		t.Errorf("SessionByKey = %+v, %v; want session %d", byKey, err, first.ID)
	}
	if _, err := db.SessionByKey(ctx, pool, "web:nobody"); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("SessionByKey(unknown) error = %v; want ErrNotFound", err)
	}
	if _, err := db.UpsertSession(ctx, pool, db.SessionParams{}); err == nil {
		t.Error("UpsertSession with an empty key succeeded")
	}
	if _, err := db.UpsertSession(ctx, pool, db.SessionParams{Key: "web:x"}); err == nil {
		t.Error("UpsertSession with an empty space succeeded")
	}
}

func TestUpsertSessionConcurrent(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	ids := make(chan int64, 8)
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			s, err := db.UpsertSession(ctx, pool, db.SessionParams{Space: "web", Key: "web:admin", Source: "web"})
			errs <- err
			ids <- s.ID
		}()
	}
	var first int64
	for i := range 8 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
		id := <-ids
		if i == 0 {
			first = id
		} else if id != first {
			t.Errorf("concurrent upserts returned sessions %d and %d", first, id)
		}
	}
}

func countRows(t *testing.T, q db.Querier, table string) int {
	t.Helper()
	var n int
	if err := q.QueryRow(context.Background(), "SELECT count(*) FROM "+table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRenameSession: a name a person gives a conversation always wins, and
// the title made from a first message fills only a conversation without one,
// so it never overwrites that name.
func TestRenameSession(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	sess, err := db.CreateSession(ctx, pool, db.NewSession{Key: "web:1", Source: "web", Space: "web"})
	if err != nil {
		t.Fatal(err)
	}
	gone, err := db.CreateSession(ctx, pool, db.NewSession{Key: "web:2", Source: "web", Space: "web", Title: "消した会話"})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteSession(ctx, pool, gone.ID); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name    string
		do      func(id int64) error
		id      int64
		wantErr error
		want    string // the title after the step
	}{
		{"the first message titles it", func(id int64) error { return db.SetSessionTitle(ctx, pool, id, "明日の天気は？") }, sess.ID, nil, "明日の天気は？"},
		{"a rename replaces that title", func(id int64) error { return db.RenameSession(ctx, pool, id, "天気の相談") }, sess.ID, nil, "天気の相談"},
		{"an automatic title leaves the name alone", func(id int64) error { return db.SetSessionTitle(ctx, pool, id, "ありがとう") }, sess.ID, nil, "天気の相談"},
		{"a second rename wins again", func(id int64) error { return db.RenameSession(ctx, pool, id, "旅行の計画") }, sess.ID, nil, "旅行の計画"},
		{"an unknown conversation", func(id int64) error { return db.RenameSession(ctx, pool, id, "x") }, 9999, db.ErrNotFound, "旅行の計画"},
		{"a deleted conversation", func(id int64) error { return db.RenameSession(ctx, pool, id, "x") }, gone.ID, db.ErrNotFound, "旅行の計画"},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if err := st.do(st.id); !errors.Is(err, st.wantErr) {
				t.Fatalf("err = %v, want %v", err, st.wantErr)
			}
			got, err := db.SessionItemByID(ctx, pool, sess.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Title != st.want {
				t.Errorf("title = %q, want %q", got.Title, st.want)
			}
		})
	}
}
