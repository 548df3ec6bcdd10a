package chat

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

// countedQuerier counts the queries made through it, and fails them while
// down is set.
type countedQuerier struct {
	db.Querier
	queries atomic.Int32
	down    atomic.Bool
}

func (q *countedQuerier) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	q.queries.Add(1)
	if q.down.Load() {
		return nil, errors.New("connection refused")
	}
	return q.Querier.Query(ctx, sql, args...)
}

// A turn's persona and model come from memory: the settings are read by
// the first turn, again in the background once ChannelsRefresh old (a
// change made elsewhere), and at once by ReloadChannels (a change made
// here). While the database is away the ones known stay in force, without
// a turn waiting.
func TestChannelSettingsKeptInMemory(t *testing.T) {
	pool := dbtest.New(t)
	ctx := t.Context()
	set := func(channel, persona string) {
		t.Helper()
		if _, err := db.UpdateChannelSetting(ctx, pool, db.ChannelSettingUpdate{GuildID: "g1", ChannelID: channel, Persona: &persona, By: "u1"}); err != nil {
			t.Fatal(err)
		}
	}
	set("", "サーバーの人格")
	set("c1", "海賊")
	q := &countedQuerier{Querier: pool}
	c := &Chooser{Channels: q, ChannelsRefresh: 200 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)}
	persona := func(channel string) string {
		return c.applyChannel(ctx, Request{Source: "discord", GuildID: "g1", ChannelID: channel}, "chat").Persona
	}

	if p := persona("c1"); p != "海賊" {
		t.Fatalf("c1's persona = %q", p)
	}
	if p := persona("c2"); p != "サーバーの人格" {
		t.Errorf("c2's persona = %q, want the server's", p)
	}
	if n := q.queries.Load(); n != 1 {
		t.Errorf("two turns made %d queries, want 1", n)
	}

	// Another process changes c1: within the refresh, the next turns see it.
	set("c1", "忍者")
	if p := persona("c1"); p != "海賊" {
		t.Errorf("c1's persona right after a change elsewhere = %q; the one kept is expected", p)
	}
	deadline := time.Now().Add(5 * time.Second)
	for persona("c1") != "忍者" {
		if time.Now().After(deadline) {
			t.Fatalf("a change made elsewhere not in force after the refresh (%d queries)", q.queries.Load())
		}
		time.Sleep(20 * time.Millisecond)
	}

	// A change made here is in force at the next turn.
	set("c1", "執事")
	if err := c.ReloadChannels(ctx); err != nil {
		t.Fatal(err)
	}
	if p := persona("c1"); p != "執事" {
		t.Errorf("c1's persona after ReloadChannels = %q", p)
	}

	// The database goes away: the known settings stay, and no turn waits.
	q.down.Store(true)
	if err := c.ReloadChannels(ctx); err == nil {
		t.Error("ReloadChannels with the database away: no error")
	}
	time.Sleep(250 * time.Millisecond) // past the refresh
	for range 5 {
		start := time.Now()
		if p := persona("c1"); p != "執事" {
			t.Errorf("c1's persona with the database away = %q", p)
		}
		if d := time.Since(start); d > 50*time.Millisecond {
			t.Errorf("a turn waited %v for the settings", d)
		}
	}
	q.down.Store(false)
	set("c1", "魔法使い")
	deadline = time.Now().Add(5 * time.Second)
	for persona("c1") != "魔法使い" {
		if time.Now().After(deadline) {
			t.Fatal("settings not read again once the database was back")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// When the first read fails, the turn gets yorozu's defaults (logged) and
// the next turns a second later read again.
func TestChannelSettingsFirstReadFails(t *testing.T) {
	pool := dbtest.New(t)
	ctx := t.Context()
	p := "海賊"
	if _, err := db.UpdateChannelSetting(ctx, pool, db.ChannelSettingUpdate{GuildID: "g1", ChannelID: "c1", Persona: &p, By: "u1"}); err != nil {
		t.Fatal(err)
	}
	q := &countedQuerier{Querier: pool}
	q.down.Store(true)
	var logs bytes.Buffer // written by the turns, in this goroutine
	c := &Chooser{Channels: q, Logger: slog.New(slog.NewTextHandler(&logs, nil))}
	req := Request{Source: "discord", GuildID: "g1", ChannelID: "c1"}
	for range 3 {
		if got := c.applyChannel(ctx, req, "chat").Persona; got != "" {
			t.Errorf("persona with the settings unread = %q", got)
		}
	}
	if n := q.queries.Load(); n != 1 {
		t.Errorf("%d reads within a second of a failed one, want 1", n)
	}
	if !strings.Contains(logs.String(), "yorozu's defaults apply") {
		t.Errorf("log:\n%s", logs.String())
	}
	q.down.Store(false)
	time.Sleep(channelsRetry)
	if got := c.applyChannel(ctx, req, "chat").Persona; got != "海賊" {
		t.Errorf("persona once the database is back = %q", got)
	}
}
