package commands_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/commands"
	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/scheduler"
)

// The read-back of 「これをリマインド」 and its buttons, on the real reminder
// service: a forged button, a time that went by before 登録, a form with
// too much to keep, and a place yorozu cannot deliver to each keep
// nothing and say why.
func TestRemindThisReadBackRefusals(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	if err := scheduler.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	tokyo := tz(t, "Asia/Tokyo")
	var mu sync.Mutex
	now := time.Date(2026, 12, 2, 8, 0, 0, 0, tokyo)
	s, err := scheduler.New(pool, scheduler.Options{Location: tokyo, Logger: quietLog,
		Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return now }})
	if err != nil {
		t.Fatal(err)
	}
	r := s.Reminders()
	signer := commands.ButtonSigner{Key: []byte("test key")}
	cmd := commands.RemindThis(r, pool, signer, quietLog)
	buttons := commands.RemindThisButtons(r, pool, signer, quietLog)
	submit := func(when, what string, absent bool) commands.Reply {
		return cmd.Submit(ctx, commands.Request{Command: cmd.Name, UserID: "u1", GuildID: "g1", ChannelID: "c1",
			TargetID: "1234567890123456789", BotAbsent: absent, Options: map[string]any{"when": when, "what": what}})
	}
	press := func(id, userID string) commands.PressReply {
		return buttons.Press(ctx, commands.Press{CustomID: id, UserID: userID, ChannelID: "c1", GuildID: "g1"})
	}
	kept := func() int {
		var n int
		if err := pool.QueryRow(ctx, "SELECT count(*) FROM reminders").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	if got := submit("明日の9時", strings.Repeat("長", 1500), false); !strings.Contains(got.Text, "長すぎます") || len(got.Buttons) != 0 {
		t.Errorf("too long a text = %q with %d buttons", got.Text, len(got.Buttons))
	}
	if got := submit("明日の9時", "会費", true); !strings.Contains(got.Text, "DM を開けなかった") || len(got.Buttons) != 0 {
		t.Errorf("where yorozu is not, with no DM to deliver to = %q", got.Text)
	}

	readBack := submit("10分後", "会費", false)
	if len(readBack.Buttons) != 2 {
		t.Fatalf("the read-back %q has %d buttons, want 登録 and やめる", readBack.Text, len(readBack.Buttons))
	}
	keep, drop := readBack.Buttons[0].CustomID, readBack.Buttons[1].CustomID
	if got := press(keep[:len(keep)-1]+"x", "u1"); got.Text != "このボタンは使えません。" || got.Update != "" {
		t.Errorf("a forged 登録 = %+v", got)
	}
	mu.Lock()
	now = now.Add(15 * time.Minute)
	mu.Unlock()
	if got := press(keep, "u1"); !strings.Contains(got.Text, "もう過ぎました") || got.Update != "" {
		t.Errorf("登録 after the time went by = %+v", got)
	}
	if n := kept(); n != 0 {
		t.Fatalf("%d reminders kept by refused presses", n)
	}
	// The read-back stays open: やめる still answers it.
	if got := press(drop, "u1"); !strings.Contains(got.Update, "やめました") {
		t.Errorf("やめる after a refused 登録 = %+v", got)
	}
	if got := press(keep, "u1"); !strings.Contains(got.Text, "もう登録したか、やめたもの") {
		t.Errorf("登録 after やめる = %+v", got)
	}
	if n := kept(); n != 0 {
		t.Errorf("%d reminders kept", n)
	}
}
