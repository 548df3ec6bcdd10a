package bot

import (
	"context"

	"github.com/bwmarrin/discordgo"
)

// ManageMessages is the permission that changing a channel's memory needs
// (/forget, deleting summaries, cancelling others' reminders); commands
// declare it as their default_member_permissions.
var ManageMessages int64 = discordgo.PermissionManageMessages

// CanManageMessages reports whether the user of interaction i may change the
// memory of the channel it came from: Manage Messages (or Administrator) in
// that channel, as Discord computed it for the interaction, or being the
// user of the DM it came from. Servers can change who sees a command, so
// this is checked on every interaction, not only declared.
func CanManageMessages(i *discordgo.InteractionCreate) bool {
	if i == nil || i.Interaction == nil {
		return false
	}
	if i.GuildID == "" {
		return i.User != nil // a DM: its only user
	}
	if i.Member == nil {
		return false
	}
	return i.Member.Permissions&(discordgo.PermissionManageMessages|discordgo.PermissionAdministrator) != 0
}

// ManageChannels is the permission that changing a channel's persona or
// model needs; /persona and /model declare it as their
// default_member_permissions.
var ManageChannels int64 = discordgo.PermissionManageChannels

// CanManageChannels reports whether the user of interaction i may change
// the persona or model of the channel it came from: Manage Channels (or
// Administrator) there, as Discord computed it for the interaction, or
// being the user of the DM it came from. Checked on every interaction, as
// servers can change who sees a command.
func CanManageChannels(i *discordgo.InteractionCreate) bool {
	if i == nil || i.Interaction == nil {
		return false
	}
	if i.GuildID == "" {
		return i.User != nil
	}
	if i.Member == nil {
		return false
	}
	return i.Member.Permissions&(discordgo.PermissionManageChannels|discordgo.PermissionAdministrator) != 0
}

// RespondChoices answers an autocomplete interaction with choices (Discord
// shows at most 25).
func RespondChoices(ctx context.Context, s *discordgo.Session, i *discordgo.InteractionCreate, choices []*discordgo.ApplicationCommandOptionChoice) error {
	if len(choices) > 25 {
		choices = choices[:25]
	}
	if choices == nil {
		choices = []*discordgo.ApplicationCommandOptionChoice{}
	}
	return s.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{
		Type: discordgo.InteractionApplicationCommandAutocompleteResult,
		Data: &discordgo.InteractionResponseData{Choices: choices},
	}, discordgo.WithContext(ctx))
}

// InteractionUser is the id of the user who used interaction i ("" when
// Discord sent none).
func InteractionUser(i *discordgo.InteractionCreate) string {
	switch {
	case i == nil || i.Interaction == nil:
		return ""
	case i.Member != nil && i.Member.User != nil:
		return i.Member.User.ID
	case i.User != nil:
		return i.User.ID
	}
	return ""
}

// RespondEphemeral answers interaction i with text only its user sees,
// mentioning nobody.
func RespondEphemeral(ctx context.Context, s *discordgo.Session, i *discordgo.InteractionCreate, text string) error {
	return s.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: &discordgo.InteractionResponseData{
			Content:         text,
			Flags:           discordgo.MessageFlagsEphemeral,
			AllowedMentions: &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}},
		},
	}, discordgo.WithContext(ctx))
}
