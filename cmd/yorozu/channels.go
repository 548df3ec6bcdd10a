package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/yorozu-bot/yorozu/bot"
	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm"
)

// /persona and /model: a channel's (thread's, server's) persona and model.
// They join the Discord adapter to the database and Ollama, so they are
// wired here.

// notManagerReply refuses /persona and /model set or reset to someone
// without Manage Channels.
const notManagerReply = "人格やモデルを変えられるのは「チャンネルの管理」権限を持つ人だけです。"

// listTimeout bounds asking Ollama which models it has.
const listTimeout = 5 * time.Second

func scopeOption(what string) *discordgo.ApplicationCommandOption {
	return &discordgo.ApplicationCommandOption{
		Type: discordgo.ApplicationCommandOptionString, Name: "scope",
		Description: "Where: this channel or thread (default), or the whole server's default",
		DescriptionLocalizations: map[discordgo.Locale]string{
			discordgo.Japanese: what + "の範囲: このチャンネル・スレッド (既定) か、サーバー全体の既定",
		},
		Choices: []*discordgo.ApplicationCommandOptionChoice{
			{Name: "channel", NameLocalizations: map[discordgo.Locale]string{discordgo.Japanese: "このチャンネル・スレッド"}, Value: "channel"},
			{Name: "server", NameLocalizations: map[discordgo.Locale]string{discordgo.Japanese: "サーバーの既定"}, Value: "server"},
		},
	}
}

// personaCommand is /persona set|show|reset.
func personaCommand() *discordgo.ApplicationCommand {
	return &discordgo.ApplicationCommand{
		Name:                     "persona",
		Description:              "This channel's persona (character and tone)",
		DescriptionLocalizations: &map[discordgo.Locale]string{discordgo.Japanese: "このチャンネルでのよろずの人格 (キャラクターや口調)"},
		// Hidden from members without Manage Channels; checked again on
		// use, since a server can change who sees a command.
		DefaultMemberPermissions: &bot.ManageChannels,
		Options: []*discordgo.ApplicationCommandOption{
			{
				Type: discordgo.ApplicationCommandOptionSubCommand, Name: "set",
				Description:              "Set the persona (up to 2,000 characters)",
				DescriptionLocalizations: map[discordgo.Locale]string{discordgo.Japanese: "人格を設定 (2,000 文字まで)"},
				Options: []*discordgo.ApplicationCommandOption{{
					Type: discordgo.ApplicationCommandOptionString, Name: "text", Required: true, MaxLength: db.MaxPersonaChars,
					Description:              "The persona, e.g. You are a cheerful pirate; end sentences with \"arr\"",
					DescriptionLocalizations: map[discordgo.Locale]string{discordgo.Japanese: "人格の説明 (例: あなたは陽気な海賊です。語尾は「だぜ」)"},
				}, scopeOption("人格")},
			},
			{
				Type: discordgo.ApplicationCommandOptionSubCommand, Name: "show",
				Description:              "Show the persona in force here and where it comes from",
				DescriptionLocalizations: map[discordgo.Locale]string{discordgo.Japanese: "いまの人格とその設定元を表示"},
			},
			{
				Type: discordgo.ApplicationCommandOptionSubCommand, Name: "reset",
				Description:              "Remove the persona set here (the parent's, the server's or yorozu's own applies)",
				DescriptionLocalizations: map[discordgo.Locale]string{discordgo.Japanese: "ここで設定した人格を解除 (親チャンネル・サーバー・よろずの既定に戻る)"},
				Options:                  []*discordgo.ApplicationCommandOption{scopeOption("人格")},
			},
		},
	}
}

// modelCommand is /model set|show|reset.
func modelCommand() *discordgo.ApplicationCommand {
	return &discordgo.ApplicationCommand{
		Name:                     "model",
		Description:              "The model that answers in this channel",
		DescriptionLocalizations: &map[discordgo.Locale]string{discordgo.Japanese: "このチャンネルで答えるモデル"},
		DefaultMemberPermissions: &bot.ManageChannels,
		Options: []*discordgo.ApplicationCommandOption{
			{
				Type: discordgo.ApplicationCommandOptionSubCommand, Name: "set",
				Description:              "Set the model (one Ollama has installed)",
				DescriptionLocalizations: map[discordgo.Locale]string{discordgo.Japanese: "モデルを設定 (Ollama にインストール済みのもの)"},
				Options: []*discordgo.ApplicationCommandOption{{
					Type: discordgo.ApplicationCommandOptionString, Name: "name", Required: true, Autocomplete: true, MaxLength: 200,
					Description:              "Model name, e.g. qwen3:8b",
					DescriptionLocalizations: map[discordgo.Locale]string{discordgo.Japanese: "モデル名 (例: qwen3:8b)"},
				}, scopeOption("モデル")},
			},
			{
				Type: discordgo.ApplicationCommandOptionSubCommand, Name: "show",
				Description:              "Show the model in force here and where it comes from",
				DescriptionLocalizations: map[discordgo.Locale]string{discordgo.Japanese: "いまのモデルとその設定元を表示"},
			},
			{
				Type: discordgo.ApplicationCommandOptionSubCommand, Name: "reset",
				Description:              "Remove the model set here",
				DescriptionLocalizations: map[discordgo.Locale]string{discordgo.Japanese: "ここで設定したモデルを解除"},
				Options:                  []*discordgo.ApplicationCommandOption{scopeOption("モデル")},
			},
		},
	}
}

// threadParents tells a thread's parent channel; *bot.Bot satisfies it.
type threadParents interface {
	ThreadParent(ctx context.Context, channelID string) (string, error)
}

// channelCommands answers /persona and /model.
type channelCommands struct {
	pool    *pgxpool.Pool
	models  llm.ModelLister
	parents threadParents
	// defaultModel is the chat model in force when nothing is set
	// (DEFAULT_MODEL, or the admin page's setting).
	defaultModel func() string
	log          *slog.Logger
}

// addChannelCommands registers /persona and /model (with its autocomplete)
// on b.
func addChannelCommands(b *bot.Bot, c *channelCommands) {
	respond := func(ctx context.Context, s *discordgo.Session, i *discordgo.InteractionCreate, text string) {
		if err := bot.RespondEphemeral(ctx, s, i, text); err != nil {
			c.log.Error("interaction response", "command", i.ApplicationCommandData().Name, "err", err)
		}
	}
	b.AddCommand(personaCommand(), func(ctx context.Context, s *discordgo.Session, i *discordgo.InteractionCreate) {
		respond(ctx, s, i, c.personaReply(ctx, i))
	})
	b.AddCommand(modelCommand(), func(ctx context.Context, s *discordgo.Session, i *discordgo.InteractionCreate) {
		respond(ctx, s, i, c.modelReply(ctx, i))
	})
	b.HandleAutocomplete("model", func(ctx context.Context, s *discordgo.Session, i *discordgo.InteractionCreate) {
		if err := bot.RespondChoices(ctx, s, i, c.modelChoices(ctx, i)); err != nil {
			c.log.Warn("model autocomplete", "err", err)
		}
	})
}

// place is where a command's setting goes: a channel (thread, DM) or a
// server's defaults.
type place struct {
	guildID, channelID, parentID string
	server                       bool // the server's defaults
}

// placeOf is where interaction i asks a setting to go (scope), or a reply
// that refuses it.
func (c *channelCommands) placeOf(ctx context.Context, i *discordgo.InteractionCreate, scope string) (place, string) {
	p := place{guildID: i.GuildID, channelID: i.ChannelID}
	if scope == "server" {
		if i.GuildID == "" {
			return p, "DM にはサーバーがありません。scope は付けずに使ってください。"
		}
		return place{guildID: i.GuildID, server: true}, ""
	}
	if i.GuildID != "" {
		parent, err := c.parents.ThreadParent(ctx, i.ChannelID)
		if err != nil {
			// Without the parent the thread's own value still applies;
			// only inheritance is lost for this reply.
			c.log.Warn("thread parent of a command's channel", "channel_id", i.ChannelID, "err", err)
		}
		p.parentID = parent
	}
	return p, ""
}

// name is how a reply calls the place.
func (p place) name() string {
	switch {
	case p.server:
		return "このサーバーの既定"
	case p.guildID == "":
		return "この DM"
	case p.parentID != "":
		return "このスレッド"
	}
	return "このチャンネル"
}

func (p place) update(by string) db.ChannelSettingUpdate {
	u := db.ChannelSettingUpdate{GuildID: p.guildID, ChannelID: p.channelID, ParentID: p.parentID, By: by}
	if p.server {
		u.ChannelID, u.ParentID = "", ""
	}
	return u
}

// inForce is what applies in the place (for a server: in a channel with
// nothing of its own).
func (c *channelCommands) inForce(ctx context.Context, p place) (db.EffectiveSettings, error) {
	if p.server {
		return db.ChannelSettingsInForce(ctx, c.pool, p.guildID, "", "")
	}
	return db.ChannelSettingsInForce(ctx, c.pool, p.guildID, p.channelID, p.parentID)
}

// save stores u for the command op; false (logged) when it could not.
func (c *channelCommands) save(ctx context.Context, op string, p place, u db.ChannelSettingUpdate) bool {
	if _, err := db.UpdateChannelSetting(ctx, c.pool, u); err != nil {
		c.log.Error(op, "guild_id", p.guildID, "channel_id", p.channelID, "err", err)
		return false
	}
	return true
}

// settingsOf is inForce for the command op; false (logged) when it could
// not be read.
func (c *channelCommands) settingsOf(ctx context.Context, op string, p place) (db.EffectiveSettings, bool) {
	e, err := c.inForce(ctx, p)
	if err != nil {
		c.log.Error(op, "guild_id", p.guildID, "channel_id", p.channelID, "err", err)
		return e, false
	}
	return e, true
}

// sourceName says in words where a value in force comes from, as seen from
// p (a thread's FromChannel is its parent channel).
func sourceName(from string, p place) string {
	switch from {
	case db.FromThread:
		return "このスレッドの設定 (thread)"
	case db.FromChannel:
		if p.parentID != "" {
			return "親チャンネルの設定 (channel)"
		}
		if p.guildID == "" {
			return "この DM の設定 (channel)"
		}
		return "このチャンネルの設定 (channel)"
	case db.FromServer:
		return "サーバーの既定 (server)"
	}
	return "よろずの既定 (default)"
}

// subcommand is the subcommand of i with its options by name.
func subcommand(i *discordgo.InteractionCreate) (string, map[string]*discordgo.ApplicationCommandInteractionDataOption) {
	data := i.ApplicationCommandData()
	if len(data.Options) == 0 {
		return "", nil
	}
	sub := data.Options[0]
	opts := map[string]*discordgo.ApplicationCommandInteractionDataOption{}
	for _, o := range sub.Options {
		opts[o.Name] = o
	}
	return sub.Name, opts
}

func stringOption(opts map[string]*discordgo.ApplicationCommandInteractionDataOption, name string) string {
	if o, ok := opts[name]; ok && o.Type == discordgo.ApplicationCommandOptionString {
		return strings.TrimSpace(o.StringValue())
	}
	return ""
}

// request is what a /persona or /model interaction asks: its subcommand
// (show, set or reset), options and place, or a reply refusing it.
func (c *channelCommands) request(ctx context.Context, i *discordgo.InteractionCreate) (string, map[string]*discordgo.ApplicationCommandInteractionDataOption, place, string) {
	sub, opts := subcommand(i)
	if sub != "show" && sub != "set" && sub != "reset" {
		return sub, opts, place{}, "このコマンドには対応していません。"
	}
	if sub != "show" && !bot.CanManageChannels(i) {
		return sub, opts, place{}, notManagerReply
	}
	p, refusal := c.placeOf(ctx, i, stringOption(opts, "scope"))
	return sub, opts, p, refusal
}

const settingsFailedReply = "ごめんなさい、設定を読み書きできませんでした。しばらくしてからもう一度お試しください。"

func (c *channelCommands) personaReply(ctx context.Context, i *discordgo.InteractionCreate) string {
	sub, opts, p, refusal := c.request(ctx, i)
	if refusal != "" {
		return refusal
	}
	switch sub {
	case "set":
		text := stringOption(opts, "text")
		if text == "" {
			return "人格の文章を `text` に入れてください。"
		}
		if n := utf8.RuneCountInString(text); n > db.MaxPersonaChars {
			return fmt.Sprintf("人格は %d 文字までです (送られたのは %d 文字)。短くしてもう一度お試しください。", db.MaxPersonaChars, n)
		}
		u := p.update(bot.InteractionUser(i))
		u.Persona = &text
		if !c.save(ctx, "/persona set", p, u) {
			return settingsFailedReply
		}
		reply := fmt.Sprintf("%sの人格を設定しました (%d 文字)。次の返事から使います。", p.name(), utf8.RuneCountInString(text))
		if p.server {
			reply += "チャンネルやスレッドに独自の人格があれば、そちらが優先されます。"
		}
		return reply
	case "reset":
		u := p.update(bot.InteractionUser(i))
		u.Persona = new(string)
		if !c.save(ctx, "/persona reset", p, u) {
			return settingsFailedReply
		}
		e, ok := c.settingsOf(ctx, "/persona reset", p)
		if !ok {
			return settingsFailedReply
		}
		return fmt.Sprintf("%sの人格を解除しました。いまは%sが使われます。", p.name(), sourceName(e.PersonaFrom, p))
	}
	e, ok := c.settingsOf(ctx, "/persona show", p)
	if !ok {
		return settingsFailedReply
	}
	if e.PersonaFrom == db.FromDefault {
		return "いまの人格: " + sourceName(e.PersonaFrom, p) + "。このチャンネル用の人格は設定されていません。"
	}
	head := fmt.Sprintf("いまの人格 (%s):\n", sourceName(e.PersonaFrom, p))
	body := e.Persona
	if room := maxReplyRunes - utf8.RuneCountInString(head) - 1; utf8.RuneCountInString(body) > room {
		body = string([]rune(body)[:room-1]) + "…"
	}
	return head + body
}

func (c *channelCommands) modelReply(ctx context.Context, i *discordgo.InteractionCreate) string {
	sub, opts, p, refusal := c.request(ctx, i)
	if refusal != "" {
		return refusal
	}
	switch sub {
	case "set":
		name := stringOption(opts, "name")
		if name == "" {
			return "モデル名を `name` に入れてください。"
		}
		if reply := c.checkModel(ctx, name); reply != "" {
			return reply
		}
		u := p.update(bot.InteractionUser(i))
		u.Model = &name
		if !c.save(ctx, "/model set", p, u) {
			return settingsFailedReply
		}
		reply := fmt.Sprintf("%sのモデルを %s にしました。次の返事から使います (リマインダーは REMINDER_MODEL のままです)。", p.name(), name)
		if p.server {
			reply += "チャンネルやスレッドに独自のモデルがあれば、そちらが優先されます。"
		}
		return reply
	case "reset":
		u := p.update(bot.InteractionUser(i))
		u.Model = new(string)
		if !c.save(ctx, "/model reset", p, u) {
			return settingsFailedReply
		}
		e, ok := c.settingsOf(ctx, "/model reset", p)
		if !ok {
			return settingsFailedReply
		}
		return fmt.Sprintf("%sのモデルを解除しました。いまは%s の %s が使われます。", p.name(), sourceName(e.ModelFrom, p), c.modelOr(e.Model))
	}
	e, ok := c.settingsOf(ctx, "/model show", p)
	if !ok {
		return settingsFailedReply
	}
	return fmt.Sprintf("いまのモデル: %s (%s)", c.modelOr(e.Model), sourceName(e.ModelFrom, p))
}

func (c *channelCommands) modelOr(model string) string {
	if model != "" {
		return model
	}
	return c.defaultModel()
}

// checkModel returns why name cannot be set ("" when Ollama has it).
func (c *channelCommands) checkModel(ctx context.Context, name string) string {
	lctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	err := llm.CheckInstalled(lctx, c.models, name)
	if missing, ok := llm.MissingModel(err); ok {
		return fmt.Sprintf("モデル %s はインストールされていません。サーバーで `%s` を実行してから、もう一度設定してください。", name, missing.PullCommand())
	}
	if err != nil {
		c.log.Warn("/model set: list models", "err", err)
		return "Ollama に接続できないため、モデルがあるか確かめられませんでした。しばらくしてからもう一度お試しください。"
	}
	return ""
}

// modelChoices are the installed models that contain what the user has
// typed so far.
func (c *channelCommands) modelChoices(ctx context.Context, i *discordgo.InteractionCreate) []*discordgo.ApplicationCommandOptionChoice {
	typed := ""
	_, opts := subcommand(i)
	for _, o := range opts {
		if o.Focused {
			typed = strings.ToLower(strings.TrimSpace(fmt.Sprint(o.Value)))
		}
	}
	names, err := llm.InstalledModels(ctx, c.models)
	if err != nil {
		c.log.Warn("model autocomplete: list models", "err", err)
		return nil
	}
	var out []*discordgo.ApplicationCommandOptionChoice
	for _, n := range names {
		if strings.Contains(strings.ToLower(n), typed) {
			out = append(out, &discordgo.ApplicationCommandOptionChoice{Name: n, Value: n})
		}
	}
	return out
}

// channelSettings looks up what a Discord turn's channel has set.
type channelSettings struct {
	pool *pgxpool.Pool
	log  *slog.Logger
}

// apply gives a Discord turn its channel's persona, and its model unless
// the turn is routed to reminders: those keep REMINDER_MODEL, chosen for
// reliable tool calls and date arithmetic. A lookup that fails leaves the
// turn as it was.
func (c channelSettings) apply(ctx context.Context, req chat.Request, route string) chat.Request {
	if c.pool == nil || req.Source != "discord" || req.ChannelID == "" {
		return req
	}
	e, err := db.ChannelSettingsInForce(ctx, c.pool, req.GuildID, req.ChannelID, req.ParentID)
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			c.log.WarnContext(ctx, "channel settings: yorozu's defaults apply", "channel_id", req.ChannelID, "err", err)
		}
		return req
	}
	if req.Persona == "" {
		req.Persona = e.Persona
	}
	if req.Model == "" && route != "reminder" {
		req.Model = e.Model
	}
	return req
}
