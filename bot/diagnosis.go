package bot

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"syscall"

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
// Channels, Send Messages, Send Messages in Threads, Read Message History.
const InvitePermissions = discordgo.PermissionViewChannel | discordgo.PermissionSendMessages |
	discordgo.PermissionSendMessagesInThreads | discordgo.PermissionReadMessageHistory

// InviteURL is the link that adds the application to a server with the bot
// and applications.commands scopes and InvitePermissions.
func InviteURL(appID string) string {
	q := url.Values{}
	q.Set("client_id", appID)
	q.Set("scope", "bot applications.commands")
	q.Set("permissions", strconv.FormatInt(InvitePermissions, 10))
	return "https://discord.com/oauth2/authorize?" + q.Encode()
}

// diagnoseConnect explains why connecting to the gateway failed.
func diagnoseConnect(err error) Diagnosis {
	var closeErr *websocket.CloseError
	var rest *discordgo.RESTError
	switch {
	case errors.As(err, &closeErr) && closeErr.Code == closeDisallowedIntents:
		return disallowedIntents()
	case errors.As(err, &closeErr) && closeErr.Code == closeAuthenticationFailed,
		errors.As(err, &rest) && rest.Response != nil && rest.Response.StatusCode == 401,
		errors.Is(err, discordgo.ErrUnauthorized):
		return invalidToken()
	case unreachable(err):
		return Diagnosis{
			Code:    DiagUnreachable,
			Message: fmt.Sprintf("Discord に接続できません / cannot reach Discord: %v", err),
			Fix:     "ネットワークと DISCORD_API_BASE を確認してください (再接続を続けます) / check the network and DISCORD_API_BASE (retrying)",
		}
	}
	return Diagnosis{
		Code:    DiagGateway,
		Message: fmt.Sprintf("Discord ゲートウェイに接続できません / cannot connect to the Discord gateway: %v", err),
		Fix:     "再接続を続けます / retrying",
	}
}

func disallowedIntents() Diagnosis {
	return Diagnosis{
		Code:    DiagDisallowedIntents,
		Message: "Discord が Message Content Intent を拒否しました (close 4014) / Discord refused the Message Content intent (close 4014)",
		Fix: "Developer Portal → Bot → Privileged Gateway Intents で Message Content Intent を有効にしてください / " +
			"enable Message Content Intent under Developer Portal → Bot → Privileged Gateway Intents (then send SIGHUP or wait a few minutes)",
		OperatorMustAct: true,
	}
}

func invalidToken() Diagnosis {
	return Diagnosis{
		Code:    DiagInvalidToken,
		Message: "Discord がトークンを受け付けません (4004/401) / Discord rejected the bot token (4004/401)",
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
	defer unrouteDiscordgoLogs(b.dgLog)
	if err := b.connectOnce(ctx); err != nil {
		return []Diagnosis{diagnoseConnect(err)}, nil
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

// CheckChannel reports whether the bot can see channelID (a scheduled
// post's WEATHER_CHANNEL_ID or TIPS_CHANNEL_ID) over REST; nil when it can.
// It posts nothing. Whether the bot may also send there depends on the
// channel's permission overwrites, which Discord tells only by trying.
func (b *Bot) CheckChannel(ctx context.Context, channelID string) *Diagnosis {
	ctx, cancel := context.WithTimeout(ctx, restTimeout)
	defer cancel()
	_, err := b.session.Channel(channelID, discordgo.WithContext(ctx))
	if err == nil {
		return nil
	}
	var rest *discordgo.RESTError
	if errors.As(err, &rest) && rest.Response != nil {
		switch rest.Response.StatusCode {
		case 401:
			d := invalidToken()
			return &d
		case 403, 404:
			return &Diagnosis{
				Code:    DiagChannel,
				Message: fmt.Sprintf("チャンネル %s が見つからないか、ボットから見えません / channel %s does not exist or the bot cannot see it (%s)", channelID, channelID, errorSummary(err)),
				Fix:     "チャンネル ID を確認し、ボットに「チャンネルを見る」「メッセージを送信」を許可してください / check the channel id and give the bot View Channel and Send Messages there",
			}
		}
	}
	d := diagnoseConnect(err)
	return &d
}

// noResponder answers nothing: Diagnose never receives a message.
type noResponder struct{}

func (noResponder) Respond(context.Context, chat.Request, func(llm.Event) error) error { return nil }
