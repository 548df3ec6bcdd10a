package bot

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/commands"
)

// Message buttons: package commands answers their presses (commands.Buttons);
// this file turns a press (a MESSAGE_COMPONENT interaction) into a
// commands.Press and its commands.PressReply into Discord's response.

// expiredButtonReply answers a press no Buttons claims: a button of an
// older version, whose handler is gone.
const expiredButtonReply = "このボタンはもう使えません。"

// buttonSet is what AddButtons declared. Guarded by Bot.mu.
type buttonSet struct {
	list []commands.Buttons
}

// AddButtons answers the presses of the buttons whose custom ids start
// with bs.Prefix; when several prefixes start a custom id, the longest
// wins, and a second Buttons with the same Prefix replaces the first.
// Call it before Start, like AddCommand, so that no early press is refused.
func (b *Bot) AddButtons(bs commands.Buttons) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, old := range b.buttons.list {
		if old.Prefix == bs.Prefix {
			b.buttons.list[i] = bs
			return
		}
	}
	b.buttons.list = append(b.buttons.list, bs)
}

// buttonsLocked is the Buttons that answers customID. b.mu is held.
func (b *Bot) buttonsLocked(customID string) (commands.Buttons, bool) {
	var found commands.Buttons
	ok := false
	for _, bs := range b.buttons.list {
		if strings.HasPrefix(customID, bs.Prefix) && (!ok || len(bs.Prefix) > len(found.Prefix)) {
			found, ok = bs, true
		}
	}
	return found, ok
}

// press is interaction i, a button press, as a plain commands.Press.
func press(i *discordgo.InteractionCreate) commands.Press {
	p := commands.Press{
		CustomID:  i.MessageComponentData().CustomID,
		UserID:    interactionUser(i),
		GuildID:   i.GuildID,
		ChannelID: i.ChannelID,
		Perms:     permissions(i),
	}
	if i.Message != nil {
		p.MessageID, p.Content = i.Message.ID, i.Message.Content
	}
	return p
}

// onPress routes a MESSAGE_COMPONENT interaction to the Buttons of its
// custom id, off the gateway loop. Presses of anything but a button, or of
// a button no Buttons claims, are refused.
func (b *Bot) onPress(s *discordgo.Session, i *discordgo.InteractionCreate) {
	if i.GuildID != "" && !b.servesGuild(i.GuildID) {
		b.goRespond(s, i, notServedReply)
		return
	}
	data := i.MessageComponentData()
	b.mu.Lock()
	bs, known := b.buttonsLocked(data.CustomID)
	known = known && data.ComponentType == discordgo.ButtonComponent
	ok := known && !b.stopping
	if ok {
		b.wg.Add(1)
	}
	b.mu.Unlock()
	if !known {
		b.goRespond(s, i, expiredButtonReply)
		return
	}
	if !ok {
		return
	}
	go func() {
		defer b.wg.Done()
		defer b.recoverEvent("button_press")
		b.runPress(s, i, bs, press(i), b.interactionDeferAfter())
	}()
}

// runPress runs bs.Press and answers with its reply: at once when it is
// quick, else after acknowledging the press with a deferred update once
// deferAfter has passed. A panicking Press is answered with the generic
// error.
func (b *Bot) runPress(s *discordgo.Session, i *discordgo.InteractionCreate, bs commands.Buttons, p commands.Press, deferAfter time.Duration) {
	// An interaction token is valid for 15 minutes.
	ctx, cancel := context.WithTimeout(b.ctx, 15*time.Minute)
	defer cancel()
	reply, deferred := awaitReply(ctx, b, s, i, discordgo.InteractionResponseDeferredMessageUpdate, deferAfter,
		"prefix", bs.Prefix, nil, func() (reply commands.PressReply) {
			defer func() {
				if v := recover(); v != nil {
					b.log.Error("discord button handler panic", "prefix", bs.Prefix, "custom_id", p.CustomID,
						"panic", fmt.Sprint(v), "stack", string(debug.Stack()))
					reply = commands.PressReply{Text: genericErrorReply}
				}
			}()
			return bs.Press(ctx, p)
		})
	// A press cut by Stop is still answered, within the REST deadline.
	rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), restTimeout)
	defer rcancel()
	if err := answerPress(rctx, s, i, reply, deferred); err != nil {
		b.log.Error("button press response", "prefix", bs.Prefix, "interaction_id", i.ID, "err", err)
	}
}

// answerPress answers press i with reply, mentioning nobody: Update
// replaces the pressed message and removes its buttons, Text goes to the
// presser alone. When the press was acknowledged with a deferred update,
// the message is edited and the text is a follow-up.
func answerPress(ctx context.Context, s *discordgo.Session, i *discordgo.InteractionCreate, reply commands.PressReply, deferred bool) error {
	switch {
	case reply.Update != "" && deferred:
		_, err := s.InteractionResponseEdit(i.Interaction, &discordgo.WebhookEdit{
			Content:         &reply.Update,
			Components:      &[]discordgo.MessageComponent{},
			AllowedMentions: noMentions(),
		}, discordgo.WithContext(ctx))
		if err != nil {
			return fmt.Errorf("edit pressed message %s: %w", pressedMessage(i), err)
		}
	case reply.Update != "":
		// An empty, non-nil slice goes out as "components": [], which
		// removes the buttons; nil would go out as null.
		err := s.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{
			Type: discordgo.InteractionResponseUpdateMessage,
			Data: &discordgo.InteractionResponseData{
				Content:         reply.Update,
				Components:      []discordgo.MessageComponent{},
				AllowedMentions: noMentions(),
			},
		}, discordgo.WithContext(ctx))
		if err != nil {
			return fmt.Errorf("update pressed message %s: %w", pressedMessage(i), err)
		}
	case reply.Text != "" && !deferred:
		return respond(ctx, s, i, commands.Text(reply.Text))
	case reply.Text == "" && !deferred:
		return s.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{
			Type: discordgo.InteractionResponseDeferredMessageUpdate,
		}, discordgo.WithContext(ctx))
	}
	if reply.Text == "" {
		return nil
	}
	_, err := s.FollowupMessageCreate(i.Interaction, true, &discordgo.WebhookParams{
		Content: reply.Text, Flags: discordgo.MessageFlagsEphemeral, AllowedMentions: noMentions(),
	}, discordgo.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("press follow-up: %w", err)
	}
	return nil
}

// pressedMessage is the id of the message whose button was pressed, for
// errors.
func pressedMessage(i *discordgo.InteractionCreate) string {
	if i.Message == nil {
		return "?"
	}
	return i.Message.ID
}
