package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/db"
)

// TestChannelLogEndToEnd: /channel log is refused, naming the missing
// permission, to a member without Manage Channels; /channel log on posts
// its notice for the whole channel; from then on members' messages are kept; /forget me removes
// only the member's own; the retention job removes old rows; /channel log
// off stops keeping new ones.
func TestChannelLogEndToEnd(t *testing.T) {
	h := start(t, map[string]string{"CHANNEL_LOG_RETENTION": "30d"})
	ctx := context.Background()
	logCmd := func(m *discordgo.Member, value string) *discordgo.Interaction {
		return &discordgo.Interaction{Type: discordgo.InteractionApplicationCommand, Token: "tok", ChannelID: channelID, GuildID: guildID, Member: m,
			Data: discordgo.ApplicationCommandInteractionData{Name: "channel", Options: []*discordgo.ApplicationCommandInteractionDataOption{{
				Name: "log", Type: discordgo.ApplicationCommandOptionSubCommand,
				Options: []*discordgo.ApplicationCommandInteractionDataOption{{Name: "value", Type: discordgo.ApplicationCommandOptionString, Value: value}},
			}}}}
	}
	manager := member("400000000000000009", discordgo.PermissionManageChannels)
	alice, bob := "400000000000000001", "400000000000000002"

	// Without Manage Channels: the refusal names what is missing, and
	// nothing is kept.
	if got := h.command(t, logCmd(member(bob, 0), "on")); !strings.Contains(got, "「チャンネルの管理」権限が必要") || strings.Contains(got, "モード") {
		t.Errorf("/channel log on without Manage Channels = %q; want the missing permission named", got)
	}
	h.say(alice, "記録を始める前の発言")
	before := len(h.discord.InteractionResponses())
	h.discord.SendInteraction(logCmd(manager, "on"))
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := h.discord.WaitFor(wctx, func() bool { return len(h.discord.InteractionResponses()) > before }); err != nil {
		t.Fatal("/channel log on was not answered")
	}
	notice := h.discord.InteractionResponses()[before].Response.Data
	if notice == nil || notice.Flags&discordgo.MessageFlagsEphemeral != 0 {
		t.Fatalf("/channel log on answered %+v; want a notice the whole channel sees", notice)
	}
	for _, want := range []string{"記録を始めました", "30 日", "/forget confirm: True me: True", "チャンネルの管理"} {
		if !strings.Contains(notice.Content, want) {
			t.Errorf("notice %q does not say %q", notice.Content, want)
		}
	}

	h.say(alice, "土曜のBBQは駅前に集合")
	h.say(bob, "了解です")
	h.say(alice, "遅れたら連絡して")
	h.waitCount(t, "SELECT count(*) FROM channel_messages", 3)

	forgetMe := &discordgo.Interaction{ChannelID: channelID, GuildID: guildID, Member: member(alice, 0),
		Data: discordgo.ApplicationCommandInteractionData{Name: "forget", Options: []*discordgo.ApplicationCommandInteractionDataOption{
			boolOpt("confirm", true), boolOpt("me", true)}}}
	if got := h.command(t, forgetMe); !strings.Contains(got, "あなたの発言 2 件を記録から消しました") {
		t.Errorf("/forget me = %q", got)
	}
	var left []string
	rows, err := h.pool.Query(ctx, "SELECT author_id FROM channel_messages")
	if err == nil {
		for rows.Next() {
			var a string
			if err := rows.Scan(&a); err != nil {
				t.Fatal(err)
			}
			left = append(left, a)
		}
		err = rows.Err()
	}
	if err != nil || len(left) != 1 || left[0] != bob {
		t.Errorf("after alice's /forget me the log holds messages of %v (%v); want bob's only", left, err)
	}
	if got := h.command(t, &discordgo.Interaction{ChannelID: channelID, GuildID: guildID, Member: member(bob, 0),
		Data: discordgo.ApplicationCommandInteractionData{Name: "forget", Options: []*discordgo.ApplicationCommandInteractionDataOption{boolOpt("confirm", true)}}}); got != notAllowedReply {
		t.Errorf("/forget of the channel's memory without Manage Messages = %q", got)
	}

	old := time.Now().Add(-40 * 24 * time.Hour)
	if _, err := db.InsertChannelMessages(ctx, h.pool, []db.ChannelMessage{{MessageID: db.SnowflakeAt(old), Space: "guild:" + guildID,
		GuildID: guildID, ChannelID: channelID, AuthorID: bob, CreatedAt: old, Content: "40 日前の発言"}}); err != nil {
		t.Fatal(err)
	}
	h.runJobNow(t, "channel_log_retention", map[string]string{"CHANNEL_LOG_RETENTION": "30d"})
	h.waitCount(t, "SELECT count(*) FROM channel_messages WHERE content = '40 日前の発言'", 0)
	h.waitCount(t, "SELECT count(*) FROM channel_messages", 1)

	if got := h.command(t, logCmd(manager, "off")); !strings.Contains(got, "記録を止めました") {
		t.Errorf("/channel log off = %q", got)
	}
	h.say(bob, "止めたあとの発言")
	h.waitCount(t, "SELECT count(*) FROM channel_messages", 1)
}
