package bot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"

	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/llm"
)

// Diagnosis is one known way the Discord side goes wrong, said so that an
// operator can fix it. Logs, /readyz, the admin page and `yorozu doctor`
// show the same value.
type Diagnosis struct {
	// Code is a stable name: one of the Diag* constants.
	Code string
	// Message says what is wrong, in Japanese and English, on one line.
	Message string
	// Fix says what to do about it, in Japanese and English.
	Fix string
	// OperatorMustAct is true when retrying cannot help until someone
	// changes a setting: yorozu then retries only every few minutes (or on
	// SIGHUP) instead of with a short backoff.
	OperatorMustAct bool
}

// Diagnosis codes.
const (
	DiagUnreachable       = "discord_unreachable"
	DiagGateway           = "discord_gateway"
	DiagDisallowedIntents = "discord_disallowed_intents"
	DiagInvalidToken      = "discord_invalid_token"
	DiagNoGuild           = "discord_no_guild"
	DiagCommands          = "discord_commands_not_registered"
	DiagChannel           = "discord_channel"
	DiagChannelPerms      = "discord_channel_permissions"
	DiagWebhook           = "discord_webhook"
)

// String is the diagnosis as one log line.
func (d Diagnosis) String() string {
	if d.Fix == "" {
		return d.Message
	}
	return d.Message + " → " + d.Fix
}

// Gateway close codes Discord uses for settings only the operator can change.
const (
	closeAuthenticationFailed = 4004
	closeDisallowedIntents    = 4014
)

// InvitePermissions are the permissions README lists for the invite: View
// Channels, Send Messages, Send Messages in Threads, Read Message History
// and Attach Files (the weather chart is a file).
const InvitePermissions = discordgo.PermissionViewChannel | discordgo.PermissionSendMessages |
	discordgo.PermissionSendMessagesInThreads | discordgo.PermissionReadMessageHistory |
	discordgo.PermissionAttachFiles

// PostPermissions are what the bot needs in a scheduled post's channel:
// View Channels, Send Messages and Attach Files.
const PostPermissions = discordgo.PermissionViewChannel | discordgo.PermissionSendMessages |
	discordgo.PermissionAttachFiles

// permissionNames names the permissions yorozu asks for, in Japanese and
// English as Discord's settings show them.
var permissionNames = []struct {
	bit  int64
	name string
}{
	{discordgo.PermissionViewChannel, "チャンネルを見る / View Channels"},
	{discordgo.PermissionSendMessages, "メッセージを送信 / Send Messages"},
	{discordgo.PermissionSendMessagesInThreads, "スレッドでメッセージを送信 / Send Messages in Threads"},
	{discordgo.PermissionReadMessageHistory, "メッセージ履歴を読む / Read Message History"},
	{discordgo.PermissionAttachFiles, "ファイルを添付 / Attach Files"},
}

// PermissionNames lists the names of the permissions in perms that yorozu
// asks for, comma-separated.
func PermissionNames(perms int64) string {
	var names []string
	for _, p := range permissionNames {
		if perms&p.bit != 0 {
			names = append(names, p.name)
		}
	}
	return strings.Join(names, ", ")
}

// InviteURL is the link that adds the application to a server with the bot
// and applications.commands scopes and InvitePermissions.
func InviteURL(appID string) string {
	q := url.Values{}
	q.Set("client_id", appID)
	q.Set("scope", "bot applications.commands")
	q.Set("permissions", strconv.FormatInt(InvitePermissions, 10))
	return "https://discord.com/oauth2/authorize?" + q.Encode()
}

// diagnoseConnect explains why connecting to Discord failed. base is the
// DISCORD_API_BASE in use, named in the diagnosis as the place that could
// not be reached; "" when err itself says where.
func diagnoseConnect(err error, base string) Diagnosis {
	var closeErr *websocket.CloseError
	var rest *discordgo.RESTError
	switch {
	case errors.As(err, &closeErr) && closeErr.Code == closeDisallowedIntents:
		return disallowedIntents()
	case errors.As(err, &closeErr) && closeErr.Code == closeAuthenticationFailed,
		errors.As(err, &rest) && rest.Response != nil && rest.Response.StatusCode == 401,
		errors.Is(err, discordgo.ErrUnauthorized):
		return invalidToken()
	}
	ja, en := "", ""
	if base != "" {
		ja, en = " ("+base+")", " at "+base
	}
	if unreachable(err) {
		return Diagnosis{
			Code:    DiagUnreachable,
			Message: fmt.Sprintf("Discord%s に接続できません / cannot reach Discord%s: %v", ja, en, err),
			Fix:     "ネットワークと DISCORD_API_BASE を確認してください（再接続を続けます） / check the network and DISCORD_API_BASE (retrying)",
		}
	}
	return Diagnosis{
		Code:    DiagGateway,
		Message: fmt.Sprintf("Discord ゲートウェイ%s に接続できません / cannot connect to the Discord gateway%s: %v", ja, en, err),
		Fix:     "再接続を続けます / retrying",
	}
}

// rebaseURLError makes a failed request's URL in err read base instead of
// https://discord.com/: discordgo builds every URL on discord.com and the
// rebasing transport redirects it, but http.Client reports the URL it was
// asked for, which would send an operator of a Discord-compatible server
// looking at discord.com. The error is this attempt's own, so it is
// changed in place, before anything wraps it (a wrapping error keeps its
// text from when it was made).
func rebaseURLError(err error, base string) {
	var ue *url.Error
	if base == "" || !errors.As(err, &ue) {
		return
	}
	if rest, ok := strings.CutPrefix(ue.URL, "https://"+discordHost+"/"); ok {
		ue.URL = strings.TrimSuffix(base, "/") + "/" + rest
	}
}

func disallowedIntents() Diagnosis {
	return Diagnosis{
		Code:    DiagDisallowedIntents,
		Message: "Discord が Message Content Intent を拒否しました（close 4014） / Discord refused the Message Content intent (close 4014)",
		Fix: "Developer Portal → Bot → Privileged Gateway Intents で Message Content Intent を有効にしてください / " +
			"enable Message Content Intent under Developer Portal → Bot → Privileged Gateway Intents (then send SIGHUP or wait a few minutes)",
		OperatorMustAct: true,
	}
}

func invalidToken() Diagnosis {
	return Diagnosis{
		Code:    DiagInvalidToken,
		Message: "Discord がトークンを受け付けません（4004/401） / Discord rejected the bot token (4004/401)",
		Fix: "トークンが間違っているかリセットされています。Developer Portal → Bot → Reset Token で新しいトークンを DISCORD_TOKEN に設定してください / " +
			"the token is wrong or was reset: put a new one from Developer Portal → Bot → Reset Token into DISCORD_TOKEN and restart",
		OperatorMustAct: true,
	}
}

func noGuild(appID string) Diagnosis {
	return Diagnosis{
		Code:    DiagNoGuild,
		Message: "ボットがどのサーバーにも参加していません / the bot is in no server",
		Fix:     "招待してください / invite it: " + InviteURL(appID),
	}
}

// unreachable reports a network-level failure: refused, unresolvable, no
// route, timed out.
func unreachable(err error) bool {
	var netErr net.Error
	var dnsErr *net.DNSError
	var opErr *net.OpError
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH) ||
		errors.As(err, &dnsErr) || errors.As(err, &opErr) || (errors.As(err, &netErr) && netErr.Timeout())
}

// Diagnose connects to Discord once, as the bot would, and reports what
// stands in its way: Discord unreachable, the token or the Message Content
// intent refused, a bot in no server. It registers no command, answers
// nothing and posts nothing, and closes the connection before it returns.
// No diagnoses means the gateway is fine. opts.Responder may be nil.
func Diagnose(ctx context.Context, opts Options) ([]Diagnosis, error) {
	if opts.Responder == nil {
		opts.Responder = noResponder{}
	}
	b, err := New(opts)
	if err != nil {
		return nil, err
	}
	// Events that arrive while connected are dropped, as while stopping:
	// a mention in that moment is the running bot's to answer.
	b.mu.Lock()
	b.stopping = true
	b.mu.Unlock()
	defer unrouteDiscordgoLogs(b.dgLog)
	if err := b.connectOnce(ctx); err != nil {
		return []Diagnosis{diagnoseConnect(err, b.opts.APIBase)}, nil
	}
	defer b.session.Close()
	b.mu.Lock()
	guilds, appID := len(b.guilds), b.appID
	b.mu.Unlock()
	if guilds == 0 {
		return []Diagnosis{noGuild(appID)}, nil
	}
	return nil, nil
}

// CheckChannel reports whether the bot can post in channelID (a scheduled
// post's WEATHER_CHANNEL_ID or TIPS_CHANNEL_ID): the channel exists, the bot
// sees it, and its permissions there (roles and the channel's overwrites,
// read over REST) include need, e.g. PostPermissions. Nil when it can. It
// posts nothing.
func (b *Bot) CheckChannel(ctx context.Context, channelID string, need int64) *Diagnosis {
	ctx, cancel := context.WithTimeout(ctx, restTimeout)
	defer cancel()
	ch, err := b.session.Channel(channelID, discordgo.WithContext(ctx))
	if err != nil {
		return channelDiagnosis(channelID, err, b.opts.APIBase)
	}
	if ch.GuildID == "" {
		return nil // a DM channel: its only other user is the bot's to write to
	}
	me := b.UserID()
	if me == "" {
		u, err := b.session.User("@me", discordgo.WithContext(ctx))
		if err != nil {
			return channelDiagnosis(channelID, err, b.opts.APIBase)
		}
		me = u.ID
	}
	perms, err := b.channelPermissions(ctx, ch, me)
	if err != nil {
		return channelDiagnosis(channelID, err, b.opts.APIBase)
	}
	if missing := need &^ perms; missing != 0 {
		names := PermissionNames(missing)
		return &Diagnosis{
			Code:    DiagChannelPerms,
			Message: fmt.Sprintf("ボットはチャンネル %s に投稿できません（権限がありません: %s） / the bot may not post in channel %s (missing: %s)", channelID, names, channelID, names),
			Fix: "サーバー設定 → ロール、またはチャンネルの編集 → 権限で、ボットに次の権限を許可してください / " +
				"allow the bot these in Server Settings → Roles or the channel's Edit Channel → Permissions: " + names,
		}
	}
	return nil
}

// channelPermissions computes userID's permissions in ch from the server's
// roles, the member's roles and the channel's overwrites, all read over REST
// now: the gateway's cache may hold a server without its roles.
func (b *Bot) channelPermissions(ctx context.Context, ch *discordgo.Channel, userID string) (int64, error) {
	g, err := b.session.Guild(ch.GuildID, discordgo.WithContext(ctx))
	if err != nil {
		return 0, err
	}
	m, err := b.session.GuildMember(ch.GuildID, userID, discordgo.WithContext(ctx))
	if err != nil {
		return 0, err
	}
	// A State of its own computes the permissions as discordgo does.
	st := discordgo.NewState()
	if err := st.GuildAdd(g); err != nil {
		return 0, err
	}
	if err := st.ChannelAdd(ch); err != nil {
		return 0, err
	}
	m.GuildID = ch.GuildID
	if err := st.MemberAdd(m); err != nil {
		return 0, err
	}
	return st.UserChannelPermissions(userID, ch.ID)
}

func channelDiagnosis(channelID string, err error, base string) *Diagnosis {
	rebaseURLError(err, base)
	var rest *discordgo.RESTError
	if errors.As(err, &rest) && rest.Response != nil {
		switch rest.Response.StatusCode {
		case http.StatusUnauthorized:
			d := invalidToken()
			return &d
		case http.StatusForbidden, http.StatusNotFound:
			return &Diagnosis{
				Code:    DiagChannel,
				Message: fmt.Sprintf("チャンネル %s が見つからないか、ボットから見えません / channel %s does not exist or the bot cannot see it (%s)", channelID, channelID, errorSummary(err)),
				Fix:     "チャンネル ID を確認し、ボットに「チャンネルを見る」「メッセージを送信」を許可してください / check the channel id and give the bot View Channels and Send Messages there",
			}
		}
	}
	d := diagnoseConnect(err, base)
	return &d
}

// CheckWebhook reports whether the webhook at webhookURL (a scheduled post's
// WEATHER_WEBHOOK_URL or TIPS_WEBHOOK_URL) exists, by reading it with GET,
// which posts nothing; nil when it does. client nil means a client with a
// 20 s timeout. The URL's token never appears in the diagnosis.
func CheckWebhook(ctx context.Context, client *http.Client, webhookURL string) *Diagnosis {
	if client == nil {
		client = &http.Client{Timeout: 20 * time.Second}
	}
	gone := &Diagnosis{
		Code:    DiagWebhook,
		Message: "Webhook が見つかりません（削除されたか、URL が違います） / the webhook does not exist (deleted, or the URL is wrong)",
		Fix: "チャンネルの編集 → 連携サービス → ウェブフック で URL をコピーし直して設定してください / " +
			"copy the URL again from Edit Channel → Integrations → Webhooks and set it",
	}
	u, err := url.Parse(webhookURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || !strings.Contains(u.Path, "/webhooks/") {
		return gone
	}
	ctx, cancel := context.WithTimeout(ctx, restTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return gone
	}
	resp, err := client.Do(req)
	if err != nil {
		d := diagnoseConnect(fmt.Errorf("GET webhook on %s: %w", u.Host, errors.Unwrap(err)), "")
		return &d
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch {
	case resp.StatusCode == http.StatusOK:
		return nil
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		gone.Message += fmt.Sprintf(" (HTTP %d)", resp.StatusCode)
		return gone
	}
	return &Diagnosis{
		Code:    DiagWebhook,
		Message: fmt.Sprintf("Webhook を確認できません / could not check the webhook: GET on %s: %s", u.Host, resp.Status),
		Fix:     "しばらくしてからもう一度確かめてください / try again later",
	}
}

// noResponder answers nothing: Diagnose never receives a message.
type noResponder struct{}

func (noResponder) Respond(context.Context, chat.Request, func(llm.Event) error) error { return nil }
