package commands

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm"
)

// /persona and /model: a channel's (thread's, server's) persona and model.

// notManagerReply refuses /persona and /model set or reset to someone
// without Manage Channels.
const notManagerReply = "ペルソナやモデルを変えられるのは「チャンネルの管理」権限を持つ人だけです。"

const settingsFailedReply = "ごめんなさい、設定を読み書きできませんでした。しばらくしてからもう一度お試しください。"

// listTimeout bounds asking Ollama which models it has.
const listTimeout = 5 * time.Second

// ThreadParents tells a thread's parent channel ("" when channelID is not
// a thread); *bot.Bot satisfies it.
type ThreadParents interface {
	ThreadParent(ctx context.Context, channelID string) (string, error)
}

// ModelLister lists the models of the model servers; *llm.Pool satisfies
// it. List has every model (a name to set is checked against it),
// ChatModels those offered for chat, with the servers that have each.
type ModelLister interface {
	llm.ModelLister
	ChatModels(ctx context.Context) ([]llm.ModelChoice, error)
}

// Channels is what /persona and /model read and change.
type Channels struct {
	DB      db.Querier
	Models  ModelLister // which models the model servers have
	Parents ThreadParents
	// DefaultModel is the chat model in force when nothing is set
	// (DEFAULT_MODEL, or the admin page's setting).
	DefaultModel func() string
	// Saved learns each place's settings as just stored, so that they are
	// in force at once (the turns' persona and model, the bot's mode): the
	// admin page's own hook (web.Deps.ChannelSaved); optional.
	Saved func(ctx context.Context, s db.ChannelSetting)
	Log   *slog.Logger
	// Logs turns channels' logs on and off (/channel log); optional
	// (without it /channel log says it is not supported).
	Logs ChannelLogs
	// LogRetention is how long the channel log keeps a message
	// (CHANNEL_LOG_RETENTION), told when it is turned on.
	LogRetention time.Duration
}

func scopeOption(what string) Option {
	return Option{
		Type: String, Name: "scope",
		Description:   "Where: this channel or thread (default), or the whole server's default",
		DescriptionJA: what + "の範囲：このチャンネル・スレッド（既定）か、サーバー全体の既定",
		Choices: []Choice{
			{Name: "channel", NameJA: "このチャンネル・スレッド", Value: "channel"},
			{Name: "server", NameJA: "サーバーの既定", Value: "server"},
		},
	}
}

// settingCommand declares /persona or /model: set (with the options given),
// show and reset, changing needing Manage Channels.
func settingCommand(name, desc, descJA, showJA string, set, reset Option) Command {
	set.Type, set.Name, set.Require = Subcommand, "set", ManageChannels
	reset.Type, reset.Name, reset.Require = Subcommand, "reset", ManageChannels
	return Command{
		Name: name, Description: desc, DescriptionJA: descJA,
		Options: []Option{set, {
			Type: Subcommand, Name: "show",
			Description:   "Show the " + name + " in force here and where it comes from",
			DescriptionJA: showJA,
		}, reset},
		Visible: ManageChannels,
		Refusal: notManagerReply,
	}
}

// Persona is /persona set|show|reset.
func (c *Channels) Persona() Command {
	cmd := settingCommand("persona", "This channel's persona (character and tone)", "このチャンネルでのよろずのペルソナ（口調や役柄）", "いまのペルソナとその設定元を表示",
		Option{
			Description:   "Set the persona (up to 2,000 characters)",
			DescriptionJA: "ペルソナを設定（2,000 文字まで）",
			Options: []Option{{
				Type: String, Name: "text", Required: true, MaxLength: db.MaxPersonaChars,
				Description:   "The persona, e.g. You are a cheerful pirate; end sentences with \"arr\"",
				DescriptionJA: "ペルソナの説明（例：あなたは陽気な海賊です。語尾は「だぜ」）",
			}, scopeOption("ペルソナ")},
		},
		Option{
			Description:   "Remove the persona set here (the parent's, the server's or yorozu's own applies)",
			DescriptionJA: "ここで設定したペルソナを解除（親チャンネル・サーバー・よろずの既定に戻る）",
			Options:       []Option{scopeOption("ペルソナ")},
		})
	cmd.Run = func(ctx context.Context, req Request) Reply { return Text(c.personaReply(ctx, req)) }
	return cmd
}

// Model is /model set|show|reset, with the installed models offered as
// the name is typed.
func (c *Channels) Model() Command {
	cmd := settingCommand("model", "The model that answers in this channel", "このチャンネルで答えるモデル", "いまのモデルとその設定元を表示",
		Option{
			Description:   "Set the model (one Ollama has installed)",
			DescriptionJA: "モデルを設定（Ollama にインストール済みのもの）",
			Options: []Option{{
				Type: String, Name: "name", Required: true, Autocomplete: true, MaxLength: 200,
				Description:   "Model name, e.g. qwen3:8b",
				DescriptionJA: "モデル名（例：qwen3:8b）",
			}, scopeOption("モデル")},
		},
		Option{
			Description:   "Remove the model set here",
			DescriptionJA: "ここで設定したモデルを解除",
			Options:       []Option{scopeOption("モデル")},
		})
	cmd.Run = func(ctx context.Context, req Request) Reply { return Text(c.modelReply(ctx, req)) }
	cmd.Complete = c.modelChoices
	return cmd
}

// place is where a command's setting goes: a channel (thread, DM) or a
// server's defaults.
type place struct {
	guildID, channelID, parentID string
	server                       bool // the server's defaults
}

// placeOf is where req asks a setting to go (its scope), or a reply that
// refuses it.
func (c *Channels) placeOf(ctx context.Context, req Request) (place, string) {
	p := place{guildID: req.GuildID, channelID: req.ChannelID}
	if req.String("scope") == "server" {
		if req.DM() {
			return p, "DM にはサーバーがありません。scope は付けずに使ってください。"
		}
		return place{guildID: req.GuildID, server: true}, ""
	}
	if !req.DM() {
		parent, err := c.Parents.ThreadParent(ctx, req.ChannelID)
		if err != nil {
			// Without the parent the thread's own value still applies;
			// only inheritance is lost for this reply.
			c.Log.Warn("thread parent of a command's channel", "channel_id", req.ChannelID, "err", err)
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

// save stores u for the command op; false (logged) when it could not.
func (c *Channels) save(ctx context.Context, op string, p place, u db.ChannelSettingUpdate) bool {
	saved, err := db.UpdateChannelSetting(ctx, c.DB, u)
	if err != nil {
		c.Log.Error(op, "guild_id", p.guildID, "channel_id", p.channelID, "err", err)
		return false
	}
	if c.Saved != nil {
		c.Saved(ctx, saved)
	}
	return true
}

// reset removes what the place has of one setting (clear says which) for
// the command op, and returns what is in force instead; false (logged) when
// it could not.
func (c *Channels) reset(ctx context.Context, op string, p place, by string, clear func(*db.ChannelSettingUpdate)) (db.EffectiveSettings, bool) {
	u := p.update(by)
	clear(&u)
	if !c.save(ctx, op, p, u) {
		return db.EffectiveSettings{}, false
	}
	return c.settingsOf(ctx, op, p)
}

// overridden is what a server default's confirmation adds: channels and
// threads with their own value keep it.
func (p place) overridden(what string) string {
	if !p.server {
		return ""
	}
	return "チャンネルやスレッドに独自の" + what + "があれば、そちらが優先されます。"
}

// settingsOf is what applies in the place (for a server: in a channel with
// nothing of its own), for the command op; false (logged) when it could
// not be read.
func (c *Channels) settingsOf(ctx context.Context, op string, p place) (db.EffectiveSettings, bool) {
	channel, parent := p.channelID, p.parentID
	if p.server {
		channel, parent = "", ""
	}
	e, err := db.ChannelSettingsInForce(ctx, c.DB, p.guildID, channel, parent)
	if err != nil {
		c.Log.Error(op, "guild_id", p.guildID, "channel_id", p.channelID, "err", err)
		return e, false
	}
	return e, true
}

// sourceName says in words where a value in force comes from, as seen from
// p (a thread's FromChannel is its parent channel).
func sourceName(from string, p place) string {
	switch from {
	case db.FromThread:
		return "このスレッドの設定（thread）"
	case db.FromChannel:
		if p.parentID != "" {
			return "親チャンネルの設定（channel）"
		}
		if p.guildID == "" {
			return "この DM の設定（channel）"
		}
		return "このチャンネルの設定（channel）"
	case db.FromServer:
		return "サーバーの既定（server）"
	}
	return "よろずの既定（default）"
}

// request is the place a /persona or /model use is about, or a reply
// refusing it. Who may change it the adapter checked already.
func (c *Channels) request(ctx context.Context, req Request) (place, string) {
	switch req.Subcommand {
	case "show", "set", "reset":
		return c.placeOf(ctx, req)
	}
	return place{}, unsupportedReply
}

func (c *Channels) personaReply(ctx context.Context, req Request) string {
	p, refusal := c.request(ctx, req)
	if refusal != "" {
		return refusal
	}
	switch req.Subcommand {
	case "set":
		text := req.String("text")
		if text == "" {
			return "ペルソナの文章を `text` に入れてください。"
		}
		if n := utf8.RuneCountInString(text); n > db.MaxPersonaChars {
			return fmt.Sprintf("ペルソナは %d 文字までです（送られたのは %d 文字）。短くしてもう一度お試しください。", db.MaxPersonaChars, n)
		}
		u := p.update(req.UserID)
		u.Persona = &text
		if !c.save(ctx, "/persona set", p, u) {
			return settingsFailedReply
		}
		return fmt.Sprintf("%sのペルソナを設定しました（%d 文字）。次の返事から使います。", p.name(), utf8.RuneCountInString(text)) + p.overridden("ペルソナ")
	case "reset":
		e, ok := c.reset(ctx, "/persona reset", p, req.UserID, func(u *db.ChannelSettingUpdate) { u.Persona = new(string) })
		if !ok {
			return settingsFailedReply
		}
		return fmt.Sprintf("%sのペルソナを解除しました。いまは%sが使われます。", p.name(), sourceName(e.PersonaFrom, p))
	}
	e, ok := c.settingsOf(ctx, "/persona show", p)
	if !ok {
		return settingsFailedReply
	}
	if e.PersonaFrom == db.FromDefault {
		return "いまのペルソナ：" + sourceName(e.PersonaFrom, p) + "。このチャンネル用のペルソナは設定されていません。"
	}
	head := fmt.Sprintf("いまのペルソナ：%s\n", sourceName(e.PersonaFrom, p))
	body := e.Persona
	if room := maxReplyRunes - utf8.RuneCountInString(head) - 1; utf8.RuneCountInString(body) > room {
		body = string([]rune(body)[:room-1]) + "…"
	}
	return head + body
}

func (c *Channels) modelReply(ctx context.Context, req Request) string {
	p, refusal := c.request(ctx, req)
	if refusal != "" {
		return refusal
	}
	switch req.Subcommand {
	case "set":
		name := req.String("name")
		if name == "" {
			return "モデル名を `name` に入れてください。"
		}
		if reply := c.checkModel(ctx, name); reply != "" {
			return reply
		}
		u := p.update(req.UserID)
		u.Model = &name
		if !c.save(ctx, "/model set", p, u) {
			return settingsFailedReply
		}
		return fmt.Sprintf("%sのモデルを %s にしました。次の返事から使います（リマインダーは REMINDER_MODEL のままです）。", p.name(), name) + p.overridden("モデル")
	case "reset":
		e, ok := c.reset(ctx, "/model reset", p, req.UserID, func(u *db.ChannelSettingUpdate) { u.Model = new(string) })
		if !ok {
			return settingsFailedReply
		}
		return fmt.Sprintf("%sのモデルを解除しました。いまは%sの %s が使われます。", p.name(), sourceName(e.ModelFrom, p), c.modelOr(e.Model))
	}
	e, ok := c.settingsOf(ctx, "/model show", p)
	if !ok {
		return settingsFailedReply
	}
	return fmt.Sprintf("いまのモデル：%s、%s", c.modelOr(e.Model), sourceName(e.ModelFrom, p))
}

func (c *Channels) modelOr(model string) string {
	if model != "" {
		return model
	}
	return c.DefaultModel()
}

// checkModel returns why name cannot be set ("" when Ollama has it).
func (c *Channels) checkModel(ctx context.Context, name string) string {
	lctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	err := llm.CheckInstalled(lctx, c.Models, name)
	if missing, ok := llm.MissingModel(err); ok {
		if missing.Server != "" {
			return fmt.Sprintf("モデル %s はモデルサーバーにありません。サーバーにあるモデル名（候補に出るもの）を設定してください。", name)
		}
		return fmt.Sprintf("モデル %s はインストールされていません。サーバーで `%s` を実行してから、もう一度設定してください。", name, missing.PullCommand())
	}
	if err != nil {
		c.Log.Warn("/model set: list models", "err", err)
		return "モデルサーバーに接続できないため、モデルがあるか確かめられませんでした。しばらくしてからもう一度お試しください。"
	}
	return ""
}

// modelChoices are the models of every server offered for chat that
// contain what the user has typed so far, each shown with the servers that
// have it when there are several.
func (c *Channels) modelChoices(ctx context.Context, req Request) []Choice {
	typed := strings.ToLower(req.String(req.Focused))
	models, err := c.Models.ChatModels(ctx)
	if err != nil {
		c.Log.Warn("model autocomplete: list models", "err", err)
		return nil
	}
	var out []Choice
	for _, m := range models {
		if strings.Contains(strings.ToLower(m.Name), typed) {
			out = append(out, Choice{Name: m.Label, Value: m.Name})
		}
	}
	return out
}
