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
