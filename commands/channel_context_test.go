package commands

import (
	"context"
	"strings"
	"testing"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

// /channel context sets and shows whether the channel's talk is given, a
// thread inherits it, and the change is passed on at once.
func TestChannelContext(t *testing.T) {
	pool := dbtest.New(t)
	learnt := map[string]bool{}
	saved := func(_ context.Context, s db.ChannelSetting) {
		if s.Talk != nil {
			learnt[s.ChannelID] = *s.Talk
		}
	}
	c := &Channels{DB: pool, Parents: threads{"th1": "c1"}, DefaultModel: func() string { return "qwen3:4b" }, Saved: saved, Log: quiet}
	cmd := c.ChannelMode()
	if cmd.Required("context") != ManageChannels {
		t.Errorf("/channel context requires %v, want Manage Channels", cmd.Required("context"))
	}
	use := func(channel string, opts map[string]any) string {
		t.Helper()
		req := Request{Command: "channel", Subcommand: "context", UserID: "u1", GuildID: "g1", ChannelID: channel, Perms: ManageChannels, Options: opts}
		return cmd.Run(t.Context(), req).Text
	}
	steps := []struct {
		name string
		got  func() string
		want string
	}{
		{"on by default", func() string { return use("c1", nil) }, "会話の読み込み: on"},
		{"turned off", func() string { return use("c1", map[string]any{"value": "off"}) }, "このチャンネルの会話の読み込みを off"},
		{"a thread inherits it", func() string { return use("th1", nil) }, "会話の読み込み: off"},
		{"a bad value", func() string { return use("c1", map[string]any{"value": "maybe"}) }, "値は on か off です"},
		{"a DM", func() string {
			return cmd.Run(t.Context(), Request{Command: "channel", Subcommand: "context", UserID: "u1", ChannelID: "dm", Perms: All}).Text
		}, "DM ではこれまでの会話をいつも読んで答えます"},
	}
	for _, s := range steps {
		if got := s.got(); !strings.Contains(got, s.want) {
			t.Errorf("%s: %q, want it to contain %q", s.name, got, s.want)
		}
	}
	if on, ok := learnt["c1"]; !ok || on || len(learnt) != 1 {
		t.Errorf("passed on %v, want c1 off", learnt)
	}
}
