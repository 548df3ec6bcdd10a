package bot

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/commands"
	"github.com/yorozu-bot/yorozu/internal/logtest"
	"github.com/yorozu-bot/yorozu/llm"
)

// startFaulty starts a bot against a fake Discord that prep has set up
// (faults included) and returns without requiring a connection.
func startFaulty(t *testing.T, prep func(*discordtest.Server), mod func(*Options)) (*harness, *logtest.Buffer) {
	t.Helper()
	srv := discordtest.New(t)
	if prep != nil {
		prep(srv)
	}
	logs := &logtest.Buffer{}
	resp := &fakeResponder{}
	opts := Options{
		Token:         "test-token",
		APIBase:       srv.URL(),
		Responder:     resp,
		Logger:        slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo})),
		EditInterval:  20 * time.Millisecond,
		RetryMin:      20 * time.Millisecond,
		RetryMax:      200 * time.Millisecond,
		OperatorRetry: time.Hour,
	}
	if mod != nil {
		mod(&opts)
	}
	b, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	if err := b.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Stop)
	return &harness{t: t, srv: srv, bot: b, resp: resp, ctx: ctx, logs: logs}, logs
}

// waitStatus polls the bot's status until cond holds.
func (h *harness) waitStatus(cond func(Status) bool) Status {
	h.t.Helper()
	for {
		st := h.bot.Status()
		if cond(st) {
			return st
		}
		select {
		case <-h.ctx.Done():
			h.t.Fatalf("status never as wanted; last %+v", st)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func nonceOf(c discordtest.Call) (string, bool) {
	var body struct {
		Nonce        string `json:"nonce"`
		EnforceNonce bool   `json:"enforce_nonce"`
	}
	json.Unmarshal(c.Body, &body)
	return body.Nonce, body.EnforceNonce
}

// A message POST whose answer is lost is sent again with the same nonce,
// and the answer shows once.
func TestLostCreateResponseShowsOnce(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		how  discordtest.Loss
	}{
		{"server error after create", discordtest.LossServerError},
		{"unreadable answer", discordtest.LossGarbage},
		{"no answer in time", discordtest.LossTimeout},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, _ := startFaulty(t, func(s *discordtest.Server) {
				s.LoseCreateResponses(chanID, 2, tc.how)
			}, func(o *Options) {
				if tc.how == discordtest.LossTimeout {
					o.HTTPClient = &http.Client{Timeout: 500 * time.Millisecond}
				}
			})
			h.resp.script = say("一度だけ表示されます。")
			h.mention(chanID, "42", "こんにちは")
			// The message exists after the first POST; the bot learns it
			// with the third, which Discord answers with that message.
			var posts []discordtest.Call
			h.srv.WaitFor(h.ctx, func() bool {
				posts = callsTo(h.srv.Calls(), "POST", "/channels/"+chanID+"/messages")
				return len(posts) >= 3
			})
			msgs := h.waitText(chanID, "一度だけ表示されます。")
			first, _ := nonceOf(posts[0])
			for _, p := range posts {
				if n, enforced := nonceOf(p); n != first || !enforced || n == "" {
					t.Errorf("POST nonce %q enforced %v, want %q enforced", n, enforced, first)
				}
			}
			if msgs[0].Nonce != first || !msgs[0].EnforceNonce {
				t.Errorf("message nonce %q enforced %v", msgs[0].Nonce, msgs[0].EnforceNonce)
			}
		})
	}
}

// Every message the bot creates carries a nonce Discord enforces: replies,
// continuation parts, notices and waiting notices.
func TestEveryMessageCarriesANonce(t *testing.T) {
	t.Parallel()
	h := start(t, func(o *Options) { o.RateLimit = 2 })
	release := make(chan struct{})
	h.resp.script = func(ctx context.Context, req chat.Request, emit func(llm.Event) error) error {
		if req.Text == "長く" {
			<-release
			return say(strings.Repeat("長い答えの文です。", 400))(ctx, req, emit)
		}
		return say("短く。")(ctx, req, emit)
	}
	h.mention(chanID, "1", "長く")
	h.srv.WaitFor(h.ctx, func() bool { return len(h.resp.requests()) == 1 })
	h.mention(chanID, "2", "短く")
	h.waitBot(chanID, func(ms []discordtest.Message) bool { return len(ms) == 1 }) // the waiting notice
	h.mention(chanID, "1", "")                                                     // an empty mention: a notice
	h.mention(chanID, "1", "3回目")                                                  // over the rate limit: a notice
	close(release)
	msgs := h.waitBot(chanID, func(ms []discordtest.Message) bool {
		n := 0
		for _, m := range ms {
			if strings.HasPrefix(m.Content, "長い") {
				n++
			}
		}
		return n >= 2 && len(ms) == n+3
	})
	seen := map[string]bool{}
	for _, m := range msgs {
		if m.Nonce == "" || !m.EnforceNonce {
			t.Errorf("message %q has nonce %q enforced %v", m.Content[:min(len(m.Content), 30)], m.Nonce, m.EnforceNonce)
		}
		if seen[m.Nonce] {
			t.Errorf("nonce %q used twice", m.Nonce)
		}
		seen[m.Nonce] = true
	}
}

// When Discord refuses every edit, the answer still arrives whole: what the
// first message does not show goes out as new messages.
func TestRefusedEditsPostTheRest(t *testing.T) {
	t.Parallel()
	t.Run("short", func(t *testing.T) {
		t.Parallel()
		h, _ := startFaulty(t, func(s *discordtest.Server) { s.RefuseEdits(chanID, true) }, nil)
		h.resp.script = func(ctx context.Context, _ chat.Request, emit func(llm.Event) error) error {
			emit(llm.Text{Text: "前半、"})
			h.waitBot(chanID, func(ms []discordtest.Message) bool { return len(ms) == 1 })
			emit(llm.Text{Text: "後半です。"})
			return emit(llm.Done{})
		}
		h.mention(chanID, "42", "話して")
		h.waitText(chanID, "前半、", "後半です。")
	})
	t.Run("long, with a tool status first", func(t *testing.T) {
		t.Parallel()
		h, _ := startFaulty(t, func(s *discordtest.Server) { s.RefuseEdits(chanID, true) }, nil)
		var b strings.Builder
		for b.Len() < 15000 {
			fmt.Fprintf(&b, "%d 番目の文です。", b.Len())
		}
		text := b.String()
		h.resp.script = func(ctx context.Context, _ chat.Request, emit func(llm.Event) error) error {
			emit(llm.ToolStarted{Name: "web_search", Arguments: `{"query":"x"}`})
			h.waitBot(chanID, func(ms []discordtest.Message) bool { return len(ms) == 1 })
			for r := []rune(text); len(r) > 0; {
				n := min(len(r), 300)
				emit(llm.Text{Text: string(r[:n])})
				r = r[n:]
			}
			return emit(llm.Done{})
		}
		h.mention(chanID, "42", "長く")
		msgs := h.waitBot(chanID, func(ms []discordtest.Message) bool {
			if len(ms) < 2 {
				return false
			}
			var all strings.Builder
			for _, m := range ms[1:] {
				all.WriteString(m.Content)
			}
			return all.String() == text
		})
		if msgs[0].Content != "🔍 web_search: x" {
			t.Errorf("first message %q, want the status it was left at", msgs[0].Content)
		}
		for i, m := range msgs {
			if n := utf8.RuneCountInString(m.Content); n > maxMessageRunes {
				t.Errorf("message %d has %d characters", i, n)
			}
		}
	})
}

// A gateway that closes 4014 or 4004 is diagnosed once with its fix, is not
// retried in a storm, and connects when the operator fixed it and retries.
func TestGatewayRefusalDiagnosed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		fault func(*discordtest.Server)
		fix   func(*discordtest.Server)
		code  string
		says  string
	}{
		{"disallowed intents", func(s *discordtest.Server) { s.CloseGateway(4014) }, func(s *discordtest.Server) { s.CloseGateway(0) },
			DiagDisallowedIntents, "Developer Portal → Bot → Privileged Gateway Intents で Message Content Intent を有効にしてください"},
		{"authentication failed", func(s *discordtest.Server) { s.CloseGateway(4004) }, func(s *discordtest.Server) { s.CloseGateway(0) },
			DiagInvalidToken, "DISCORD_TOKEN"},
		{"token rejected everywhere", func(s *discordtest.Server) { s.RejectToken(true) }, func(s *discordtest.Server) { s.RejectToken(false) },
			DiagInvalidToken, "Reset Token"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, logs := startFaulty(t, tc.fault, nil)
			st := h.bot.Status()
			if st.State != StateWaiting || st.Gateway == nil || st.Gateway.Code != tc.code {
				t.Fatalf("status %+v, want waiting with %s", st, tc.code)
			}
			if err := st.GatewayErr(); err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("GatewayErr() = %v, want it to say %q", err, tc.says)
			}
			// A retry that fails the same way is not logged again.
			h.bot.RetryNow()
			h.srv.WaitFor(h.ctx, func() bool { return h.srv.Handshakes() >= 2 })
			tc.fix(h.srv)
			h.bot.RetryNow()
			h.waitStatus(func(s Status) bool { return s.State == StateConnected })
			if n := h.srv.Handshakes(); n != 3 {
				t.Errorf("%d gateway handshakes, want 3 (refused, retried on request, fixed): no retry storm", n)
			}
			if n := strings.Count(logs.String(), "diagnosis="+tc.code); n != 1 {
				t.Errorf("diagnosis logged %d times, want once:\n%s", n, logs.String())
			}
			if !strings.Contains(logs.String(), tc.says) {
				t.Errorf("log does not name the fix %q:\n%s", tc.says, logs.String())
			}
			h.mention(chanID, "42", "直った？")
			h.waitText(chanID, "了解です。")
		})
	}
}

// Discord unreachable at start: the bot keeps trying with backoff and
// answers once Discord is back.
func TestUnreachableAtStartKeepsTrying(t *testing.T) {
	t.Parallel()
	h, logs := startFaulty(t, func(s *discordtest.Server) { s.SetUnreachable(true) }, nil)
	st := h.bot.Status()
	if st.State != StateConnecting || st.Gateway == nil || st.Gateway.Code != DiagUnreachable {
		t.Fatalf("status %+v, want connecting, unreachable", st)
	}
	if err := st.GatewayErr(); err == nil || !strings.HasPrefix(err.Error(), "connecting: ") {
		t.Errorf("GatewayErr() = %v, want connecting: …", err)
	}
	h.srv.SetUnreachable(false)
	h.waitStatus(func(s Status) bool { return s.State == StateConnected })
	if err := h.bot.Status().GatewayErr(); err != nil {
		t.Errorf("GatewayErr() after reconnecting = %v", err)
	}
	h.mention(chanID, "42", "戻った？")
	h.waitText(chanID, "了解です。")
	// The line names the DISCORD_API_BASE in use, in the error too, not
	// the discord.com discordgo builds its URLs on.
	if !strings.Contains(logs.String(), "cannot reach Discord at "+h.srv.URL()+": ") {
		t.Errorf("no unreachable line naming %s in the log:\n%s", h.srv.URL(), logs.String())
	}
	if strings.Contains(logs.String(), "discord.com") {
		t.Errorf("the log names discord.com, which is not in use:\n%s", logs.String())
	}
	if d := st.Gateway.Message; !strings.Contains(d, "("+h.srv.URL()+")") || !strings.Contains(d, `"`+h.srv.URL()+"api/v") {
		t.Errorf("diagnosis %q does not name %s", d, h.srv.URL())
	}
}

// A bot invited nowhere says so with the invite URL (View Channels, Send
// Messages, Send Messages in Threads, Read Message History, Attach Files:
// 274878008320), until it joins one.
func TestNoGuildPrintsInvite(t *testing.T) {
	t.Parallel()
	h, logs := startFaulty(t, func(s *discordtest.Server) { s.SetGuilds() }, nil)
	want := "https://discord.com/oauth2/authorize?client_id=" + h.srv.AppID() + "&permissions=274878008320&scope=bot+applications.commands"
	if got := InviteURL(h.srv.AppID()); got != want {
		t.Errorf("InviteURL = %s, want %s", got, want)
	}
	err := h.bot.Status().GatewayErr()
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("GatewayErr() = %v, want the invite URL", err)
	}
	if !strings.Contains(logs.String(), `invite_url="`+want) {
		t.Errorf("log does not print the invite URL:\n%s", logs.String())
	}
	h.srv.JoinGuild(guildID)
	h.waitStatus(func(s Status) bool { return s.GatewayErr() == nil })
}

// Slash commands Discord refuses are named, the others registered, mentions
// answered, and the refused ones registered once Discord accepts them.
func TestRefusedCommandsKeepTheBotAnswering(t *testing.T) {
	t.Parallel()
	srv := discordtest.New(t)
	srv.RefuseCommand("broken")
	logs := &logtest.Buffer{}
	resp := &fakeResponder{}
	b, err := New(Options{Token: "t", APIBase: srv.URL(), Responder: resp, RetryMin: 20 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	nop := func(context.Context, commands.Request) commands.Reply { return commands.Reply{} }
	b.AddCommand(commands.Command{Name: "ping", Description: "疎通確認", Run: nop})
	b.AddCommand(commands.Command{Name: "broken", Description: "x", Run: nop})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := b.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer b.Stop()
	h := &harness{t: t, srv: srv, bot: b, resp: resp, ctx: ctx, logs: logs}

	st := b.Status()
	if st.State != StateConnected || st.GatewayErr() != nil {
		t.Errorf("status %+v: a command refusal must leave the bot connected", st)
	}
	if err := st.CommandsErr(); err == nil || !strings.HasPrefix(err.Error(), "not registered: /broken") || strings.Contains(err.Error(), "/ping") {
		t.Errorf("CommandsErr() = %v, want not registered: /broken …", err)
	}
	if cmds := srv.Commands(); len(cmds) != 1 || cmds[0].Name != "ping" {
		t.Errorf("registered %+v, want ping alone meanwhile", cmds)
	}
	if !strings.Contains(logs.String(), `commands="/broken`) {
		t.Errorf("the warning does not name the command:\n%s", logs.String())
	}
	h.mention(chanID, "42", "コマンドなしでも")
	h.waitText(chanID, "了解です。")

	srv.RefuseCommand("")
	h.waitStatus(func(s Status) bool { return s.CommandsErr() == nil })
	if cmds := srv.Commands(); len(cmds) != 2 {
		t.Errorf("registered %+v, want both", cmds)
	}
}

// discordgo's own lines, among them events it cannot parse, reach slog.
func TestDiscordgoLogsReachSlog(t *testing.T) {
	// Not parallel: discordgo has one logger per process and the newest
	// Bot takes it, so a bot started by a parallel test would get the line.
	h, logs := startFaulty(t, nil, nil)
	h.srv.Dispatch("MESSAGE_CREATE", json.RawMessage(`{"id":12345,"channel_id":["not","a","string"]}`))
	// The channel answers in order: once a later mention is answered, the
	// bad event was read.
	h.mention(chanID, "42", "後から")
	h.waitText(chanID, "了解です。")
	log := logs.String()
	if !strings.Contains(log, "level=ERROR") || !strings.Contains(log, "component=discordgo") ||
		!strings.Contains(log, "error unmarshalling MESSAGE_CREATE event") {
		t.Errorf("unparsable event not logged through slog:\n%s", log)
	}
}

// Users waiting in one channel see their place at once, updated as the
// line moves, and the notice becomes their answer.
func TestWaitingUsersSeeTheirPlace(t *testing.T) {
	t.Parallel()
	h := start(t, nil)
	gates := map[string]chan struct{}{"A": make(chan struct{}), "B": make(chan struct{})}
	h.resp.script = func(ctx context.Context, req chat.Request, emit func(llm.Event) error) error {
		if g := gates[req.Text]; g != nil {
			<-g
		}
		return say("答え:"+req.Text)(ctx, req, emit)
	}
	byRef := func(ms []discordtest.Message, ref string) string {
		for _, m := range ms {
			if m.Reference != nil && m.Reference.MessageID == ref {
				return m.Content
			}
		}
		return ""
	}
	h.mention(chanID, "1", "A")
	h.srv.WaitFor(h.ctx, func() bool { return len(h.resp.requests()) == 1 })
	b := h.mention(chanID, "2", "B")
	c := h.mention(chanID, "3", "C")
	h.waitBot(chanID, func(ms []discordtest.Message) bool {
		return byRef(ms, b.ID) == "⏳ 順番待ち: 2 番目" && byRef(ms, c.ID) == "⏳ 順番待ち: 3 番目"
	})
	close(gates["A"])
	h.waitBot(chanID, func(ms []discordtest.Message) bool { return byRef(ms, c.ID) == "⏳ 順番待ち: 2 番目" })
	close(gates["B"])
	msgs := h.waitText(chanID, "答え:B", "答え:C", "答え:A")
	if msgs[0].Reference.MessageID != b.ID || msgs[1].Reference.MessageID != c.ID {
		t.Errorf("answers are not in the waiting notices: %+v", msgs)
	}
}

// A bot that stops while users wait tells them it could not answer.
func TestStopTellsWaitingUsers(t *testing.T) {
	t.Parallel()
	h := start(t, func(o *Options) { o.ShutdownTimeout = 50 * time.Millisecond })
	h.resp.script = func(ctx context.Context, req chat.Request, emit func(llm.Event) error) error {
		<-ctx.Done()
		return ctx.Err()
	}
	h.mention(chanID, "1", "A")
	h.srv.WaitFor(h.ctx, func() bool { return len(h.resp.requests()) == 1 })
	h.mention(chanID, "2", "B")
	h.waitText(chanID, "⏳ 順番待ち: 2 番目")
	h.bot.Stop()
	h.waitBot(chanID, func(ms []discordtest.Message) bool {
		for _, m := range ms {
			if m.Content == stoppedQueuedReply {
				return true
			}
		}
		return false
	})
}

// Diagnose (for `yorozu doctor`) names each gateway problem, changes
// nothing and leaves no connection behind.
func TestDiagnose(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		fault func(*discordtest.Server)
		want  string // diagnosis code; "" = fine
	}{
		{"fine", func(*discordtest.Server) {}, ""},
		{"disallowed intents", func(s *discordtest.Server) { s.CloseGateway(4014) }, DiagDisallowedIntents},
		{"bad token", func(s *discordtest.Server) { s.RejectToken(true) }, DiagInvalidToken},
		{"no server", func(s *discordtest.Server) { s.SetGuilds() }, DiagNoGuild},
		{"unreachable", func(s *discordtest.Server) { s.SetUnreachable(true) }, DiagUnreachable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := discordtest.New(t)
			tc.fault(srv)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			ds, err := Diagnose(ctx, Options{Token: "t", APIBase: srv.URL(), Logger: slog.New(slog.DiscardHandler)})
			if err != nil {
				t.Fatal(err)
			}
			var got string
			if len(ds) > 0 {
				got = ds[0].Code
				if ds[0].Message == "" || ds[0].Fix == "" {
					t.Errorf("diagnosis %+v lacks a message or a fix", ds[0])
				}
			}
			if got != tc.want || len(ds) > 1 {
				t.Errorf("Diagnose = %+v, want %q", ds, tc.want)
			}
			for _, c := range srv.Calls() {
				if c.Method != http.MethodGet {
					t.Errorf("Diagnose made a change: %s %s", c.Method, c.Path)
				}
			}
			if err := srv.WaitFor(ctx, func() bool { return !srv.Connected() }); err != nil {
				t.Errorf("Diagnose left a gateway connection open: %v", err)
			}
		})
	}
}

// CheckChannel tells a channel the bot may post in from one it cannot see
// and one where it lacks a permission, naming the permission.
func TestCheckChannel(t *testing.T) {
	t.Parallel()
	h := start(t, nil)
	for _, id := range []string{"700", "701", "703", "704"} {
		h.srv.AddChannel(id)
	}
	h.srv.PutChannelInGuild("703", discordtest.DefaultGuildID)
	h.srv.PutChannelInGuild("704", discordtest.DefaultGuildID)
	h.srv.FailChannel("701", http.StatusForbidden, 50001, "Missing Access")
	h.srv.DenyBot("704", discordgo.PermissionAttachFiles)
	for _, id := range []string{"700", "703"} {
		if d := h.bot.CheckChannel(h.ctx, id, PostPermissions); d != nil {
			t.Errorf("channel %s the bot may post in: %+v", id, d)
		}
	}
	for _, id := range []string{"701", "702"} {
		if d := h.bot.CheckChannel(h.ctx, id, PostPermissions); d == nil || d.Code != DiagChannel || !strings.Contains(d.Message, id) {
			t.Errorf("channel %s: %+v, want %s naming it", id, d, DiagChannel)
		}
	}
	d := h.bot.CheckChannel(h.ctx, "704", PostPermissions)
	if d == nil || d.Code != DiagChannelPerms || !strings.Contains(d.Message, "Attach Files") || strings.Contains(d.Message, "Send Messages") ||
		!strings.Contains(d.Fix, "ファイルを添付 / Attach Files") {
		t.Errorf("channel denying Attach Files: %+v", d)
	}
	if d := h.bot.CheckChannel(h.ctx, "704", discordgo.PermissionSendMessages); d != nil {
		t.Errorf("channel 704 for a text-only post: %+v", d)
	}
	if n := len(callsTo(h.srv.Calls(), "POST", "/channels/")); n != 0 {
		t.Errorf("CheckChannel posted %d times", n)
	}
}

// CheckWebhook reads a webhook without posting and never shows its token.
func TestCheckWebhook(t *testing.T) {
	t.Parallel()
	srv := discordtest.New(t)
	srv.AddChannel("800")
	srv.AddWebhook("900", "hook-secret", "800")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	base := srv.URL() + "api/v10/webhooks/"
	if d := CheckWebhook(ctx, nil, base+"900/hook-secret"); d != nil {
		t.Errorf("existing webhook: %+v", d)
	}
	for _, u := range []string{base + "900/wrong-secret", base + "901/hook-secret", "not a url", srv.URL() + "api/v10/channels/800"} {
		d := CheckWebhook(ctx, nil, u)
		if d == nil || d.Code != DiagWebhook || d.Fix == "" || strings.Contains(d.String(), "secret") {
			t.Errorf("webhook %s: %+v", u, d)
		}
	}
	srv.SetUnreachable(true)
	if d := CheckWebhook(ctx, nil, base+"900/hook-secret"); d == nil || d.Code != DiagUnreachable || strings.Contains(d.String(), "secret") {
		t.Errorf("webhook with Discord unreachable: %+v", d)
	}
	for _, c := range srv.Calls() {
		if c.Method != http.MethodGet {
			t.Errorf("CheckWebhook made a change: %s %s", c.Method, c.Path)
		}
	}
}

// onceEach fails the test unless every bot message in channel carries its
// own enforced nonce.
func onceEach(t *testing.T, msgs []discordtest.Message) {
	t.Helper()
	seen := map[string]bool{}
	for _, m := range msgs {
		if m.Nonce == "" || !m.EnforceNonce || seen[m.Nonce] {
			t.Errorf("message %.30q: nonce %q enforced %v (seen before: %v)", m.Content, m.Nonce, m.EnforceNonce, seen[m.Nonce])
		}
		seen[m.Nonce] = true
	}
}

// Whatever kind of message the bot creates — a later part of a long
// answer, a waiting notice, a rate-limit or empty-mention notice, the chart
// after an answer, a scheduled post — a create whose answer is lost is
// retried with the same nonce and the message shows once.
func TestEveryKindOfMessageShowsOnceWhenItsAnswerIsLost(t *testing.T) {
	t.Parallel()
	const chan2 = "501"
	t.Run("continuation part", func(t *testing.T) {
		t.Parallel()
		h, _ := startFaulty(t, nil, nil)
		var b strings.Builder
		for b.Len() < 12000 {
			fmt.Fprintf(&b, "%d 番目の文です。", b.Len())
		}
		rest := b.String()
		h.resp.script = func(ctx context.Context, _ chat.Request, emit func(llm.Event) error) error {
			emit(llm.Text{Text: "前半。"})
			h.waitBot(chanID, func(ms []discordtest.Message) bool { return len(ms) == 1 })
			// The first part exists; the answers to the next creates are lost.
			h.srv.LoseCreateResponses(chanID, 3, discordtest.LossServerError)
			emit(llm.Text{Text: rest})
			return emit(llm.Done{})
		}
		h.mention(chanID, "42", "長く")
		want := splitMessage("前半。"+rest, maxMessageRunes)
		msgs := h.waitBot(chanID, func(ms []discordtest.Message) bool {
			if len(ms) < len(want) {
				return false
			}
			for i, w := range want {
				if ms[i].Content != w {
					return false
				}
			}
			return true
		})
		if len(msgs) != len(want) {
			t.Errorf("%d messages for a %d-part answer", len(msgs), len(want))
		}
		onceEach(t, msgs)
	})
	t.Run("waiting notice", func(t *testing.T) {
		t.Parallel()
		h, _ := startFaulty(t, nil, nil)
		release := h.holdAnswerTo("A")
		h.mention(chanID, "1", "A")
		h.srv.WaitFor(h.ctx, func() bool { return len(h.resp.requests()) == 1 })
		h.srv.LoseCreateResponses(chanID, 2, discordtest.LossGarbage)
		h.mention(chanID, "2", "B")
		h.waitText(chanID, "⏳ 順番待ち: 2 番目")
		close(release)
		onceEach(t, h.waitText(chanID, "答え:B", "答え:A"))
	})
	t.Run("rate-limit notice", func(t *testing.T) {
		t.Parallel()
		h, _ := startFaulty(t, func(s *discordtest.Server) { s.AddChannel(chan2) }, func(o *Options) { o.RateLimit = 1 })
		h.mention(chanID, "1", "最初")
		h.waitText(chanID, "了解です。")
		h.srv.LoseCreateResponses(chan2, 2, discordtest.LossServerError)
		h.mention(chan2, "1", "もう一回")
		onceEach(t, h.waitText(chan2, rateLimitedReply))
	})
	t.Run("empty mention", func(t *testing.T) {
		t.Parallel()
		h, _ := startFaulty(t, func(s *discordtest.Server) { s.LoseCreateResponses(chanID, 2, discordtest.LossServerError) }, nil)
		h.mention(chanID, "1", "")
		onceEach(t, h.waitText(chanID, emptyMentionReply))
	})
	t.Run("chart after the answer", func(t *testing.T) {
		t.Parallel()
		h, _ := startFaulty(t, nil, nil)
		h.resp.script = func(ctx context.Context, _ chat.Request, emit func(llm.Event) error) error {
			emit(llm.Text{Text: "晴れです。"})
			emit(llm.Done{})
			h.waitText(chanID, "晴れです。")
			h.srv.LoseCreateResponses(chanID, 2, discordtest.LossServerError)
			return emit(llm.File{Name: "forecast.png", ContentType: "image/png", Data: []byte("\x89PNG fake")})
		}
		h.mention(chanID, "1", "天気は？")
		msgs := h.waitBot(chanID, func(ms []discordtest.Message) bool { return len(ms) >= 2 })
		if len(msgs) != 2 || len(msgs[1].Attachments) != 1 || msgs[1].Attachments[0].Filename != "forecast.png" {
			t.Errorf("messages %+v; want the answer, then the chart once", msgs)
		}
		onceEach(t, msgs)
	})
	t.Run("scheduled post", func(t *testing.T) {
		t.Parallel()
		h, _ := startFaulty(t, func(s *discordtest.Server) {
			s.AddChannel(chan2)
			s.LoseCreateResponses(chan2, 2, discordtest.LossGarbage)
		}, nil)
		id, err := h.bot.PostMessage(h.ctx, chan2, "☀️ 今日の天気", &discordgo.File{Name: "forecast.png", ContentType: "image/png", Reader: strings.NewReader("png")})
		if err != nil {
			t.Fatal(err)
		}
		msgs := h.srv.BotMessages(chan2)
		if len(msgs) != 1 || msgs[0].ID != id || len(msgs[0].Attachments) != 1 {
			t.Errorf("posts %+v; want one, with its file, id %s", msgs, id)
		}
		onceEach(t, msgs)
	})
}

// While Discord stays unreachable, each backoff step is logged once: the
// first failure with its diagnosis, then one line per longer wait, and
// nothing more (but debug lines) once the wait is at its longest.
func TestUnreachableLoggedOncePerBackoffStep(t *testing.T) {
	t.Parallel()
	logs := &logtest.Buffer{}
	h, _ := startFaulty(t, func(s *discordtest.Server) { s.SetUnreachable(true) }, func(o *Options) {
		o.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
		o.RetryMin, o.RetryMax = 10*time.Millisecond, 40*time.Millisecond
	})
	deadline := time.Now().Add(30 * time.Second)
	for strings.Count(logs.String(), "discord connect failed again") < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("the bot did not keep retrying:\n%s", logs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	var steps []string
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "diagnosis="+DiagUnreachable) && !strings.Contains(line, "level=DEBUG") {
			_, wait, _ := strings.Cut(line, "retry_in=")
			wait, _, _ = strings.Cut(wait, " ")
			steps = append(steps, wait)
		}
	}
	if got := strings.Join(steps, ","); got != "10ms,20ms,40ms" {
		t.Errorf("logged backoff steps %s, want 10ms,20ms,40ms:\n%s", got, logs.String())
	}
	h.srv.SetUnreachable(false)
	h.waitStatus(func(s Status) bool { return s.State == StateConnected })
}

// With DISCORD_GUILDS set, a DM user is looked up once however many DMs
// they send while Discord answers, and a member's DMs are answered in
// order; a user in no served server is not answered.
func TestDMsOfAnUnknownUserCheckedOnceAndAnsweredInOrder(t *testing.T) {
	t.Parallel()
	const member, stranger, dmMember, dmStranger = "77", "78", "600", "601"
	h, _ := startFaulty(t, func(s *discordtest.Server) { s.AddMember(guildID, member) }, func(o *Options) { o.Guilds = []string{guildID} })
	h.resp.script = func(ctx context.Context, req chat.Request, emit func(llm.Event) error) error {
		return say("答え:"+req.Text)(ctx, req, emit)
	}
	dm := func(channel, user, text string) {
		h.srv.SendMessage(&discordgo.Message{ChannelID: channel, Author: &discordgo.User{ID: user, Username: "u" + user}, Content: text})
	}
	for _, text := range []string{"一", "二", "三"} {
		dm(dmMember, member, text)
		dm(dmStranger, stranger, text)
	}
	// The later two wait behind the first: their notices go out first and
	// become their answers.
	msgs := h.waitBot(dmMember, func(ms []discordtest.Message) bool {
		n := 0
		for _, m := range ms {
			if strings.HasPrefix(m.Content, "答え:") {
				n++
			}
		}
		return n == 3
	})
	if len(msgs) != 3 {
		t.Errorf("%d bot messages for three DMs: %+v", len(msgs), msgs)
	}
	var order []string
	for _, r := range h.resp.requests() {
		if r.AuthorID == member {
			order = append(order, r.Text)
		}
	}
	if strings.Join(order, "") != "一二三" {
		t.Errorf("answered %v, want the DMs in the order they came", order)
	}
	lookups := map[string]int{}
	for _, c := range callsTo(h.srv.Calls(), "GET", "/guilds/"+guildID+"/members/") {
		lookups[strings.TrimPrefix(c.Path, "/guilds/"+guildID+"/members/")]++
	}
	if lookups[member] != 1 || lookups[stranger] != 1 {
		t.Errorf("membership lookups %v; want one per user", lookups)
	}
	if msgs := h.srv.BotMessages(dmStranger); len(msgs) != 0 {
		t.Errorf("answered a user in no served server: %+v", msgs)
	}
}
