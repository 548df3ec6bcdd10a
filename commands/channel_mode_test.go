package commands

import (
	"context"
	"strings"
	"testing"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

// /channel mode sets, shows and refuses against a real database; a thread
// inherits its channel's mode, and the bot learns a change at once.
func TestChannelMode(t *testing.T) {
	pool := dbtest.New(t)
	learnt := map[string]string{} // the modes Saved was told
	saved := func(_ context.Context, s db.ChannelSetting) {
		if s.Mode != nil {
			learnt[s.ChannelID] = *s.Mode
		}
	}
	c := &Channels{DB: pool, Parents: threads{"th1": "c1"}, DefaultModel: func() string { return "qwen3:4b" }, Saved: saved, Log: quiet}
	cmd := c.ChannelMode()
	if cmd.Required("mode") != ManageChannels {
		t.Errorf("/channel mode requires %v, want Manage Channels", cmd.Required("mode"))
	}
	use := func(channel string, opts map[string]any) string {
		t.Helper()
		req := Request{Command: "channel", Subcommand: "mode", UserID: "u1", GuildID: "g1", ChannelID: channel, Perms: ManageChannels, Options: opts}
		return cmd.Run(t.Context(), req).Text
	}
	steps := []struct {
		name string
		got  func() string
		want string
	}{
		{"nothing set", func() string { return use("c1", nil) }, "いまのモード: mention"},
		{"set thread", func() string { return use("c1", map[string]any{"value": "thread"}) }, "このチャンネルのモードを thread"},
		{"a thread inherits it", func() string { return use("th1", nil) }, "いまのモード: thread"},
		{"a bad value", func() string { return use("c1", map[string]any{"value": "loud"}) }, "mention・free・thread のどれか"},
		{"a DM", func() string {
			return cmd.Run(t.Context(), Request{Command: "channel", Subcommand: "mode", UserID: "u1", ChannelID: "dm", Perms: All}).Text
		}, "DM ではいつもメンションなしで答えます"},
	}
	for _, s := range steps {
		if got := s.got(); !strings.Contains(got, s.want) {
			t.Errorf("%s: %q, want it to contain %q", s.name, got, s.want)
		}
	}
	if learnt["c1"] != db.ModeThread || len(learnt) != 1 {
		t.Errorf("the bot learnt %v, want c1 thread", learnt)
	}
	if e, _ := db.ChannelSettingsInForce(t.Context(), pool, "g1", "c1", ""); e.Mode != db.ModeThread {
		t.Errorf("stored mode = %+v", e)
	}
}
