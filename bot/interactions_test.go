package bot

import (
	"reflect"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/commands"
)

// A command's declaration reaches Discord with its localisations, option
// limits, choices and default member permissions.
func TestApplicationCommand(t *testing.T) {
	minID := 1.0
	ac := applicationCommand(commands.Command{
		Name: "remind", Description: "Reminders", DescriptionJA: "リマインダー", Visible: commands.ManageChannels,
		Options: []commands.Option{{
			Type: commands.Subcommand, Name: "cancel", Description: "Cancel",
			Options: []commands.Option{
				{Type: commands.Integer, Name: "id", Description: "Number", Required: true, MinValue: &minID},
				{Type: commands.String, Name: "scope", Description: "Where", MaxLength: 20, Autocomplete: true,
					Choices: []commands.Choice{{Name: "server", NameJA: "サーバー", Value: "server"}}},
			},
		}},
	})
	if ac.Name != "remind" || (*ac.DescriptionLocalizations)[discordgo.Japanese] != "リマインダー" {
		t.Errorf("command = %+v", ac)
	}
	if ac.DefaultMemberPermissions == nil || *ac.DefaultMemberPermissions != discordgo.PermissionManageChannels {
		t.Errorf("default member permissions = %v", ac.DefaultMemberPermissions)
	}
	sub := ac.Options[0]
	if sub.Type != discordgo.ApplicationCommandOptionSubCommand || len(sub.Options) != 2 {
		t.Fatalf("subcommand = %+v", sub)
	}
	id, scope := sub.Options[0], sub.Options[1]
	if id.Type != discordgo.ApplicationCommandOptionInteger || !id.Required || id.MinValue == nil || *id.MinValue != 1 {
		t.Errorf("id option = %+v", id)
	}
	if scope.MaxLength != 20 || !scope.Autocomplete || len(scope.Choices) != 1 || scope.Choices[0].NameLocalizations[discordgo.Japanese] != "サーバー" {
		t.Errorf("scope option = %+v", scope)
	}
	if plain := applicationCommand(commands.Command{Name: "stats", Description: "x"}); plain.DefaultMemberPermissions != nil || plain.DescriptionLocalizations != nil {
		t.Errorf("a command for everyone declares %+v", plain)
	}
}

// An interaction becomes a plain request: subcommand, values as sent
// (numbers as JSON decodes them), the option being typed, and what the
// user may do there.
func TestRequestFromInteraction(t *testing.T) {
	in := func(guild string, m *discordgo.Member, u *discordgo.User, opts ...*discordgo.ApplicationCommandInteractionDataOption) *discordgo.InteractionCreate {
		return &discordgo.InteractionCreate{Interaction: &discordgo.Interaction{Type: discordgo.InteractionApplicationCommand,
			GuildID: guild, ChannelID: "c1", Member: m, User: u,
			Data: discordgo.ApplicationCommandInteractionData{Name: "remind", Options: opts}}}
	}
	member := func(perms int64) *discordgo.Member {
		return &discordgo.Member{User: &discordgo.User{ID: "u1"}, Permissions: perms}
	}
	sub := &discordgo.ApplicationCommandInteractionDataOption{Name: "cancel", Type: discordgo.ApplicationCommandOptionSubCommand,
		Options: []*discordgo.ApplicationCommandInteractionDataOption{
			{Name: "id", Type: discordgo.ApplicationCommandOptionInteger, Value: float64(7)},
			{Name: "name", Type: discordgo.ApplicationCommandOptionString, Value: "qw", Focused: true},
			nil,
		}}
	tests := []struct {
		name string
		i    *discordgo.InteractionCreate
		want commands.Request
	}{
		{"a member with a subcommand", in("g1", member(discordgo.PermissionManageMessages), nil, sub), commands.Request{
			Command: "remind", Subcommand: "cancel", Options: map[string]any{"id": int64(7), "name": "qw"}, Focused: "name",
			UserID: "u1", GuildID: "g1", ChannelID: "c1", Perms: commands.ManageMessages}},
		{"an administrator", in("g1", member(discordgo.PermissionAdministrator), nil), commands.Request{
			Command: "remind", Options: map[string]any{}, UserID: "u1", GuildID: "g1", ChannelID: "c1", Perms: commands.All}},
		{"Manage Channels", in("g1", member(discordgo.PermissionManageChannels), nil,
			&discordgo.ApplicationCommandInteractionDataOption{Name: "confirm", Type: discordgo.ApplicationCommandOptionBoolean, Value: true}),
			commands.Request{Command: "remind", Options: map[string]any{"confirm": true}, UserID: "u1", GuildID: "g1", ChannelID: "c1", Perms: commands.ManageChannels}},
		{"a DM's user", in("", nil, &discordgo.User{ID: "u2"}), commands.Request{
			Command: "remind", Options: map[string]any{}, UserID: "u2", ChannelID: "c1", Perms: commands.All}},
		{"a guild interaction without a member", in("g1", nil, nil), commands.Request{
			Command: "remind", Options: map[string]any{}, GuildID: "g1", ChannelID: "c1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := request(tc.i); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("request =\n%+v\nwant\n%+v", got, tc.want)
			}
		})
	}
}
