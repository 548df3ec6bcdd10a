package main

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

const (
	threadID     = "200000000000000051" // a thread of channelID
	otherChannel = "200000000000000052"
	otherModel   = "gemma3:4b"
)

// channelHarness talks in several channels and threads of one server.
type channelHarness struct {
	*harness
	t       *testing.T
	replyTo string             // the next ask replies to this message
	sent    *discordgo.Message // the last ask's message
}

func startChannels(t *testing.T) *channelHarness {
	// One user asks many times here; the rate limit is not under test.
	h := start(t, map[string]string{"USER_RATE_LIMIT": "100/min", "ADMIN_PASSWORD": adminPassword})
	h.discord.AddThread(threadID, channelID)
	h.discord.AddChannel(otherChannel)
	h.ollama.AddModel(otherModel, "completion", "tools")
	h.script() // every turn echoes; the requests are what the tests read
	return &channelHarness{harness: h, t: t}
}

// ask mentions the bot in channel, waits for the answer (the model echoes
// the text) and returns the model request that answered it.
func (h *channelHarness) ask(channel, text string) api.ChatRequest {
	h.t.Helper()
	m := &discordgo.Message{
		ChannelID: channel, GuildID: guildID,
		Content:  "<@" + h.discord.BotID() + "> " + text,
		Author:   &discordgo.User{ID: aliceID, Username: "alice"},
		Mentions: []*discordgo.User{{ID: h.discord.BotID(), Username: "yorozu", Bot: true}},
	}
	if h.replyTo != "" {
		m.MessageReference = &discordgo.MessageReference{MessageID: h.replyTo, ChannelID: channel, GuildID: guildID}
	}
	h.sent = h.discord.SendMessage(m)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.discord.WaitFor(ctx, func() bool {
		for _, m := range h.discord.BotMessages(channel) {
			if m.Content == text {
				return true
			}
		}
		return false
	}); err != nil {
		h.t.Fatalf("%q in %s not answered\nstderr:\n%s", text, channel, h.stderr.String())
	}
	for _, r := range h.turns() {
		if r.Messages[len(r.Messages)-1].Content == text {
			return r
		}
	}
	h.t.Fatalf("no model request for %q; bot said %+v\nstderr:\n%s", text, h.discord.BotMessages(channel), h.stderr.String())
	return api.ChatRequest{}
}

// reply mentions the bot in channelID replying to message id, waits for
// the (echoed) answer and returns the model request and the message sent.
func (h *channelHarness) reply(id, text string) (api.ChatRequest, *discordgo.Message) {
	h.t.Helper()
	h.replyTo = id
	defer func() { h.replyTo = "" }()
	return h.ask(channelID, text), h.sent
}

// slash sends /name sub with string options in channel as member m.
func (h *channelHarness) slash(channel string, m *discordgo.Member, name, sub string, opts ...string) string {
	h.t.Helper()
	o := &discordgo.ApplicationCommandInteractionDataOption{Name: sub, Type: discordgo.ApplicationCommandOptionSubCommand}
	for i := 0; i+1 < len(opts); i += 2 {
		o.Options = append(o.Options, &discordgo.ApplicationCommandInteractionDataOption{
			Name: opts[i], Type: discordgo.ApplicationCommandOptionString, Value: opts[i+1]})
	}
	return h.command(h.t, &discordgo.Interaction{ChannelID: channel, GuildID: guildID, Member: m,
		Data: discordgo.ApplicationCommandInteractionData{Name: name, Options: []*discordgo.ApplicationCommandInteractionDataOption{o}}})
}

// personaOf is the channel persona section of a request's system prompt,
// or "" when it has none; it fails the test when the persona is not placed
// after yorozu's guidance and the time, before the memory layers.
func personaOf(t *testing.T, req api.ChatRequest) string {
	t.Helper()
	system := req.Messages[0].Content
	const head = "## このチャンネルでのペルソナ\n"
	i := strings.Index(system, head)
	if i < 0 {
		return ""
	}
	if at := strings.Index(system, "現在:"); at < 0 || at > i {
		t.Errorf("persona is not after the guidance and the time:\n%s", system)
	}
	body := system[i+len(head):]
	return body[strings.Index(body, "\n")+1:]
}

func TestPersonaPerChannel(t *testing.T) {
	h := startChannels(t)
	mod, plain := member(bobID, discordgo.PermissionManageChannels), member(aliceID, discordgo.PermissionManageMessages)

	if got := h.slash(channelID, plain, "persona", "set", "text", "あなたは海賊です。"); got != notManagerReply {
		t.Errorf("/persona set without Manage Channels = %q", got)
	}
	if p := personaOf(t, h.ask(channelID, "こんにちは")); p != "" {
		t.Errorf("persona after a refused set = %q", p)
	}
	if got := h.slash(channelID, mod, "persona", "set", "text", strings.Repeat("長", 2001)); !strings.Contains(got, "2000 文字まで") || !strings.Contains(got, "2001 文字") {
		t.Errorf("/persona set of 2,001 characters = %q", got)
	}
	if got := h.slash(channelID, mod, "persona", "set", "text", "あなたは海賊です。語尾は「だぜ」。"); !strings.HasPrefix(got, "このチャンネルのペルソナを設定しました") {
		t.Errorf("/persona set = %q", got)
	}
	if p := personaOf(t, h.ask(channelID, "船の話をして")); p != "あなたは海賊です。語尾は「だぜ」。" {
		t.Errorf("channel turn's persona = %q", p)
	}

	// A thread takes its channel's persona until it has its own.
	if p := personaOf(t, h.ask(threadID, "スレッドでも海賊？")); p != "あなたは海賊です。語尾は「だぜ」。" {
		t.Errorf("thread turn's inherited persona = %q", p)
	}
	if got := h.slash(threadID, plain, "persona", "show"); got != "いまのペルソナ：親チャンネルの設定（channel）\nあなたは海賊です。語尾は「だぜ」。" {
		t.Errorf("/persona show in the thread = %q", got)
	}
	if got := h.slash(threadID, mod, "persona", "set", "text", "あなたは忍者です。"); !strings.HasPrefix(got, "このスレッドのペルソナを設定しました") {
		t.Errorf("/persona set in the thread = %q", got)
	}
	if p := personaOf(t, h.ask(threadID, "忍者？")); p != "あなたは忍者です。" {
		t.Errorf("thread turn's own persona = %q", p)
	}
	if got := h.slash(threadID, plain, "persona", "show"); !strings.HasPrefix(got, "いまのペルソナ：このスレッドの設定（thread）\nあなたは忍者です。") {
		t.Errorf("/persona show of the thread's own = %q", got)
	}
	if p := personaOf(t, h.ask(channelID, "チャンネルはまだ海賊？")); p != "あなたは海賊です。語尾は「だぜ」。" {
		t.Errorf("the thread's persona leaked into the channel: %q", p)
	}

	// A server default reaches channels without their own.
	if got := h.slash(otherChannel, mod, "persona", "show"); !strings.Contains(got, "よろずの既定（default）") {
		t.Errorf("/persona show with nothing set = %q", got)
	}
	if got := h.slash(otherChannel, mod, "persona", "set", "text", "あなたは執事です。", "scope", "server"); !strings.HasPrefix(got, "このサーバーの既定のペルソナを設定しました") {
		t.Errorf("/persona set scope:server = %q", got)
	}
	if got := h.slash(otherChannel, plain, "persona", "show"); !strings.HasPrefix(got, "いまのペルソナ：サーバーの既定（server）\nあなたは執事です。") {
		t.Errorf("/persona show of the server default = %q", got)
	}
	if p := personaOf(t, h.ask(otherChannel, "執事？")); p != "あなたは執事です。" {
		t.Errorf("other channel's persona = %q", p)
	}
	if got := h.slash(threadID, mod, "persona", "reset"); got != "このスレッドのペルソナを解除しました。いまは親チャンネルの設定（channel）が使われます。" {
		t.Errorf("/persona reset in the thread = %q", got)
	}
	if got := h.slash(channelID, mod, "persona", "reset"); got != "このチャンネルのペルソナを解除しました。いまはサーバーの既定（server）が使われます。" {
		t.Errorf("/persona reset in the channel = %q", got)
	}
	if p := personaOf(t, h.ask(threadID, "いまは？")); p != "あなたは執事です。" {
		t.Errorf("thread's persona after both resets = %q", p)
	}

	perms := map[string]int64{}
	for _, c := range h.discord.Commands() {
		if c.DefaultMemberPermissions != nil {
			perms[c.Name] = *c.DefaultMemberPermissions
		}
	}
	if perms["persona"] != discordgo.PermissionManageChannels || perms["model"] != discordgo.PermissionManageChannels {
		t.Errorf("default_member_permissions = %v; want Manage Channels on /persona and /model", perms)
	}
}

func TestModelPerChannel(t *testing.T) {
	h := startChannels(t)
	mod, plain := member(bobID, discordgo.PermissionAdministrator), member(aliceID, 0)

	if got := h.slash(channelID, plain, "model", "set", "name", otherModel); got != notManagerReply {
		t.Errorf("/model set without Manage Channels = %q", got)
	}
	if got := h.slash(channelID, mod, "model", "set", "name", "llama3:70b"); !strings.Contains(got, "`ollama pull llama3:70b`") {
		t.Errorf("/model set of a model that is not installed = %q", got)
	}
	if r := h.ask(channelID, "だれが答える？"); r.Model != model {
		t.Errorf("model after refused sets = %q, want %q", r.Model, model)
	}
	if got := h.slash(channelID, mod, "model", "set", "name", otherModel); !strings.HasPrefix(got, "このチャンネルのモデルを "+otherModel+" にしました") {
		t.Errorf("/model set = %q", got)
	}
	if r := h.ask(channelID, "いまはだれ？"); r.Model != otherModel {
		t.Errorf("channel turn's model = %q, want %q", r.Model, otherModel)
	}
	if r := h.ask(threadID, "スレッドでは？"); r.Model != otherModel {
		t.Errorf("thread turn's inherited model = %q, want %q", r.Model, otherModel)
	}
	if got := h.slash(threadID, plain, "model", "show"); got != "いまのモデル："+otherModel+"、親チャンネルの設定（channel）" {
		t.Errorf("/model show in the thread = %q", got)
	}
	if got := h.slash(threadID, mod, "model", "set", "name", model); !strings.HasPrefix(got, "このスレッドのモデルを "+model) {
		t.Errorf("/model set in the thread = %q", got)
	}
	if r := h.ask(threadID, "スレッドは自分のモデル？"); r.Model != model {
		t.Errorf("thread turn's own model = %q, want %q", r.Model, model)
	}
	if got := h.slash(threadID, plain, "model", "show"); got != "いまのモデル："+model+"、このスレッドの設定（thread）" {
		t.Errorf("/model show of the thread's own = %q", got)
	}
	// Reminders keep REMINDER_MODEL, whatever the channel uses.
	if r := h.ask(channelID, "明日リマインドして"); r.Model != model {
		t.Errorf("reminder turn's model = %q, want REMINDER_MODEL %q", r.Model, model)
	}
	if got := h.slash(otherChannel, plain, "model", "show"); got != "いまのモデル："+model+"、よろずの既定（default）" {
		t.Errorf("/model show with nothing set = %q", got)
	}
	if got := h.slash(channelID, mod, "model", "reset"); got != "このチャンネルのモデルを解除しました。いまはよろずの既定（default）の "+model+" が使われます。" {
		t.Errorf("/model reset = %q", got)
	}

	// Autocomplete (type 4) answers with the installed models (type 8).
	before := len(h.discord.InteractionResponses())
	h.discord.SendInteraction(&discordgo.Interaction{Type: discordgo.InteractionApplicationCommandAutocomplete, Token: "tok",
		ChannelID: channelID, GuildID: guildID, Member: mod,
		Data: discordgo.ApplicationCommandInteractionData{Name: "model", Options: []*discordgo.ApplicationCommandInteractionDataOption{{
			Name: "set", Type: discordgo.ApplicationCommandOptionSubCommand,
			Options: []*discordgo.ApplicationCommandInteractionDataOption{{Name: "name", Type: discordgo.ApplicationCommandOptionString, Value: "GEM", Focused: true}},
		}}}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.discord.WaitFor(ctx, func() bool { return len(h.discord.InteractionResponses()) > before }); err != nil {
		t.Fatal("autocomplete not answered")
	}
	r := h.discord.InteractionResponses()[before].Response
	var names []string
	if r.Data != nil {
		for _, c := range r.Data.Choices {
			names = append(names, fmt.Sprint(c.Value))
		}
	}
	if r.Type != discordgo.InteractionApplicationCommandAutocompleteResult || strings.Join(names, ",") != otherModel {
		t.Errorf("autocomplete = type %d, choices %v; want type 8 with %s", r.Type, names, otherModel)
	}
}

// chainOf is the reply-chain layer of a request ("" when there is none).
func chainOf(req api.ChatRequest) string {
	for _, m := range req.Messages {
		if m.Role == "system" && strings.HasPrefix(m.Content, "## 返信先の発言") {
			return m.Content
		}
	}
	return ""
}

func TestReplyToAnOldAnswer(t *testing.T) {
	h := startChannels(t)
	h.script(ollamatest.Text("合言葉は「やまかわ」です。"))
	h.mention(aliceID, "合言葉を決めて")
	old := h.waitReply(t, 1, equals("合言葉は「やまかわ」です。"))
	h.waitCount(t, "SELECT count(*) FROM messages WHERE platform_message_id = '"+old.ID+"'", 1)
	// 200 messages come after it; it is long out of the recent window.
	ctx := context.Background()
	if _, err := h.pool.Exec(ctx, `UPDATE messages SET created_at = now() - interval '1 day'`); err != nil {
		t.Fatal(err)
	}
	if _, err := h.pool.Exec(ctx, `
INSERT INTO messages (session_id, role, author_name, content, created_at)
SELECT (SELECT id FROM sessions WHERE key = 'discord:channel:`+channelID+`'),
       CASE WHEN g % 2 = 0 THEN 'user' ELSE 'assistant' END, 'bob', '雑談 ' || g, now() - interval '1 day' + g * interval '1 minute'
FROM generate_series(1, 200) g`); err != nil {
		t.Fatal(err)
	}
	h.script()
	r := h.ask(channelID, "そろそろ")
	if chainOf(r) != "" || strings.Contains(fmt.Sprint(r.Messages), "やまかわ") {
		t.Fatalf("the old answer is in a prompt that did not reply to it:\n%v", r.Messages)
	}

	req, q := h.reply(old.ID, "これ何だっけ？")
	chain := chainOf(req)
	if !strings.Contains(chain, "あなた (よろず): 合言葉は「やまかわ」です。") || !strings.Contains(chain, "user1: 合言葉を決めて") {
		t.Errorf("the replied-to answer and its question are not in the prompt:\n%s", chain)
	}
	// It came from the database: Discord was not asked for it.
	for _, c := range h.discord.Calls() {
		if c.Method == "GET" && strings.HasPrefix(c.Path, "/channels/"+channelID+"/messages/") {
			t.Errorf("fetched %s although the message is stored", c.Path)
		}
	}
	// The reply is kept with what it replied to.
	h.waitCount(t, "SELECT count(*) FROM messages WHERE platform_message_id = '"+q.ID+"' AND reply_to_platform_id = '"+old.ID+"'", 1)
}

func TestReplyChainFromDiscord(t *testing.T) {
	h := startChannels(t)
	// Two messages that do not mention the bot: it never stored them.
	first := h.discord.SendMessage(&discordgo.Message{ChannelID: channelID, GuildID: guildID, Content: "週末はキャンプに行こう",
		Author: &discordgo.User{ID: bobID, Username: "bob"}})
	second := h.discord.SendMessage(&discordgo.Message{ChannelID: channelID, GuildID: guildID, Content: "どこのキャンプ場？",
		Author:           &discordgo.User{ID: aliceID, Username: "alice"},
		MessageReference: &discordgo.MessageReference{MessageID: first.ID, ChannelID: channelID}})
	req, _ := h.reply(second.ID, "おすすめある？")
	chain := chainOf(req)
	i, j := strings.Index(chain, "bob: 週末はキャンプに行こう"), strings.Index(chain, "alice: どこのキャンプ場？")
	if i < 0 || j < i {
		t.Errorf("the chain from Discord is not in the prompt, oldest first:\n%s", chain)
	}
	// The message replied to came with the gateway event; the one it
	// replied to was fetched.
	var fetched []string
	for _, c := range h.discord.Calls() {
		if c.Method == "GET" && strings.HasPrefix(c.Path, "/channels/"+channelID+"/messages/") {
			fetched = append(fetched, strings.TrimPrefix(c.Path, "/channels/"+channelID+"/messages/"))
		}
	}
	if strings.Join(fetched, ",") != first.ID {
		t.Errorf("fetched %v; want only %s", fetched, first.ID)
	}
}

func TestReplyToADeletedMessage(t *testing.T) {
	h := startChannels(t)
	req, _ := h.reply("1299999999999999999", "消えた発言への返信")
	if chain := chainOf(req); chain != "" {
		t.Errorf("a chain for a message Discord does not have:\n%s", chain)
	}
}

// A persona and a mode set on the admin page are in force at the next
// turn, not once the settings are read again.
func TestAdminPageChannelSettingsInForceAtOnce(t *testing.T) {
	h := startChannels(t)
	h.ask(channelID, "はじめまして") // the page lists channels that talked to yorozu
	c := h.adminClient(t)
	c.call(t, "PUT", "/api/channels/"+channelID, nil, `{"persona":"あなたは海賊です。"}`)
	if p := personaOf(t, h.ask(channelID, "船の話をして")); p != "あなたは海賊です。" {
		t.Errorf("persona right after the page set it = %q", p)
	}
	c.call(t, "PUT", "/api/channels/"+channelID, nil, `{"mode":"free"}`)
	h.discord.SendMessage(&discordgo.Message{ChannelID: channelID, GuildID: guildID, Content: "メンションなしで",
		Author: &discordgo.User{ID: aliceID, Username: "alice"}})
	h.waitReply(t, 3, equals("メンションなしで")) // after the two asks' answers: free mode is in force
	c.call(t, "DELETE", "/api/channels/"+channelID, nil)
	if p := personaOf(t, h.ask(channelID, "もう海賊じゃない？")); p != "" {
		t.Errorf("persona after the page reset it = %q", p)
	}
}
