package commands_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/commands"
	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/scheduler"
)

var quietLog = slog.New(slog.NewTextHandler(io.Discard, nil))

var _ commands.Reminders = (*scheduler.Reminders)(nil)

func tz(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// newReminders is the real reminder service on a fresh database, its clock
// at now; nothing is delivered (no Discord).
func newReminders(t testing.TB, now time.Time, opts scheduler.Options) *scheduler.Reminders {
	t.Helper()
	pool := dbtest.New(t)
	if err := scheduler.Migrate(context.Background(), pool); err != nil {
		t.Fatal(err)
	}
	opts.Location = tz(t, "Asia/Tokyo")
	opts.Now = func() time.Time { return now }
	opts.Logger = quietLog
	s, err := scheduler.New(pool, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s.Reminders()
}

// user runs cmd as one user in channel c1 of server g1.
type user struct {
	t     *testing.T
	cmd   commands.Command
	id    string
	perms commands.Permission
}

func (u user) run(sub string, opts map[string]any) string {
	u.t.Helper()
	req := commands.Request{Command: u.cmd.Name, Subcommand: sub, UserID: u.id, GuildID: "g1", ChannelID: "c1", Perms: u.perms, Options: opts}
	if !req.Can(u.cmd.Required(sub)) {
		return u.cmd.Refusal
	}
	return u.cmd.Run(u.t.Context(), req).Text
}

var stamp = regexp.MustCompile(`<t:(\d+):F>`)

// stamps are the times of the <t:…:F> timestamps in text.
func stamps(text string, loc *time.Location) []string {
	var out []string
	for _, m := range stamp.FindAllStringSubmatch(text, -1) {
		var sec int64
		fmt.Sscan(m[1], &sec)
		out = append(out, time.Unix(sec, 0).In(loc).Format("01-02 15:04 Mon"))
	}
	return out
}

func TestRemindAdd(t *testing.T) {
	tokyo := tz(t, "Asia/Tokyo")
	now := time.Date(2026, 12, 2, 15, 0, 0, 0, tokyo) // a Wednesday
	r := newReminders(t, now, scheduler.Options{MaxPending: 6})
	alice := user{t: t, cmd: commands.Remind(r, quietLog), id: "alice"}
	add := func(when, what string) string {
		return alice.run("add", map[string]any{"when": when, "what": what})
	}

	got := add("毎週月・木の7時", "燃えるゴミ")
	if !strings.Contains(got, "リマインダー #1 を登録しました: 燃えるゴミ") || !strings.Contains(got, "毎週 月・木 7:00") {
		t.Errorf("weekly: %q", got)
	}
	if want := []string{"12-03 07:00 Thu", "12-07 07:00 Mon", "12-10 07:00 Thu"}; fmt.Sprint(stamps(got, tokyo)) != fmt.Sprint(want) {
		t.Errorf("weekly next three %v, want %v", stamps(got, tokyo), want)
	}

	got = add("毎月1日 祝日は除く", "家賃")
	if s := stamps(got, tokyo); len(s) != 3 || s[0] != "02-01 09:00 Mon" || !strings.Contains(got, "祝日は除く") {
		t.Errorf("monthly skipping 元日: %q (%v)", got, s)
	}

	got = add("毎月1日", "記帳")
	if !strings.Contains(got, fmt.Sprintf("<t:%d:F>（元日）", time.Date(2027, 1, 1, 9, 0, 0, 0, tokyo).Unix())) {
		t.Errorf("a holiday among the next three is not named: %q", got)
	}

	got = add("明日の朝", "歯医者")
	if s := stamps(got, tokyo); len(s) != 1 || s[0] != "12-03 07:00 Thu" || !strings.Contains(got, "時刻の指定がないので 07:00") {
		t.Errorf("one-shot morning: %q (%v)", got, s)
	}

	for _, tc := range []struct{ when, want string }{
		{"そのうち", "読み取れませんでした"},
		{"5分ごと", "15分"},
		{"毎年2月30日", "2月30日"},
		{"毎日7時と19時", "読み取れませんでした"},
		// A day gone by is said to be gone, not moved to tomorrow.
		{"昨日の9時", "もう過ぎています"},
		{"2026年3月3日 10時", "もう過ぎています"},
		{"2月30日", "読み取れませんでした"},
	} {
		if got := add(tc.when, "x"); !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want it to say %q", tc.when, got, tc.want)
		}
	}
	if got := add("毎日3時", "夜勤の確認"); !strings.Contains(got, "を登録しました") {
		t.Errorf("3:00 is allowed for reminders: %q", got)
	}

	list := alice.run("list", nil)
	if !strings.Contains(list, "#1 ") || !strings.Contains(list, "🔁 毎週 月・木 7:00") || !strings.Contains(list, "#4 ") || !strings.Contains(list, "歯医者") {
		t.Errorf("list: %q", list)
	}

	// Six are allowed: the seventh is refused with the limit.
	add("明日の10時", "6件目")
	if got := add("明日の11時", "7件目"); !strings.Contains(got, "1人6件まで") {
		t.Errorf("over the limit: %q", got)
	}
}

func TestRemindInTheUsersZone(t *testing.T) {
	tokyo := tz(t, "Asia/Tokyo")
	now := time.Date(2026, 12, 2, 15, 0, 0, 0, tokyo)
	r := newReminders(t, now, scheduler.Options{})
	if err := r.SetTimeZone(t.Context(), "bob", "America/New_York"); err != nil {
		t.Fatal(err)
	}
	bob := user{t: t, cmd: commands.Remind(r, quietLog), id: "bob"}
	ny := tz(t, "America/New_York")
	got := bob.run("add", map[string]any{"when": "明日の9時", "what": "standup"})
	// 15:00 in Tokyo is 01:00 in New York: tomorrow there is the 3rd.
	if s := stamps(got, ny); len(s) != 1 || s[0] != "12-03 09:00 Thu" {
		t.Errorf("one-shot in New York: %q (%v)", got, s)
	}
	got = bob.run("add", map[string]any{"when": "every weekday at 8", "what": "gym"})
	if s := stamps(got, ny); len(s) != 3 || s[0] != "12-02 08:00 Wed" || !strings.Contains(got, "America/New_York") {
		t.Errorf("repeating in New York: %q (%v)", got, s)
	}
}

func TestRemindPauseResumeSkip(t *testing.T) {
	tokyo := tz(t, "Asia/Tokyo")
	now := time.Date(2026, 12, 2, 15, 0, 0, 0, tokyo)
	r := newReminders(t, now, scheduler.Options{})
	cmd := commands.Remind(r, quietLog)
	alice := user{t: t, cmd: cmd, id: "alice"}
	bob := user{t: t, cmd: cmd, id: "bob"}
	mod := user{t: t, cmd: cmd, id: "mod", perms: commands.ManageMessages}
	alice.run("add", map[string]any{"when": "毎日7時", "what": "薬"})
	alice.run("add", map[string]any{"when": "明日の9時", "what": "単発"})
	id := map[string]any{"id": int64(1)}

	steps := []struct {
		name string
		u    user
		sub  string
		opts map[string]any
		want string
	}{
		{"another user's pause", bob, "pause", id, "#1 のリマインダーは見つかりません"},
		{"pause", alice, "pause", id, "#1 薬 を一時停止しました"},
		{"pause again", alice, "pause", id, "もう一時停止中"},
		{"listed as paused", alice, "list", nil, "⏸ 一時停止中"},
		{"resume as a moderator", mod, "resume", id, "#1 薬 を再開しました。次回は <t:"},
		{"resume again", alice, "resume", id, "一時停止していません"},
		{"skip", alice, "skip", id, "次の回をスキップしました。次回は <t:"},
		{"skip a one-shot", alice, "skip", map[string]any{"id": int64(2)}, "1回だけのリマインダーなので"},
		{"cancel", alice, "cancel", id, "#1（<t:"},
		{"pause a cancelled one", alice, "pause", id, "すでに取り消されているか"},
	}
	for _, s := range steps {
		if got := s.u.run(s.sub, s.opts); !strings.Contains(got, s.want) {
			t.Errorf("%s: %q, want it to contain %q", s.name, got, s.want)
		}
	}
	rem, err := r.Get(t.Context(), db.Owner{UserID: "alice"}, 1)
	if err != nil || rem.Occurrences != 1 {
		t.Errorf("after one skip: %+v, %v", rem, err)
	}
}

func TestSchedule(t *testing.T) {
	tokyo := tz(t, "Asia/Tokyo")
	now := time.Date(2026, 12, 2, 15, 0, 0, 0, tokyo)
	r := newReminders(t, now, scheduler.Options{MaxPostsPerSpace: 1})
	cmd := commands.Schedule(r, quietLog)
	if cmd.Required("add") != commands.ManageChannels || cmd.Required("list") != 0 {
		t.Fatalf("add needs %v, list %v", cmd.Required("add"), cmd.Required("list"))
	}
	member := user{t: t, cmd: cmd, id: "member"}
	admin := user{t: t, cmd: cmd, id: "admin", perms: commands.ManageChannels}

	if got := member.run("add", map[string]any{"when": "毎週金曜17時", "prompt": "今週の話題をまとめて"}); got != cmd.Refusal {
		t.Errorf("without Manage Channels: %q", got)
	}
	got := admin.run("add", map[string]any{"when": "毎週金曜17時", "prompt": "今週の話題をまとめて"})
	if !strings.Contains(got, "定期投稿 #1 を登録しました: 今週の話題をまとめて") || !strings.Contains(got, "毎週 金 17:00") {
		t.Errorf("add: %q", got)
	}
	if s := stamps(got, tokyo); len(s) != 3 || s[0] != "12-04 17:00 Fri" {
		t.Errorf("next three %v", s)
	}
	if got := admin.run("add", map[string]any{"when": "毎朝8時", "prompt": "天気"}); !strings.Contains(got, "定期投稿は1件まで") {
		t.Errorf("over SCHEDULE_MAX_PER_SPACE: %q", got)
	}
	if got := member.run("list", nil); !strings.Contains(got, "定期投稿（1/1件）") || !strings.Contains(got, "今週の話題をまとめて") {
		t.Errorf("list: %q", got)
	}
	// A reminder is not a post: /schedule does not touch it.
	commands.Remind(r, quietLog).Run(t.Context(), commands.Request{Subcommand: "add", UserID: "member", GuildID: "g1", ChannelID: "c1",
		Options: map[string]any{"when": "明日の9時", "what": "私用"}})
	if got := admin.run("cancel", map[string]any{"id": int64(2)}); !strings.Contains(got, "#2 の定期投稿は見つかりません") {
		t.Errorf("cancel a reminder through /schedule: %q", got)
	}
	for _, s := range []struct{ sub, want string }{
		{"pause", "を一時停止しました"}, {"resume", "を再開しました"}, {"cancel", "を取り消しました"},
	} {
		if got := admin.run(s.sub, map[string]any{"id": int64(1)}); !strings.Contains(got, s.want) {
			t.Errorf("%s: %q", s.sub, got)
		}
	}
	dm := cmd.Run(t.Context(), commands.Request{Subcommand: "list", UserID: "member", ChannelID: "d1", Perms: commands.All})
	if !strings.Contains(dm.Text, "DM では") {
		t.Errorf("in a DM: %q", dm.Text)
	}
}

func TestReminderButtons(t *testing.T) {
	tokyo := tz(t, "Asia/Tokyo")
	now := time.Date(2026, 12, 2, 15, 0, 0, 0, tokyo)
	r := newReminders(t, now, scheduler.Options{ButtonKey: []byte("key")})
	remind := user{t: t, cmd: commands.Remind(r, quietLog), id: "alice"}
	remind.run("add", map[string]any{"when": "毎日7時", "what": "薬"})
	b := commands.ReminderButtons(r, scheduler.ButtonPrefix, quietLog)
	press := func(userID string, perms commands.Permission, action string) commands.PressReply {
		return b.Press(t.Context(), commands.Press{CustomID: r.ButtonID(action, 1), UserID: userID, GuildID: "g1", ChannelID: "c1",
			MessageID: "m1", Content: "<@alice> ⏰ リマインド: 薬", Perms: perms})
	}

	if got := press("bob", 0, scheduler.ActionSnooze10); !strings.Contains(got.Text, "設定した人") || got.Update != "" {
		t.Errorf("someone else's press: %+v", got)
	}
	got := press("alice", 0, scheduler.ActionSnooze10)
	if !strings.Contains(got.Text, fmt.Sprintf("<t:%d:R>", now.Add(10*time.Minute).Unix())) {
		t.Errorf("snooze: %+v", got)
	}
	if snooze, err := r.Get(t.Context(), db.Owner{UserID: "alice"}, 2); err != nil || !snooze.DueAt.Equal(now.Add(10*time.Minute)) || snooze.Repeats() {
		t.Errorf("the snooze copy: %+v, %v", snooze, err)
	}
	if got := press("mod", commands.ManageMessages, scheduler.ActionDone); got.Update != "<@alice> ⏰ リマインド: 薬\n✅ 完了（<@mod>）" {
		t.Errorf("done by a moderator: %+v", got)
	}
	if got := press("alice", 0, scheduler.ActionSkip); !strings.Contains(got.Text, "次の回をスキップしました") {
		t.Errorf("skip: %+v", got)
	}
	if got := press("alice", 0, scheduler.ActionStop); !strings.Contains(got.Update, "⏸ 一時停止しました") || !strings.Contains(got.Text, "/remind resume id:1") {
		t.Errorf("stop: %+v", got)
	}
	forged := b.Press(t.Context(), commands.Press{CustomID: scheduler.ButtonPrefix + "done:1:AAAAAAAAAAAAAAAA", UserID: "alice"})
	if forged.Text != "このボタンは使えません。" || forged.Update != "" {
		t.Errorf("forged id: %+v", forged)
	}
}
