package bot

import (
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
)

// A message's author may manage its channel by a role of the server, unless
// the channel's overwrites take it away; the bot reads it from the state.
func TestManageChannelsFromState(t *testing.T) {
	t.Parallel()
	h := start(t, nil)
	const (
		mods   = "910"
		locked = "501"
	)
	h.srv.Dispatch("GUILD_CREATE", &discordgo.Guild{
		ID: guildID, Name: "g",
		Roles: []*discordgo.Role{
			{ID: guildID, Name: "@everyone", Permissions: discordgo.PermissionViewChannel | discordgo.PermissionSendMessages},
			{ID: mods, Name: "mods", Permissions: discordgo.PermissionManageChannels},
		},
		Channels: []*discordgo.Channel{
			{ID: chanID, GuildID: guildID, Type: discordgo.ChannelTypeGuildText},
			{ID: locked, GuildID: guildID, Type: discordgo.ChannelTypeGuildText, PermissionOverwrites: []*discordgo.PermissionOverwrite{
				{ID: mods, Type: discordgo.PermissionOverwriteTypeRole, Deny: discordgo.PermissionManageChannels},
			}},
		},
	})
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := h.bot.session.State.Guild(guildID); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("GUILD_CREATE not in the state")
		}
		time.Sleep(10 * time.Millisecond)
	}

	tests := []struct {
		name, channel string
		roles         []string
		want          bool
	}{
		{"a member", chanID, nil, false},
		{"a moderator", chanID, []string{mods}, true},
		{"a moderator where an overwrite denies it", locked, []string{mods}, false},
	}
	for i, tc := range tests {
		h.srv.SendMessage(&discordgo.Message{
			ChannelID: tc.channel, GuildID: guildID,
			Author:   &discordgo.User{ID: "70" + string(rune('0'+i)), Username: "u"},
			Member:   &discordgo.Member{Roles: tc.roles},
			Content:  "<@" + h.srv.BotID() + "> 毎週金曜に投稿して",
			Mentions: []*discordgo.User{{ID: h.srv.BotID()}},
		})
		deadline := time.Now().Add(10 * time.Second)
		for len(h.resp.requests()) <= i {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not answered", tc.name)
			}
			time.Sleep(10 * time.Millisecond)
		}
		if got := h.resp.requests()[i].ManageChannels; got != tc.want {
			t.Errorf("%s: ManageChannels = %v, want %v", tc.name, got, tc.want)
		}
	}
}
