package bot

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/commands"
	"github.com/yorozu-bot/yorozu/memory"
)

// The message command 「よろずに聞く」 (Apps → よろずに聞く on any message):
// it opens a modal for a question about the message, and the answer is a
// turn like a mention's, replying to that message, with the message (its
// text, its files' names) and its reply chain in the context. It is
// declared for a user install too: where yorozu is not a member, the
// answer comes through the interaction alone (ask_absent.go).
const (
	// AskCommandName is the command's name, as Discord shows it to English
	// users.
	AskCommandName = "Ask yorozu"
	askCommandJA   = "よろずに聞く"
	// askModalPrefix starts the modal's custom id: yz:ask:<message id>.
	askModalPrefix = "yz:ask:"
	askInputID     = "question"
	askMaxRunes    = 1000
)

// Texts of 「よろずに聞く」.
const (
	askEmptyReply    = "質問が空です。聞きたいことを書いてから送ってください。"
	askUnreadable    = "このメッセージを読めませんでした（このチャンネルでよろずに「メッセージ履歴を読む」権限がないか、メッセージが削除されています）。"
	askQueuedReply   = "このメッセージへの返信として答えます。"
	askNotQueuedText = "いまは混み合っていて受け付けられませんでした。少し待ってからもう一度お試しください。"
)

// AddAsk declares 「よろずに聞く」. Call it before Start.
func (b *Bot) AddAsk() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.commands = append(b.commands, applicationCommand(commands.Command{
		Name: AskCommandName, NameJA: askCommandJA, Message: true, Anywhere: true,
	}))
	b.ask = true
}

// openAsk answers a use of 「よろずに聞く」 with its modal.
func (b *Bot) openAsk(s *discordgo.Session, i *discordgo.InteractionCreate) {
	target := i.ApplicationCommandData().TargetID
	if botAbsent(i) && !b.keepAskTarget(i, target) {
		b.goRespond(s, i, askUnreadable)
		return
	}
	b.goEvent("ask_modal", func() {
		ctx, cancel := context.WithTimeout(b.ctx, 3*time.Second)
		defer cancel()
		err := s.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{
			Type: discordgo.InteractionResponseModal,
			Data: &discordgo.InteractionResponseData{
				CustomID: askModalPrefix + target, Title: askCommandJA,
				Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: []discordgo.MessageComponent{
					discordgo.TextInput{CustomID: askInputID, Label: "このメッセージについての質問", Style: discordgo.TextInputParagraph,
						Placeholder: "例：これってどういう意味？", Required: true, MaxLength: askMaxRunes},
				}}},
			},
		}, discordgo.WithContext(ctx))
		if err != nil {
			b.log.Warn("ask modal", "interaction_id", i.ID, "err", err)
		}
	})
}

// modalValue is the value of the text input id in a modal submission.
func modalValue(data discordgo.ModalSubmitInteractionData, id string) string {
	for _, c := range data.Components {
		row, ok := c.(*discordgo.ActionsRow)
		if !ok {
			continue
		}
		for _, rc := range row.Components {
			if in, ok := rc.(*discordgo.TextInput); ok && in.CustomID == id {
				return in.Value
			}
		}
	}
	return ""
}

// onAskSubmit takes the question of a 「よろずに聞く」 modal: an empty one,
// or one about a message yorozu cannot read, is refused (only its user
// sees why) and nothing is asked; otherwise the question is queued as a
// turn that answers in reply to the message.
func (b *Bot) onAskSubmit(s *discordgo.Session, i *discordgo.InteractionCreate) {
	data := i.ModalSubmitData()
	target, ok := strings.CutPrefix(data.CustomID, askModalPrefix)
	if !ok || target == "" {
		return
	}
	question := strings.TrimSpace(modalValue(data, askInputID))
	if botAbsent(i) && question != "" {
		b.goEvent("ask_submit", func() { b.askAbsent(s, i, target, question) })
		return
	}
	b.goEvent("ask_submit", func() {
		ctx, cancel := context.WithTimeout(b.ctx, 15*time.Second)
		defer cancel()
		say := func(text string, deferred bool) { b.sayEphemeral(ctx, s, i, text, deferred) }
		if question == "" {
			say(askEmptyReply, false)
			return
		}
		// Reading the message may take longer than Discord waits.
		deferred := b.deferResponse(ctx, s, i, discordgo.InteractionResponseDeferredChannelMessageWithSource, "ask", AskCommandName)
		m, err := s.ChannelMessage(i.ChannelID, target, discordgo.WithContext(ctx))
		if err != nil {
			var rest *discordgo.RESTError
			if !errors.As(err, &rest) || rest.Response == nil ||
				rest.Response.StatusCode != http.StatusForbidden && rest.Response.StatusCode != http.StatusNotFound {
				b.log.Warn("ask: read the message", "channel_id", i.ChannelID, "message_id", target, "err", err)
			}
			say(askUnreadable, deferred)
			return
		}
		if !b.enqueue(b.askRequest(i, m, question)) {
			say(askNotQueuedText, deferred)
			return
		}
		say(askQueuedReply, deferred)
	})
}

// sayEphemeral answers interaction i with text only its user sees: as its
// response, or, deferred, by editing it.
func (b *Bot) sayEphemeral(ctx context.Context, s *discordgo.Session, i *discordgo.InteractionCreate, text string, deferred bool) {
	var err error
	if deferred {
		_, err = s.InteractionResponseEdit(i.Interaction, &discordgo.WebhookEdit{Content: &text, AllowedMentions: noMentions()},
			discordgo.WithContext(ctx))
	} else {
		err = respond(ctx, s, i, commands.Text(text))
	}
	if err != nil {
		b.log.Warn("ask response", "interaction_id", i.ID, "err", err)
	}
}

// askRequest is the turn of a 「よろずに聞く」 question about m. Its own
// message id is the interaction's (there is no message of the question),
// so its claim is its own; its answer replies to m.
func (b *Bot) askRequest(i *discordgo.InteractionCreate, m *discordgo.Message, question string) chat.Request {
	botID := b.UserID()
	session := memory.DiscordChannel(i.ChannelID)
	if i.GuildID == "" {
		session = memory.DiscordDM(i.ChannelID)
	}
	return chat.Request{
		Session: string(session), Source: "discord", GuildID: i.GuildID, ChannelID: i.ChannelID,
		MessageID: i.ID, AnswerTo: m.ID, AuthorID: interactionUser(i), AuthorName: askerName(i),
		Text: question, At: b.now(), ReplyTo: m.ID,
		ReplyChain: []memory.ChainMessage{chainMessage(m, botID)},
	}
}
