package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/commands"
	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/memory"
)

// command sends a slash command and returns its ephemeral answer.
func (h *harness) command(t *testing.T, i *discordgo.Interaction) string {
	t.Helper()
	before := len(h.discord.InteractionResponses())
	i.Type, i.Token = discordgo.InteractionApplicationCommand, "tok"
	h.discord.SendInteraction(i)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.discord.WaitFor(ctx, func() bool { return len(h.discord.InteractionResponses()) > before }); err != nil {
		t.Fatalf("/%s was not answered", i.ApplicationCommandData().Name)
	}
	r := h.discord.InteractionResponses()[before].Response
	if r.Data == nil || r.Data.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Fatalf("/%s answer is not ephemeral: %+v", i.ApplicationCommandData().Name, r.Data)
	}
	return r.Data.Content
}

// The refusals of /forget, and of /persona and /model, to someone without
// the permission they need.
var (
	notAllowedReply = commands.Forget(nil, nil, nil).Refusal
	notManagerReply = (&commands.Channels{}).Persona().Refusal
)

func member(user string, perms int64) *discordgo.Member {
	return &discordgo.Member{User: &discordgo.User{ID: user}, Permissions: perms}
}

func boolOpt(name string, v bool) *discordgo.ApplicationCommandInteractionDataOption {
	return &discordgo.ApplicationCommandInteractionDataOption{Name: name, Type: discordgo.ApplicationCommandOptionBoolean, Value: v}
}

func TestMemoryCommands(t *testing.T) {
	h := start(t, nil)
	h.script()
	h.mention("400000000000000001", "猫の話")
	h.waitReply(t, 1, func(string) bool { return true })
	h.waitCount(t, "SELECT count(*) FROM messages WHERE archived_at IS NULL", 2)
	ctx := context.Background()
	s, err := db.SessionByKey(ctx, h.pool, string(memory.DiscordChannel(channelID)))
	if err != nil || s.Space != "guild:"+guildID {
		t.Fatalf("session = %+v, %v; want it in its server's space", s, err)
	}
	at := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	if _, err := db.InsertMemory(ctx, h.pool, db.MemoryParams{SessionID: s.ID, Content: "たろうは猫が好き", MessageCount: 10,
		PeriodStart: at, PeriodEnd: at.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	in := func(name string, m *discordgo.Member, opts ...*discordgo.ApplicationCommandInteractionDataOption) *discordgo.Interaction {
		return &discordgo.Interaction{ChannelID: channelID, GuildID: guildID, Member: m,
			Data: discordgo.ApplicationCommandInteractionData{Name: name, Options: opts}}
	}
	mod, plain := member("400000000000000001", discordgo.PermissionManageMessages), member("400000000000000002", 0)

	if got := h.command(t, in("memory", plain)); !strings.Contains(got, "2026-11-30 15:00〜11-30 16:00（10 件）: たろうは猫が好き") {
		t.Errorf("/memory = %q", got)
	}
	if got := h.command(t, in("forget", plain, boolOpt("confirm", true), boolOpt("summaries", true))); got != notAllowedReply {
		t.Errorf("/forget without Manage Messages = %q", got)
	}
	if got := h.command(t, in("forget", mod, boolOpt("confirm", false))); !strings.Contains(got, "取り消しました") {
		t.Errorf("/forget confirm:false = %q", got)
	}
	h.waitCount(t, "SELECT count(*) FROM messages WHERE archived_at IS NULL", 2)
	if got := h.command(t, in("forget", mod, boolOpt("confirm", true), boolOpt("summaries", true))); !strings.Contains(got, "2 件と長期記憶（要約）1 件") {
		t.Errorf("/forget with summaries = %q", got)
	}
	if got := h.command(t, in("memory", plain)); !strings.Contains(got, "まだありません") {
		t.Errorf("/memory after forgetting summaries = %q", got)
	}
	// In a DM its user may forget: nobody else is there.
	dm := &discordgo.Interaction{ChannelID: "200000000000000008", User: &discordgo.User{ID: "400000000000000002"},
		Data: discordgo.ApplicationCommandInteractionData{Name: "forget", Options: []*discordgo.ApplicationCommandInteractionDataOption{boolOpt("confirm", true)}}}
	if got := h.command(t, dm); !strings.Contains(got, "もう空です") {
		t.Errorf("/forget in a DM = %q", got)
	}
	var perms int64
	for _, c := range h.discord.Commands() {
		if c.Name == "forget" && c.DefaultMemberPermissions != nil {
			perms = *c.DefaultMemberPermissions
		}
	}
	// Everyone sees /forget, for /forget me (their own logged messages);
	// the channel's memory still needs Manage Messages, as above.
	if perms != 0 {
		t.Errorf("/forget declares default_member_permissions %d; want none", perms)
	}
}

func TestRemindCommandOwnOrModerated(t *testing.T) {
	h := start(t, nil)
	ctx := context.Background()
	due := time.Now().Add(time.Hour)
	mk := func(user, content string) db.Reminder {
		r, err := db.CreateReminder(ctx, h.pool, db.ReminderParams{GuildID: guildID, ChannelID: channelID, UserID: user, Content: content, DueAt: due})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	mine, theirs := mk("400000000000000001", "燃えるゴミ"), mk("400000000000000002", "ほかの人の")
	sub := func(name string, id int64) *discordgo.ApplicationCommandInteractionDataOption {
		o := &discordgo.ApplicationCommandInteractionDataOption{Name: name, Type: discordgo.ApplicationCommandOptionSubCommand}
		if id != 0 {
			o.Options = []*discordgo.ApplicationCommandInteractionDataOption{{Name: "id", Type: discordgo.ApplicationCommandOptionInteger, Value: float64(id)}}
		}
		return o
	}
	remind := func(m *discordgo.Member, o *discordgo.ApplicationCommandInteractionDataOption) string {
		return h.command(t, &discordgo.Interaction{ChannelID: channelID, GuildID: guildID, Member: m,
			Data: discordgo.ApplicationCommandInteractionData{Name: "remind", Options: []*discordgo.ApplicationCommandInteractionDataOption{o}}})
	}
	me, mod := member("400000000000000001", 0), member("400000000000000003", discordgo.PermissionManageMessages)
	tests := []struct {
		name string
		who  *discordgo.Member
		sub  *discordgo.ApplicationCommandInteractionDataOption
		want string
	}{
		{"list shows only one's own", me, sub("list", 0), fmt.Sprintf("あなたのリマインダー：\n#%d <t:%d:F>（<t:%d:R>）燃えるゴミ", mine.ID, due.Unix(), due.Unix())},
		{"someone else's is not found", me, sub("cancel", theirs.ID), fmt.Sprintf("#%d のリマインダーは見つかりません。", theirs.ID)},
		{"own", me, sub("cancel", mine.ID), fmt.Sprintf("#%d（<t:%d:F>）燃えるゴミ を取り消しました。", mine.ID, due.Unix())},
		{"twice", me, sub("cancel", mine.ID), fmt.Sprintf("#%d はすでに取り消されているか", mine.ID)},
		{"Manage Messages cancels anyone's in the server", mod, sub("cancel", theirs.ID), fmt.Sprintf("<@400000000000000002> さんの #%d", theirs.ID)},
		{"list empty", me, sub("list", 0), "このチャンネルであなたのリマインダーはありません。"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := remind(tc.who, tc.sub); !strings.HasPrefix(got, tc.want) {
				t.Errorf("= %q, want %q…", got, tc.want)
			}
		})
	}
}
