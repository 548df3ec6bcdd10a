package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
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

// fakeResponder records requests and runs a per-test script.
type fakeResponder struct {
	mu     sync.Mutex
	reqs   []chat.Request
	script func(ctx context.Context, req chat.Request, emit func(llm.Event) error) error
	// entered, when set, is called as a turn reaches the responder, before
	// it waits for req.Admit (unless ignoreAdmit: a responder that does not).
	entered     func(chat.Request)
	ignoreAdmit bool
}

var _ Responder = (*fakeResponder)(nil)

// Respond waits for req.Admit, as chat's handlers do before the model
// call; requests records the turns admitted.
func (f *fakeResponder) Respond(ctx context.Context, req chat.Request, emit func(llm.Event) error) error {
	f.mu.Lock()
	entered, ignore := f.entered, f.ignoreAdmit
	f.mu.Unlock()
	if entered != nil {
		entered(req)
	}
	if req.Admit != nil && !ignore {
		if err := req.Admit(ctx); err != nil {
			return err
		}
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	script := f.script
	f.mu.Unlock()
	if script == nil {
		return say("了解です。")(ctx, req, emit)
	}
	return script(ctx, req, emit)
}

func (f *fakeResponder) requests() []chat.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]chat.Request(nil), f.reqs...)
}

// say is a script that streams the given chunks and finishes.
func say(chunks ...string) func(context.Context, chat.Request, func(llm.Event) error) error {
	return func(_ context.Context, _ chat.Request, emit func(llm.Event) error) error {
		for _, c := range chunks {
			if err := emit(llm.Text{Text: c}); err != nil {
				return err
			}
		}
		return emit(llm.Done{})
	}
}

type harness struct {
	t    *testing.T
	srv  *discordtest.Server
	bot  *Bot
	resp *fakeResponder
	ctx  context.Context
	logs *logtest.Buffer // the bot's log, shown when a wait fails
}

const (
	guildID = "900"
	chanID  = "500"
)

func start(t *testing.T, mod func(*Options)) *harness {
	t.Helper()
	h, _ := startFaulty(t, nil, mod)
	if !h.bot.Ready() {
		t.Fatal("Ready() = false after Start")
	}
	return h
}

// mention posts a guild message from user that mentions the bot.
func (h *harness) mention(channel, user, text string) *discordgo.Message {
	return h.srv.SendMessage(&discordgo.Message{
		ChannelID: channel, GuildID: guildID,
		Author:   &discordgo.User{ID: user, Username: "user" + user},
		Content:  "<@" + h.srv.BotID() + "> " + text,
		Mentions: []*discordgo.User{{ID: h.srv.BotID()}},
	})
}

// waitBot waits until the bot's messages in channel satisfy cond.
func (h *harness) waitBot(channel string, cond func([]discordtest.Message) bool) []discordtest.Message {
	h.t.Helper()
	var msgs []discordtest.Message
	err := h.srv.WaitFor(h.ctx, func() bool {
		msgs = h.srv.BotMessages(channel)
		return cond(msgs)
	})
	if err != nil {
		h.t.Fatalf("bot messages in %s: %v; have %d: %+v\nlog:\n%s", channel, err, len(msgs), msgs, h.logs)
	}
	return msgs
}

// waitText waits until the bot's messages in channel read exactly want.
func (h *harness) waitText(channel string, want ...string) []discordtest.Message {
	h.t.Helper()
	return h.waitBot(channel, func(ms []discordtest.Message) bool {
		if len(ms) != len(want) {
			return false
		}
		for i := range ms {
			if ms[i].Content != want[i] {
				return false
			}
		}
		return true
	})
}

func callsTo(calls []discordtest.Call, method, prefix string) []discordtest.Call {
	var out []discordtest.Call
	for _, c := range calls {
		if c.Method == method && strings.HasPrefix(c.Path, prefix) {
			out = append(out, c)
		}
	}
	return out
}

func TestMentionStreamsReply(t *testing.T) {
	t.Parallel()
	h := start(t, nil)
	h.resp.script = func(_ context.Context, _ chat.Request, emit func(llm.Event) error) error {
		emit(llm.Thinking{Text: "ひみつの思考"})
		emit(llm.Text{Text: "こんにちは"})
		emit(llm.Thinking{Text: "もっとひみつ"})
		emit(llm.Text{Text: "、@everyone さん！"})
		return emit(llm.Done{})
	}
	user := h.mention(chanID, "42", "挨拶して")
	msgs := h.waitText(chanID, "こんにちは、@everyone さん！")

	if ref := msgs[0].Reference; ref == nil || ref.MessageID != user.ID {
		t.Errorf("reply reference = %+v, want message %s", ref, user.ID)
	}
	calls := h.srv.Calls()
	var posts []discordtest.Call
	for _, c := range calls {
		if c.Method == "POST" && strings.HasPrefix(c.Path, "/channels/"+chanID+"/") {
			posts = append(posts, c)
		}
		if strings.Contains(c.Content, "ひみつ") || strings.Contains(string(c.Body), "ひみつ") {
			t.Errorf("thinking text reached Discord: %s %s", c.Method, c.Path)
		}
	}
	if len(posts) == 0 || !strings.HasSuffix(posts[0].Path, "/typing") {
		t.Errorf("first POST to the channel is not typing: %+v", posts)
	}
	for _, c := range append(callsTo(calls, "POST", "/channels/"+chanID+"/messages"), callsTo(calls, "PATCH", "/channels/")...) {
		var body struct {
			AllowedMentions *struct {
				Parse       []string `json:"parse"`
				RepliedUser bool     `json:"replied_user"`
			} `json:"allowed_mentions"`
		}
		json.Unmarshal(c.Body, &body)
		if am := body.AllowedMentions; am == nil || am.Parse == nil || len(am.Parse) != 0 || am.RepliedUser {
			t.Errorf("%s %s allowed_mentions = %s, want no parse and no replied_user", c.Method, c.Path, c.Body)
		}
	}
	reqs := h.resp.requests()
	if len(reqs) != 1 {
		t.Fatalf("responder called %d times", len(reqs))
	}
	want := chat.Request{
		Session: "discord:channel:" + chanID, Source: "discord", GuildID: guildID, ChannelID: chanID,
		MessageID: user.ID, AuthorID: "42", AuthorName: "user42", Text: "挨拶して",
	}
	got := reqs[0]
	got.At = time.Time{}
	if got.Release == nil {
		t.Error("the request has no Release: the channel's next turn would wait for the whole turn")
	}
	got.Release = nil
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("request = %+v\nwant      %+v", got, want)
	}
}

func TestIgnoredMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		msg  func(botID string) *discordgo.Message
	}{
		{"own message", func(botID string) *discordgo.Message {
			return &discordgo.Message{Author: &discordgo.User{ID: botID, Bot: true}, Content: "<@" + botID + "> loop?"}
		}},
		{"other bot", func(botID string) *discordgo.Message {
			return &discordgo.Message{Author: &discordgo.User{ID: "77", Bot: true}, Content: "<@" + botID + "> hi",
				Mentions: []*discordgo.User{{ID: botID}}}
		}},
		{"webhook", func(botID string) *discordgo.Message {
			return &discordgo.Message{Author: &discordgo.User{ID: "78"}, WebhookID: "78", Content: "<@" + botID + "> hi"}
		}},
		{"guild message without mention", func(string) *discordgo.Message {
			return &discordgo.Message{Author: &discordgo.User{ID: "79"}, Content: "ねえ、誰か"}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := start(t, nil)
			m := tc.msg(h.srv.BotID())
			m.ChannelID, m.GuildID = chanID, guildID
			h.srv.SendMessage(m)
			// The channel answers in order: once a later mention is answered,
			// the ignored message was seen and would have been answered first.
			sentinel := h.mention(chanID, "80", "sentinel")
			replies := func(ms []discordtest.Message) (out []discordtest.Message) {
				for _, m := range ms {
					if m.Reference != nil {
						out = append(out, m)
					}
				}
				return out
			}
			h.waitBot(chanID, func(ms []discordtest.Message) bool { return len(replies(ms)) > 0 })
			if r := replies(h.srv.BotMessages(chanID)); len(r) != 1 || r[0].Reference.MessageID != sentinel.ID {
				t.Errorf("bot replies = %+v, want one, to the sentinel", r)
			}
			if n := len(callsTo(h.srv.Calls(), "POST", "/channels/"+chanID+"/typing")); n != 1 {
				t.Errorf("typing calls = %d, want 1 (sentinel only)", n)
			}
			if reqs := h.resp.requests(); len(reqs) != 1 || reqs[0].Text != "sentinel" {
				t.Errorf("responder got %+v, want only the sentinel", reqs)
			}
		})
	}
}

func TestDirectMessageWithoutMention(t *testing.T) {
	t.Parallel()
	h := start(t, nil)
	h.srv.SendMessage(&discordgo.Message{ChannelID: "600", Author: &discordgo.User{ID: "42", Username: "alice"}, Content: "こんばんは"})
	h.waitText("600", "了解です。")
	if reqs := h.resp.requests(); len(reqs) != 1 || reqs[0].Session != "discord:dm:600" || reqs[0].Text != "こんばんは" {
		t.Errorf("requests = %+v", reqs)
	}
}

func TestMentionStripped(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, content, want string }{
		{"plain mention first", "<@%s> 天気は？", "天気は？"},
		{"nick mention", "<@!%s>  天気は？ ", "天気は？"},
		{"mention last", "天気は？ <@%s>", "天気は？"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := start(t, nil)
			// No parsed Mentions: the text alone counts as a mention.
			h.srv.SendMessage(&discordgo.Message{ChannelID: chanID, GuildID: guildID,
				Author: &discordgo.User{ID: "42"}, Content: fmt.Sprintf(tc.content, h.srv.BotID())})
			h.waitText(chanID, "了解です。")
			if reqs := h.resp.requests(); len(reqs) != 1 || reqs[0].Text != tc.want {
				t.Errorf("requests = %+v, want text %q", reqs, tc.want)
			}
		})
	}
}

func TestOtherMentionsBecomeNames(t *testing.T) {
	t.Parallel()
	h := start(t, nil)
	h.srv.SendMessage(&discordgo.Message{ChannelID: chanID, GuildID: guildID,
		Author:   &discordgo.User{ID: "42", Username: "alice"},
		Content:  fmt.Sprintf("<@%s> <@77> と <@!78> に伝えて", h.srv.BotID()),
		Mentions: []*discordgo.User{{ID: h.srv.BotID(), Bot: true}, {ID: "77", Username: "bob"}, {ID: "78", Username: "carol", GlobalName: "キャロル"}}})
	h.waitText(chanID, "了解です。")
	if reqs := h.resp.requests(); len(reqs) != 1 || reqs[0].Text != "@bob と @キャロル に伝えて" {
		t.Errorf("requests = %+v", reqs)
	}
}

func TestEmptyMention(t *testing.T) {
	t.Parallel()
	h := start(t, nil)
	m := h.mention(chanID, "42", "")
	msgs := h.waitText(chanID, emptyMentionReply)
	if msgs[0].Reference == nil || msgs[0].Reference.MessageID != m.ID {
		t.Errorf("reference = %+v", msgs[0].Reference)
	}
	if n := len(h.resp.requests()); n != 0 {
		t.Errorf("responder called %d times for an empty mention", n)
	}
}

func TestLongReplySplitsWithFences(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("説明します。\n\n")
	for b.Len() < 2500 {
		b.WriteString("これはとても長い説明の文です。")
	}
	b.WriteString("\n\n```go\n")
	for utf8.RuneCountInString(b.String()) < 4200 {
		b.WriteString("fmt.Println(\"一行ずつ出力します\") // comment\n")
	}
	b.WriteString("```\n\n")
	for utf8.RuneCountInString(b.String()) < 5000 {
		b.WriteString("まとめの文です。")
	}
	text := b.String()
	var chunks []string
	for r := []rune(text); len(r) > 0; {
		n := min(len(r), 97)
		chunks = append(chunks, string(r[:n]))
		r = r[n:]
	}

	h := start(t, nil)
	h.resp.script = say(chunks...)
	h.mention(chanID, "42", "長く説明して")
	want := splitMessage(text, maxMessageRunes)
	msgs := h.waitText(chanID, want...)

	if len(msgs) < 3 {
		t.Fatalf("got %d messages, want at least 3", len(msgs))
	}
	var joined strings.Builder
	for i, m := range msgs {
		if n := utf8.RuneCountInString(m.Content); n > maxMessageRunes {
			t.Errorf("message %d has %d characters", i, n)
		}
		if n := strings.Count(m.Content, "```"); n%2 != 0 {
			t.Errorf("message %d has unbalanced fences", i)
		}
		joined.WriteString(m.Content)
	}
	strip := strings.NewReplacer("```go", "", "```", "", "\n", "")
	if strip.Replace(joined.String()) != strip.Replace(text) {
		t.Error("messages do not add up to the answer (modulo fences)")
	}
	if msgs[1].Reference != nil {
		t.Error("continuation parts should not be replies")
	}
}

func TestEditsThrottledFinalComplete(t *testing.T) {
	t.Parallel()
	h := start(t, func(o *Options) { o.EditInterval = time.Hour })
	var chunks []string
	for i := range 60 {
		chunks = append(chunks, fmt.Sprintf("%d,", i))
	}
	h.resp.script = say(chunks...)
	h.mention(chanID, "42", "数えて")
	h.waitText(chanID, strings.Join(chunks, ""))
	if n := len(callsTo(h.srv.Calls(), "PATCH", "/channels/")); n > 1 {
		t.Errorf("%d edits with a one-hour edit interval, want at most 1 (the final)", n)
	}
}

func TestRateLimitedEditKeepsText(t *testing.T) {
	t.Parallel()
	h := start(t, nil)
	h.srv.RateLimitNext("PATCH", "/channels/"+chanID+"/messages/", 2, 30*time.Millisecond)
	h.resp.script = func(ctx context.Context, _ chat.Request, emit func(llm.Event) error) error {
		emit(llm.Text{Text: "前半、"})
		h.waitBot(chanID, func(ms []discordtest.Message) bool { return len(ms) == 1 })
		emit(llm.Text{Text: "後半。"})
		return emit(llm.Done{})
	}
	h.mention(chanID, "42", "話して")
	h.waitText(chanID, "前半、後半。")
	limited := 0
	for _, c := range h.srv.Calls() {
		if c.Status == 429 {
			limited++
		}
	}
	if limited == 0 {
		t.Error("no edit was rate limited; the test did not exercise 429")
	}
}

func TestToolStatusReplacedByAnswer(t *testing.T) {
	t.Parallel()
	h := start(t, nil)
	h.resp.script = func(ctx context.Context, _ chat.Request, emit func(llm.Event) error) error {
		emit(llm.ToolStarted{Name: "web_search", Arguments: `{"query":"東京 天気"}`})
		h.waitText(chanID, "🔍 web_search: 東京 天気")
		emit(llm.ToolFinished{Name: "web_search", Result: "晴れ"})
		emit(llm.ToolStarted{Name: "read_note", Arguments: `{"page":1,"title":"x"}`})
		h.waitText(chanID, `🔧 read_note: {"page":1,"title":"x"}`)
		emit(llm.Text{Text: "東京は晴れです。"})
		return emit(llm.Done{})
	}
	h.mention(chanID, "42", "東京の天気")
	h.waitText(chanID, "東京は晴れです。")
}

func TestFailureNotices(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"model not found", fmt.Errorf("chat: %w", &llm.ModelNotFoundError{Op: "chat", Model: "qwen3:4b"}),
			"モデル qwen3:4b が見つかりません。サーバーで `ollama pull qwen3:4b` を実行してください。"},
		{"ollama unavailable", fmt.Errorf("chat qwen3:4b: %w: dial tcp: connection refused", llm.ErrUnavailable), unavailableReply},
		{"other error", errors.New("record turn: boom"), genericErrorReply},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := start(t, nil)
			h.resp.script = func(_ context.Context, _ chat.Request, emit func(llm.Event) error) error {
				emit(llm.Failed{Err: tc.err})
				return tc.err
			}
			h.mention(chanID, "42", "質問")
			h.waitText(chanID, tc.want)
		})
	}
}

func TestOneChannelAnsweredInOrder(t *testing.T) {
	t.Parallel()
	h := start(t, nil)
	release := make(chan struct{})
	h.resp.script = func(ctx context.Context, req chat.Request, emit func(llm.Event) error) error {
		if req.AuthorID == "1" {
			<-release
		}
		return say("答え:"+req.Text)(ctx, req, emit)
	}
	a := h.mention(chanID, "1", "A")
	h.srv.WaitFor(h.ctx, func() bool { return len(h.resp.requests()) == 1 })
	b := h.mention(chanID, "2", "B")
	// A message in another channel is answered meanwhile: channels run in
	// parallel, and by now B has been received.
	h.mention("501", "3", "C")
	h.waitText("501", "答え:C")
	// B is told at once that it waits, and where.
	h.waitText(chanID, "⏳ 順番待ち: 2 番目")
	for _, r := range h.resp.requests() {
		if r.Text == "B" {
			t.Fatal("B answered while A was still running")
		}
	}
	close(release)
	// B's notice became B's answer; A's answer came after it.
	msgs := h.waitText(chanID, "答え:B", "答え:A")
	if msgs[0].Reference.MessageID != b.ID || msgs[1].Reference.MessageID != a.ID {
		t.Errorf("replies reference %s, %s; want %s, %s", msgs[0].Reference.MessageID, msgs[1].Reference.MessageID, b.ID, a.ID)
	}
	var order []string
	for _, r := range h.resp.requests() {
		if r.ChannelID == chanID {
			order = append(order, r.Text)
		}
	}
	if strings.Join(order, ",") != "A,B" {
		t.Errorf("answered %v, want A then B", order)
	}
}

// A turn released by its responder (complete, and in the session's context
// for the next) lets the channel's next turn start while it is still being
// stored.
func TestNextTurnStartsOnceReleased(t *testing.T) {
	t.Parallel()
	h := start(t, nil)
	stored := make(chan struct{})
	h.resp.script = func(ctx context.Context, req chat.Request, emit func(llm.Event) error) error {
		if err := say("答え:"+req.Text)(ctx, req, emit); err != nil {
			return err
		}
		if req.Text == "A" {
			req.Release()
			<-stored // A is still being stored
		}
		return nil
	}
	h.mention(chanID, "1", "A")
	h.waitText(chanID, "答え:A")
	h.mention(chanID, "2", "B")
	h.waitText(chanID, "答え:A", "答え:B")
	close(stored)
}

// A file that came before the answer was complete (a chart drawn while the
// model wrote) goes out in the answer's message: the typing indicator and
// one POST, nothing more.
func TestFileWithTheAnswerGoesInItsMessage(t *testing.T) {
	t.Parallel()
	h := start(t, nil)
	h.resp.script = func(ctx context.Context, req chat.Request, emit func(llm.Event) error) error {
		emit(llm.Text{Text: "晴れです。"})
		emit(llm.File{Name: "forecast.png", ContentType: "image/png", Data: []byte("\x89PNG fake")})
		return emit(llm.Done{})
	}
	before := len(h.srv.Calls())
	h.mention(chanID, "1", "天気は？")
	h.waitBot(chanID, func(ms []discordtest.Message) bool { return len(ms) > 0 && len(ms[0].Attachments) > 0 })
	time.Sleep(200 * time.Millisecond) // anything more would have come by now
	msgs := h.srv.BotMessages(chanID)
	if len(msgs) != 1 || msgs[0].Content != "晴れです。" || msgs[0].Attachments[0].Filename != "forecast.png" {
		t.Fatalf("messages %+v; want the answer with its chart", msgs)
	}
	var writes []string
	for _, c := range h.srv.Calls()[before:] {
		if c.Method != "GET" {
			writes = append(writes, c.Method+" "+c.Path)
		}
	}
	if len(writes) > 2 {
		t.Errorf("%d writes for the answer and its chart: %v", len(writes), writes)
	}
}

func TestQueuedShowsPlaceInLine(t *testing.T) {
	t.Parallel()
	h := start(t, nil)
	h.resp.script = func(ctx context.Context, req chat.Request, emit func(llm.Event) error) error {
		emit(llm.Queued{Position: 1}) // next: one turn is answered before it
		h.waitText(chanID, "⏳ 順番待ち: 2 番目")
		return say("お待たせしました。")(ctx, req, emit)
	}
	h.mention(chanID, "42", "質問")
	h.waitText(chanID, "お待たせしました。")
}

func TestUserRateLimit(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	h := start(t, func(o *Options) {
		o.RateLimit, o.RateWindow = 2, time.Minute
		o.Now = func() time.Time { return now }
	})
	for i := range 4 {
		h.mention(chanID, "42", fmt.Sprintf("質問%d", i))
	}
	h.mention(chanID, "43", "別の人")
	h.waitBot(chanID, func(ms []discordtest.Message) bool {
		for _, m := range ms {
			if strings.HasPrefix(m.Content, "⏳") {
				return false // a waiting notice not yet turned into its answer
			}
		}
		return len(ms) == 4
	})
	var notices int
	for _, m := range h.srv.BotMessages(chanID) {
		if m.Content == rateLimitedReply {
			notices++
		}
	}
	if notices != 1 {
		t.Errorf("%d rate-limit notices, want 1", notices)
	}
	var texts []string
	for _, r := range h.resp.requests() {
		texts = append(texts, r.Text)
	}
	if got := strings.Join(texts, ","); got != "質問0,質問1,別の人" {
		t.Errorf("answered %s, want 質問0,質問1,別の人", got)
	}
}

func TestLongUserMessageReachesResponder(t *testing.T) {
	t.Parallel()
	h := start(t, nil)
	long := strings.Repeat("長文テスト。", 20000/6)
	h.mention(chanID, "42", long)
	h.waitText(chanID, "了解です。")
	if reqs := h.resp.requests(); len(reqs) != 1 || reqs[0].Text != long {
		t.Errorf("responder did not get the whole %d-character message", utf8.RuneCountInString(long))
	}
}

func TestStopCutsRunningReply(t *testing.T) {
	t.Parallel()
	h := start(t, func(o *Options) { o.ShutdownTimeout = 50 * time.Millisecond })
	h.resp.script = func(ctx context.Context, _ chat.Request, emit func(llm.Event) error) error {
		emit(llm.Text{Text: "途中まで"})
		<-ctx.Done()
		return ctx.Err()
	}
	h.mention(chanID, "42", "長い話")
	h.waitText(chanID, "途中まで")
	h.bot.Stop()
	h.bot.Stop() // idempotent
	if h.bot.Ready() {
		t.Error("Ready() after Stop")
	}
	h.waitText(chanID, "途中まで\n\n"+stoppedReply)
}

func TestSlashCommandRegisteredAndHandled(t *testing.T) {
	t.Parallel()
	srv := discordtest.New(t)
	b, err := New(Options{Token: "t", APIBase: srv.URL(), Responder: &fakeResponder{}})
	if err != nil {
		t.Fatal(err)
	}
	handled := make(chan string, 1)
	b.AddCommand(commands.Command{Name: "ping", Description: "疎通確認",
		Run: func(_ context.Context, req commands.Request) commands.Reply {
			handled <- req.Command
			return commands.Text("pong")
		}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := b.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer b.Stop()
	if cmds := srv.Commands(); len(cmds) != 1 || cmds[0].Name != "ping" {
		t.Fatalf("registered commands = %+v", cmds)
	}
	srv.SendInteraction(&discordgo.Interaction{Type: discordgo.InteractionApplicationCommand, ChannelID: chanID,
		Data: discordgo.ApplicationCommandInteractionData{Name: "ping"}})
	select {
	case name := <-handled:
		if name != "ping" {
			t.Errorf("handled %q", name)
		}
	case <-ctx.Done():
		t.Fatal("command not handled")
	}
}

func TestReconnectAfterDisconnect(t *testing.T) {
	t.Parallel()
	h := start(t, nil)
	h.srv.Disconnect()
	// discordgo retries a failed reconnect after 1, 2, 4, 8, 16 s; on a
	// loaded machine the first tries can time out, so allow for a few.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := h.srv.WaitFor(ctx, func() bool { return h.srv.Sessions() >= 2 }); err != nil {
		t.Fatalf("bot did not reconnect: %v", err)
	}
	h.mention(chanID, "42", "戻った？")
	h.waitText(chanID, "了解です。")
}
