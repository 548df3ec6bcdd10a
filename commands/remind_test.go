package commands

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
)

// fakeReminders keeps reminders in a map, with db's errors.
type fakeReminders struct {
	byID map[int64]db.Reminder
}

var _ Reminders = (*fakeReminders)(nil)

func (f *fakeReminders) List(_ context.Context, user, channel string) ([]db.Reminder, error) {
	var out []db.Reminder
	for id := int64(1); id <= int64(len(f.byID)); id++ {
		if r := f.byID[id]; r.UserID == user && r.ChannelID == channel && r.NotifiedAt == nil && r.CancelledAt == nil {
			out = append(out, r)
		}
	}
	return out, nil
}

func (f *fakeReminders) cancel(id int64, ok func(db.Reminder) bool) (db.Reminder, error) {
	r, found := f.byID[id]
	switch {
	case !found || !ok(r):
		return db.Reminder{}, fmt.Errorf("cancel reminder %d: %w", id, db.ErrNotFound)
	case r.NotifiedAt != nil || r.CancelledAt != nil:
		return r, fmt.Errorf("cancel reminder %d: %w", id, db.ErrReminderNotPending)
	}
	now := time.Now()
	r.CancelledAt = &now
	f.byID[id] = r
	return r, nil
}

func (f *fakeReminders) Cancel(_ context.Context, user string, id int64) (db.Reminder, error) {
	return f.cancel(id, func(r db.Reminder) bool { return r.UserID == user })
}

func (f *fakeReminders) CancelInGuild(_ context.Context, guild string, id int64) (db.Reminder, error) {
	return f.cancel(id, func(r db.Reminder) bool { return r.GuildID == guild })
}

func TestRemind(t *testing.T) {
	due := time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)
	delivered := due
	f := &fakeReminders{byID: map[int64]db.Reminder{
		1: {ID: 1, GuildID: "g1", ChannelID: "c1", UserID: "alice", Content: "燃えるゴミ", DueAt: due},
		2: {ID: 2, GuildID: "g1", ChannelID: "c1", UserID: "bob", Content: "会議", DueAt: due},
		3: {ID: 3, GuildID: "g1", ChannelID: "c1", UserID: "alice", Content: "済み", DueAt: due, NotifiedAt: &delivered},
		4: {ID: 4, GuildID: "g1", ChannelID: "c1", UserID: "bob", Content: "薬", DueAt: due},
	}}
	cmd := Remind(f, quiet)
	use := func(user string, perms Permission, sub string, id int64) string {
		return cmd.Run(t.Context(), Request{Command: "remind", Subcommand: sub, UserID: user, GuildID: "g1", ChannelID: "c1",
			Perms: perms, Options: map[string]any{"id": id}}).Text
	}
	ts := due.Unix()
	steps := []struct {
		name string
		got  func() string
		want string
	}{
		{"list shows only mine, pending", func() string { return use("alice", 0, "list", 0) },
			fmt.Sprintf("予定中のリマインダー:\n#1 <t:%d:F>（<t:%d:R>）燃えるゴミ", ts, ts)},
		{"someone else's without Manage Messages", func() string { return use("alice", 0, "cancel", 2) }, "#2 のリマインダーは見つかりません"},
		{"mine", func() string { return use("alice", 0, "cancel", 1) }, "#1（<t:"},
		{"mine again", func() string { return use("alice", 0, "cancel", 1) }, "#1 はすでに取り消されているか"},
		{"delivered", func() string { return use("alice", 0, "cancel", 3) }, "#3 はもうお届け済みです"},
		{"someone else's as a moderator", func() string { return use("carol", ManageMessages, "cancel", 4) }, "<@bob> さんの #4"},
		{"list when none", func() string { return use("alice", 0, "list", 0) }, "予定中のリマインダーはありません"},
		{"no user", func() string { return use("", 0, "list", 0) }, unsupportedReply},
		{"no subcommand", func() string { return use("alice", 0, "", 0) }, unsupportedReply},
	}
	for _, s := range steps {
		if got := s.got(); !strings.Contains(got, s.want) {
			t.Errorf("%s: %q, want it to contain %q", s.name, got, s.want)
		}
	}
}
