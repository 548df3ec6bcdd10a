package commands

import (
	"strings"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/memory/chanlog"
)

// /channel log turns the log on (a notice for the whole channel) and off,
// shows it, and a thread inherits its channel's; /forget me removes only
// the member's own logged messages, and only in this server.
func TestChannelLogCommands(t *testing.T) {
	pool := dbtest.New(t)
	l := chanlog.New(pool, chanlog.Options{})
	if err := l.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Stop)
	c := &Channels{DB: pool, Parents: threads{"th1": "c1"}, Log: quiet, Logs: l, LogRetention: 90 * 24 * time.Hour}
	cmd := c.ChannelMode()
	if cmd.Required("log") != ManageChannels {
		t.Errorf("/channel log requires %v, want Manage Channels", cmd.Required("log"))
	}
	use := func(guild, channel string, opts map[string]any) Reply {
		return cmd.Run(t.Context(), Request{Command: "channel", Subcommand: "log", UserID: "u1", GuildID: guild, ChannelID: channel, Perms: ManageChannels, Options: opts})
	}
	for _, s := range []struct {
		name          string
		guild, ch     string
		opts          map[string]any
		want          string
		public, onNow bool
	}{
		{"off at first", "g1", "c1", nil, "このチャンネルの発言は記録されていません", false, false},
		{"turned on", "g1", "c1", map[string]any{"value": "on"}, "保存期間: 90 日", true, true},
		{"a thread inherits it", "g1", "th1", nil, "このスレッドの発言は記録されています", false, true},
		{"a bad value", "g1", "c1", map[string]any{"value": "yes"}, "on か off", false, true},
		{"a DM", "", "dm", map[string]any{"value": "on"}, "DM の会話は記録しません", false, true},
		{"turned off", "g1", "c1", map[string]any{"value": "off"}, "記録を止めました", false, false},
	} {
		t.Run(s.name, func(t *testing.T) {
			r := use(s.guild, s.ch, s.opts)
			if !strings.Contains(r.Text, s.want) || r.Public != s.public {
				t.Errorf("reply %+v; want public=%v containing %q", r, s.public, s.want)
			}
			if got := l.Logged("g1", "c1", ""); got != s.onNow {
				t.Errorf("logged = %v, want %v", got, s.onNow)
			}
		})
	}

	mine := db.ChannelMessage{MessageID: 1, Space: "guild:g1", GuildID: "g1", ChannelID: "c1", AuthorID: "u1", CreatedAt: time.Now(), Content: "わたしの"}
	theirs, elsewhere := mine, mine
	theirs.MessageID, theirs.AuthorID = 2, "u2"
	elsewhere.MessageID, elsewhere.Space, elsewhere.GuildID = 3, "guild:g2", "g2"
	if _, err := db.InsertChannelMessages(t.Context(), pool, []db.ChannelMessage{mine, theirs, elsewhere}); err != nil {
		t.Fatal(err)
	}
	forget := Forget(&fakeMemory{}, l, quiet)
	if forget.Required("") != 0 || forget.Visible != 0 {
		t.Errorf("/forget with the channel log needs %v, seen by %v; want anyone (for /forget me)", forget.Required(""), forget.Visible)
	}
	me := func(confirm bool) string {
		return forget.Run(t.Context(), Request{Command: "forget", UserID: "u1", GuildID: "g1", ChannelID: "c1",
			Options: map[string]any{"confirm": confirm, "me": true}}).Text
	}
	if got := me(false); !strings.Contains(got, "取り消しました") {
		t.Errorf("/forget me unconfirmed = %q", got)
	}
	if got := me(true); !strings.Contains(got, "あなたの発言 1 件を記録から消しました") {
		t.Errorf("/forget me = %q", got)
	}
	if got := me(true); !strings.Contains(got, "記録されたあなたの発言はありません") {
		t.Errorf("/forget me again = %q", got)
	}
	var left []int64
	rows, _ := pool.Query(t.Context(), "SELECT message_id FROM channel_messages ORDER BY 1")
	for rows.Next() {
		var id int64
		_ = rows.Scan(&id)
		left = append(left, id)
	}
	if len(left) != 2 || left[0] != 2 || left[1] != 3 {
		t.Errorf("left %v, want the other member's and the other server's", left)
	}
	if got := forget.Run(t.Context(), Request{Command: "forget", UserID: "u1", GuildID: "g1", ChannelID: "c1",
		Options: map[string]any{"confirm": true}}).Text; got != forgetRefusal {
		t.Errorf("/forget of the channel without Manage Messages = %q", got)
	}
}
