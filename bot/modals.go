package bot

import (
	"context"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/commands"
)

// modalPrefix starts the custom id of a command's modal:
// yz:md:<command name>:<target message id>.
const modalPrefix = "yz:md:"

// openModal answers a use of c, a command with a form, with its modal.
func (b *Bot) openModal(s *discordgo.Session, i *discordgo.InteractionCreate, c commands.Command, target string) {
	var rows []discordgo.MessageComponent
	for _, in := range c.Modal.Inputs {
		style := discordgo.TextInputShort
		if in.Long {
			style = discordgo.TextInputParagraph
		}
		rows = append(rows, discordgo.ActionsRow{Components: []discordgo.MessageComponent{discordgo.TextInput{
			CustomID: in.ID, Label: in.Label, Placeholder: in.Placeholder, MaxLength: in.MaxLength, Required: in.Required, Style: style,
		}}})
	}
	b.goEvent("modal", func() {
		ctx, cancel := context.WithTimeout(b.ctx, 3*time.Second)
		defer cancel()
		err := s.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{
			Type: discordgo.InteractionResponseModal,
			Data: &discordgo.InteractionResponseData{CustomID: modalPrefix + c.Name + ":" + target, Title: c.Modal.Title, Components: rows},
		}, discordgo.WithContext(ctx))
		if err != nil {
			b.log.Warn("modal", "command", c.Name, "interaction_id", i.ID, "err", err)
		}
	})
}

// onModalSubmit answers a sent command modal with its command's Submit,
// as a use of the command is answered (deferred when slow).
func (b *Bot) onModalSubmit(s *discordgo.Session, i *discordgo.InteractionCreate) {
	data := i.ModalSubmitData()
	rest, ok := strings.CutPrefix(data.CustomID, modalPrefix)
	if !ok {
		return
	}
	cut := strings.LastIndex(rest, ":")
	if cut < 0 {
		return
	}
	name, target := rest[:cut], rest[cut+1:]
	b.mu.Lock()
	c, ok := b.handlers[name]
	ok = ok && c.Submit != nil && !b.stopping
	if ok {
		b.wg.Add(1)
	}
	b.mu.Unlock()
	if !ok {
		return
	}
	req := commands.Request{Command: name, Options: map[string]any{}, UserID: interactionUser(i), GuildID: i.GuildID,
		ChannelID: i.ChannelID, Perms: permissions(i), TargetID: target, BotAbsent: botAbsent(i)}
	if req.BotAbsent {
		req.OpenDM = b.openDM(s, req.UserID)
	}
	for _, in := range c.Modal.Inputs {
		req.Options[in.ID] = modalValue(data, in.ID)
	}
	c.Run = c.Submit
	go func() {
		defer b.wg.Done()
		b.run(s, i, c, req)
	}()
}
