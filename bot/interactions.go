package bot

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/commands"
)

// Slash commands: package commands declares and answers them; this file
// turns their declarations into Discord's application commands, and
// interactions into commands.Requests and back.

// maxChoices is how many autocomplete choices Discord shows.
const maxChoices = 25

// deferDeadline is how long a command or a button press may take before it
// is acknowledged with a deferred response and answered afterwards:
// Discord drops an interaction not answered within 3 seconds, and the
// network needs some of them.
const deferDeadline = 2 * time.Second

// postedReply is what the deferred, ephemeral response of a command says
// once its public reply went to the channel.
const postedReply = "チャンネルに投稿しました。"

// AddCommand declares a slash command, created (bulk-overwritten) globally
// once connected, and answers its interactions. Call it before Start.
func (b *Bot) AddCommand(c commands.Command) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.commands = append(b.commands, applicationCommand(c))
	b.handlers[c.Name] = c
}

// applicationCommand is c as Discord declares it.
func applicationCommand(c commands.Command) *discordgo.ApplicationCommand {
	ac := &discordgo.ApplicationCommand{
		Name:        c.Name,
		Description: c.Description,
		Options:     applicationOptions(c.Options),
	}
	if c.NameJA != "" {
		ac.NameLocalizations = &map[discordgo.Locale]string{discordgo.Japanese: c.NameJA}
	}
	if c.DescriptionJA != "" {
		ac.DescriptionLocalizations = &map[discordgo.Locale]string{discordgo.Japanese: c.DescriptionJA}
	}
	if c.Message {
		// A context-menu command has neither a description nor options.
		ac.Type = discordgo.MessageApplicationCommand
		ac.Description, ac.DescriptionLocalizations, ac.Options = "", nil, nil
	}
	if c.Visible != 0 {
		p := discordPermissions(c.Visible)
		ac.DefaultMemberPermissions = &p
	}
	types := []discordgo.ApplicationIntegrationType{discordgo.ApplicationIntegrationGuildInstall}
	contexts := []discordgo.InteractionContextType{discordgo.InteractionContextGuild, discordgo.InteractionContextBotDM}
	if c.Anywhere {
		types = append(types, discordgo.ApplicationIntegrationUserInstall)
		contexts = append(contexts, discordgo.InteractionContextPrivateChannel)
	}
	ac.IntegrationTypes, ac.Contexts = &types, &contexts
	return ac
}

// botAbsent reports whether interaction i comes from where yorozu is not
// a member: a group DM or another user's DM, or a server that did not
// install it (only the user did).
func botAbsent(i *discordgo.InteractionCreate) bool {
	if i.Context == discordgo.InteractionContextPrivateChannel {
		return true
	}
	if i.GuildID == "" || i.AuthorizingIntegrationOwners == nil {
		return false
	}
	_, installed := i.AuthorizingIntegrationOwners[discordgo.ApplicationIntegrationGuildInstall]
	return !installed
}

var optionTypes = map[commands.OptionType]discordgo.ApplicationCommandOptionType{
	commands.String:     discordgo.ApplicationCommandOptionString,
	commands.Integer:    discordgo.ApplicationCommandOptionInteger,
	commands.Boolean:    discordgo.ApplicationCommandOptionBoolean,
	commands.Subcommand: discordgo.ApplicationCommandOptionSubCommand,
	commands.Channel:    discordgo.ApplicationCommandOptionChannel,
}

func applicationOptions(opts []commands.Option) []*discordgo.ApplicationCommandOption {
	var out []*discordgo.ApplicationCommandOption
	for _, o := range opts {
		ao := &discordgo.ApplicationCommandOption{
			Type:         optionTypes[o.Type],
			Name:         o.Name,
			Description:  o.Description,
			Required:     o.Required,
			Autocomplete: o.Autocomplete,
			MinValue:     o.MinValue,
			MaxLength:    o.MaxLength,
			Options:      applicationOptions(o.Options),
		}
		if o.DescriptionJA != "" {
			ao.DescriptionLocalizations = map[discordgo.Locale]string{discordgo.Japanese: o.DescriptionJA}
		}
		for _, c := range o.Choices {
			ac := &discordgo.ApplicationCommandOptionChoice{Name: c.Name, Value: c.Value}
			if c.NameJA != "" {
				ac.NameLocalizations = map[discordgo.Locale]string{discordgo.Japanese: c.NameJA}
			}
			ao.Choices = append(ao.Choices, ac)
		}
		out = append(out, ao)
	}
	return out
}

// discordPermissions is p as Discord's permission bits.
func discordPermissions(p commands.Permission) int64 {
	var bits int64
	if p&commands.ManageMessages != 0 {
		bits |= discordgo.PermissionManageMessages
	}
	if p&commands.ManageChannels != 0 {
		bits |= discordgo.PermissionManageChannels
	}
	if p&commands.ManageEvents != 0 {
		bits |= discordgo.PermissionManageEvents
	}
	return bits
}

// permissions is what the user of interaction i may do in its channel, as
// Discord computed it for the interaction. A DM's user may do everything:
// nobody else is there.
func permissions(i *discordgo.InteractionCreate) commands.Permission {
	switch {
	case i.Context == discordgo.InteractionContextPrivateChannel:
		return 0 // a group DM: others are there, and yorozu is not
	case i.GuildID == "":
		if i.User != nil {
			return commands.All
		}
		return 0
	case i.Member == nil:
		return 0
	case i.Member.Permissions&discordgo.PermissionAdministrator != 0:
		return commands.All
	}
	var p commands.Permission
	if i.Member.Permissions&discordgo.PermissionManageMessages != 0 {
		p |= commands.ManageMessages
	}
	if i.Member.Permissions&discordgo.PermissionManageChannels != 0 {
		p |= commands.ManageChannels
	}
	if i.Member.Permissions&(discordgo.PermissionManageEvents|discordgo.PermissionCreateEvents) != 0 {
		p |= commands.ManageEvents
	}
	return p
}

// interactionUser is the id of the user who used interaction i ("" when
// Discord sent none).
func interactionUser(i *discordgo.InteractionCreate) string {
	switch {
	case i.Member != nil && i.Member.User != nil:
		return i.Member.User.ID
	case i.User != nil:
		return i.User.ID
	}
	return ""
}

// request is interaction i as a plain commands.Request. Option values are
// taken as sent; a number may arrive as a JSON number or a string.
func request(i *discordgo.InteractionCreate) commands.Request {
	data := i.ApplicationCommandData()
	req := commands.Request{
		Command:   data.Name,
		Options:   map[string]any{},
		UserID:    interactionUser(i),
		GuildID:   i.GuildID,
		ChannelID: i.ChannelID,
		Perms:     permissions(i),
		TargetID:  data.TargetID,
		BotAbsent: botAbsent(i),
	}
	opts := data.Options
	if len(opts) > 0 && opts[0] != nil && opts[0].Type == discordgo.ApplicationCommandOptionSubCommand {
		req.Subcommand, opts = opts[0].Name, opts[0].Options
	}
	for _, o := range opts {
		if o == nil {
			continue
		}
		req.Options[o.Name] = optionValue(o)
		if o.Focused {
			req.Focused = o.Name
		}
	}
	return req
}

func optionValue(o *discordgo.ApplicationCommandInteractionDataOption) any {
	switch v := o.Value.(type) {
	case float64:
		if o.Type == discordgo.ApplicationCommandOptionInteger {
			return int64(v)
		}
		return v
	case string, bool:
		return v
	case nil:
		return nil
	}
	return fmt.Sprint(o.Value)
}

func (b *Bot) onInteractionCreate(s *discordgo.Session, i *discordgo.InteractionCreate) {
	defer b.recoverEvent("interaction_create")
	if i.Type == discordgo.InteractionMessageComponent {
		b.onPress(s, i)
		return
	}
	if i.Type == discordgo.InteractionModalSubmit {
		if i.GuildID == "" || b.servesGuild(i.GuildID) {
			b.onAskSubmit(s, i)
			b.onModalSubmit(s, i)
		}
		return
	}
	if i.Type != discordgo.InteractionApplicationCommand && i.Type != discordgo.InteractionApplicationCommandAutocomplete {
		return
	}
	autocomplete := i.Type == discordgo.InteractionApplicationCommandAutocomplete
	if i.GuildID != "" && !b.servesGuild(i.GuildID) {
		if !autocomplete {
			b.goRespond(s, i, notServedReply)
		}
		return
	}
	req := request(i)
	if req.BotAbsent {
		req.OpenDM = b.openDM(s, req.UserID)
	}
	b.mu.Lock()
	ask := b.ask && req.Command == AskCommandName
	b.mu.Unlock()
	if ask && !autocomplete {
		b.openAsk(s, i)
		return
	}
	b.mu.Lock()
	c, ok := b.handlers[req.Command]
	ok = ok && !b.stopping && (!autocomplete || c.Complete != nil)
	if ok {
		b.wg.Add(1)
	}
	b.mu.Unlock()
	if !ok {
		return
	}
	if c.Modal != nil && !autocomplete {
		b.wg.Done()
		if req.BotAbsent && !c.Anywhere {
			b.goRespond(s, i, commands.NotHereReply)
			return
		}
		b.openModal(s, i, c, req.TargetID)
		return
	}
	go func() {
		defer b.wg.Done()
		if autocomplete {
			b.complete(s, i, c, req)
			return
		}
		b.run(s, i, c, req)
	}()
}

// run answers one use of c: the refusal when the user lacks what it
// requires, else its reply. A command that has not returned within
// b.deferAfter (a model list that hangs, a row lock a delivering post
// holds) is acknowledged first with a deferred response, which Discord
// shows as 「考え中…」, and its reply then edits that response: past 3
// seconds Discord refuses a first answer (10062 Unknown interaction)
// although the command may have done its work. A quick command answers at
// once, with no extra call.
func (b *Bot) run(s *discordgo.Session, i *discordgo.InteractionCreate, c commands.Command, req commands.Request) {
	// An interaction token is valid for 15 minutes.
	ctx, cancel := context.WithTimeout(b.ctx, 15*time.Minute)
	defer cancel()
	prog := &progress{s: s, i: i, log: b.log}
	req.Progress = prog.report
	reply, deferred := awaitReply(ctx, b, s, i, discordgo.InteractionResponseDeferredChannelMessageWithSource,
		b.interactionDeferAfter(), "command", c.Name, prog.deferred, func() (reply commands.Reply) {
			defer func() {
				if p := recover(); p != nil {
					b.log.Error("discord command handler panic", "command", c.Name, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
					reply = commands.Text(genericErrorReply)
				}
			}()
			if req.BotAbsent && !c.Anywhere {
				return commands.Text(commands.NotHereReply)
			}
			if !req.Can(c.Required(req.Subcommand)) {
				return commands.Text(c.RefusalFor(req.Subcommand))
			}
			return c.Run(ctx, req)
		})
	// A command cut by Stop is still answered, within the REST deadline.
	rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), restTimeout)
	defer rcancel()
	prog.finish()
	if err := answerCommand(rctx, s, i, reply, deferred); err != nil {
		b.log.Error("interaction response", "command", c.Name, "interaction_id", i.ID, "deferred", deferred, "err", err)
	}
}

// awaitReply runs work in its own goroutine and returns its reply, and
// whether i was acknowledged first: once after has passed without a reply,
// i gets a deferred response of type typ (kind and name say what for, in
// the log) and the wait goes on; onDeferred, when not nil, is called once
// Discord took the deferral.
func awaitReply[R any](ctx context.Context, b *Bot, s *discordgo.Session, i *discordgo.InteractionCreate,
	typ discordgo.InteractionResponseType, after time.Duration, kind, name string, onDeferred func(), work func() R) (R, bool) {
	done := make(chan R, 1)
	go func() { done <- work() }()
	t := time.NewTimer(after)
	defer t.Stop()
	select {
	case r := <-done:
		return r, false
	case <-t.C:
		deferred := b.deferResponse(ctx, s, i, typ, kind, name)
		if deferred && onDeferred != nil {
			onDeferred()
		}
		return <-done, deferred
	}
}

// interactionDeferAfter is how long a command or a press may run before it
// is acknowledged with a deferred response.
func (b *Bot) interactionDeferAfter() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.deferAfter > 0 {
		return b.deferAfter
	}
	return deferDeadline
}

// deferResponse acknowledges interaction i with a deferred response of
// type typ, so that its answer may come later; a deferred message is
// ephemeral, as commands' replies are unless they say otherwise (see
// answerCommand). It reports whether Discord took it; kind and name say
// what was deferred, for the log.
func (b *Bot) deferResponse(ctx context.Context, s *discordgo.Session, i *discordgo.InteractionCreate,
	typ discordgo.InteractionResponseType, kind, name string) bool {
	// Past Discord's 3 seconds a first answer is refused anyway.
	dctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	r := &discordgo.InteractionResponse{Type: typ}
	if typ == discordgo.InteractionResponseDeferredChannelMessageWithSource {
		r.Data = &discordgo.InteractionResponseData{Flags: discordgo.MessageFlagsEphemeral}
	}
	if err := s.InteractionRespond(i.Interaction, r, discordgo.WithContext(dctx)); err != nil {
		b.log.Warn("interaction deferral", kind, name, "interaction_id", i.ID, "err", err)
		return false
	}
	return true
}

// answerCommand answers command interaction i with reply, mentioning
// nobody: as its response, or, once a deferred response stands for it,
// by editing that response. The deferral was ephemeral, so a public reply
// goes to the channel as a follow-up and the deferred response says where
// it went.
//
// A public reply longer than a message (a summary with its links) goes out
// in several, cut where splitMessage cuts an answer, the rest as
// follow-ups.
func answerCommand(ctx context.Context, s *discordgo.Session, i *discordgo.InteractionCreate, reply commands.Reply, deferred bool) error {
	parts := []string{reply.Text}
	if reply.Public && utf8.RuneCountInString(reply.Text) > maxMessageRunes {
		parts = splitMessage(reply.Text, maxMessageRunes)
	}
	if !deferred {
		first := reply
		first.Text = parts[0]
		if err := respond(ctx, s, i, first); err != nil {
			return err
		}
		return followups(ctx, s, i, parts[1:])
	}
	text := reply.Text
	edit := &discordgo.WebhookEdit{Content: &text, AllowedMentions: noMentions()}
	if reply.Public {
		text = postedReply
	} else if comps := replyComponents(reply); comps != nil {
		edit.Components = &comps
	}
	_, err := s.InteractionResponseEdit(i.Interaction, edit, discordgo.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("edit deferred response of interaction %s: %w", i.ID, err)
	}
	if !reply.Public {
		return nil
	}
	// The deferred response is edited first: a follow-up sent before
	// would take its place, ephemeral.
	return followups(ctx, s, i, parts)
}

// openDM is the Request.OpenDM of userID: it opens (or finds) the user's
// DM with yorozu, which yorozu may post in wherever the user is.
func (b *Bot) openDM(s *discordgo.Session, userID string) func(ctx context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		if userID == "" {
			return "", errors.New("open a DM: no user")
		}
		ctx, cancel := context.WithTimeout(ctx, restTimeout)
		defer cancel()
		ch, err := s.UserChannelCreate(userID, discordgo.WithContext(ctx))
		if err != nil {
			return "", fmt.Errorf("open the DM of user %s: %w", userID, err)
		}
		return ch.ID, nil
	}
}

// replyComponents are a reply's buttons as one action row; nil for none.
func replyComponents(reply commands.Reply) []discordgo.MessageComponent {
	if len(reply.Buttons) == 0 {
		return nil
	}
	var row []discordgo.MessageComponent
	for _, bt := range reply.Buttons {
		style := discordgo.SuccessButton
		if bt.Secondary {
			style = discordgo.SecondaryButton
		}
		row = append(row, discordgo.Button{Label: bt.Label, Style: style, CustomID: bt.CustomID})
	}
	return []discordgo.MessageComponent{discordgo.ActionsRow{Components: row}}
}

// followups posts texts as public follow-ups of interaction i, in order.
func followups(ctx context.Context, s *discordgo.Session, i *discordgo.InteractionCreate, texts []string) error {
	for _, t := range texts {
		_, err := s.FollowupMessageCreate(i.Interaction, true, &discordgo.WebhookParams{
			Content: t, AllowedMentions: noMentions(),
		}, discordgo.WithContext(ctx))
		if err != nil {
			return fmt.Errorf("public follow-up of interaction %s: %w", i.ID, err)
		}
	}
	return nil
}

// complete answers an autocomplete interaction with c's choices; Discord
// wants them within 3 seconds.
func (b *Bot) complete(s *discordgo.Session, i *discordgo.InteractionCreate, c commands.Command, req commands.Request) {
	ctx, cancel := context.WithTimeout(b.ctx, 3*time.Second)
	defer cancel()
	defer b.recoverEvent("autocomplete")
	choices := []*discordgo.ApplicationCommandOptionChoice{}
	for _, ch := range c.Complete(ctx, req) {
		if len(choices) == maxChoices {
			break
		}
		choices = append(choices, &discordgo.ApplicationCommandOptionChoice{Name: ch.Name, Value: ch.Value})
	}
	err := s.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{
		Type: discordgo.InteractionApplicationCommandAutocompleteResult,
		Data: &discordgo.InteractionResponseData{Choices: choices},
	}, discordgo.WithContext(ctx))
	if err != nil {
		b.log.Warn("autocomplete response", "command", c.Name, "err", err)
	}
}

// respond answers interaction i with reply and its buttons, mentioning
// nobody; only its user sees it unless it is public.
func respond(ctx context.Context, s *discordgo.Session, i *discordgo.InteractionCreate, reply commands.Reply) error {
	data := &discordgo.InteractionResponseData{
		Content:         reply.Text,
		AllowedMentions: &discordgo.MessageAllowedMentions{Parse: []discordgo.AllowedMentionType{}},
		Components:      replyComponents(reply),
	}
	if !reply.Public {
		data.Flags = discordgo.MessageFlagsEphemeral
	}
	return s.InteractionRespond(i.Interaction, &discordgo.InteractionResponse{
		Type: discordgo.InteractionResponseChannelMessageWithSource,
		Data: data,
	}, discordgo.WithContext(ctx))
}
