package main

import (
	"context"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// say sends a guild message from user in the test channel without
// mentioning the bot.
func (h *harness) say(user, text string, mentioned ...*discordgo.User) *discordgo.Message {
	return h.discord.SendMessage(&discordgo.Message{
		ChannelID: channelID, GuildID: guildID, Content: text, Mentions: mentioned,
		Author: &discordgo.User{ID: user, Username: "user" + user[len(user)-1:]},
	})
}

// waitButton waits for the bot's n-th message in the test channel to carry
// a button labelled label, and returns it.
func (h *harness) waitButton(t *testing.T, n int, label string) discordtest.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var m discordtest.Message
	err := h.discord.WaitFor(ctx, func() bool {
		msgs := h.discord.BotMessages(channelID)
		if len(msgs) < n {
			return false
		}
		m = msgs[n-1]
		for _, b := range m.Buttons() {
			if b.Label == label {
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("no button %q on reply #%d: %+v", label, n, m)
	}
	return m
}

// TestFreeChannelAndRegenerate: after /channel mode free the channel's
// plain messages are answered, except one for someone else and one
// starting with //; 再生成 replaces the answer in its message and the
// conversation goes on with the new one.
func TestFreeChannelAndRegenerate(t *testing.T) {
	h := start(t, nil)
	h.discord.PutChannelInGuild(channelID, guildID)
	var mu sync.Mutex
	asked := 0
	h.handle(func(req api.ChatRequest) ollamatest.Reply {
		mu.Lock()
		defer mu.Unlock()
		if req.Messages[len(req.Messages)-1].Content == "おすすめの本は？" {
			asked++
			return ollamatest.Text(map[int]string{1: "最初の答え", 2: "二度目の答え"}[asked])
		}
		return ollamatest.Echo(req)
	})
	mod := member(bobID, discordgo.PermissionManageChannels)
	got := h.slash(t, mod, "channel", "mode", &discordgo.ApplicationCommandInteractionDataOption{
		Name: "value", Type: discordgo.ApplicationCommandOptionString, Value: "free"})
	if !strings.HasPrefix(got, "このチャンネルのモードを free") {
		t.Fatalf("/channel mode free = %q", got)
	}

	h.say(aliceID, "<@"+bobID+"> あとで話そう", &discordgo.User{ID: bobID, Username: "bob"})
	h.say(aliceID, "// 内輪の話")
	h.say(aliceID, "おすすめの本は？")
	h.waitReply(t, 1, equals("最初の答え"))
	first := h.waitButton(t, 1, "再生成")

	again := h.press(t, first, "再生成", aliceID, 0)
	if again.Type != discordgo.InteractionResponseDeferredMessageUpdate {
		t.Errorf("再生成 answered with type %d %+v, want a deferred update", again.Type, again.Data)
	}
	h.waitReply(t, 1, equals("二度目の答え"))

	h.say(aliceID, "さっきの答えを覚えてる？")
	h.waitReply(t, 2, func(s string) bool { return strings.Contains(s, "さっきの答えを覚えてる？") })
	if n := len(h.discord.BotMessages(channelID)); n != 2 {
		t.Errorf("%d bot messages, want 2 (the messages for others were not answered)", n)
	}
	turns := h.turns()
	var history []string
	for _, m := range turns[len(turns)-1].Messages {
		history = append(history, m.Content)
	}
	joined := strings.Join(history, "\n")
	if !strings.Contains(joined, "二度目の答え") || strings.Contains(joined, "最初の答え") {
		t.Errorf("the next turn's context keeps the wrong answer:\n%s", joined)
	}
	if strings.Contains(joined, "内輪の話") {
		t.Errorf("a // message reached the model:\n%s", joined)
	}
}

var keptIDRe = regexp.MustCompile(`file_id=(\d+)`)

// TestDocumentAttached: a CSV attached to a mention is in the model's
// context; a later question is answered from the kept file through
// read_fetched_file, without downloading it again; a 30 MB file is refused
// with a line after the answer.
func TestDocumentAttached(t *testing.T) {
	h := start(t, nil)
	csv := h.discord.AddAttachment("sales.csv", "text/csv; charset=utf-8", []byte("月,売上\n1月,120\n2月,95\n3月,88\n"))
	huge := h.discord.AddAttachment("huge.pdf", "application/pdf", []byte("%PDF-1.4"))
	huge.Size = 30 << 20
	var mu sync.Mutex
	var firstTurn, toolResult string
	h.handle(func(req api.ChatRequest) ollamatest.Reply {
		mu.Lock()
		defer mu.Unlock()
		last := req.Messages[len(req.Messages)-1]
		switch {
		case last.Role == "user" && strings.Contains(last.Content, "この表を見て"):
			firstTurn = last.Content
			return ollamatest.Text("読みました。")
		case last.Role == "user" && last.Content == "3月の売上は？":
			var id string
			for _, m := range req.Messages {
				if sm := keptIDRe.FindStringSubmatch(m.Content); sm != nil {
					id = sm[1]
				}
			}
			return ollamatest.ToolCalls(ollamatest.Call("read_fetched_file", map[string]any{"file_id": id}))
		case last.Role == "tool":
			toolResult = last.Content
			if strings.Contains(last.Content, "3月,88") {
				return ollamatest.Text("3月は88です。")
			}
			return ollamatest.Text("読めませんでした。")
		}
		return ollamatest.Echo(req)
	})
	h.mentionWith("この表を見て", csv, huge)
	h.waitReply(t, 1, func(s string) bool {
		return strings.HasPrefix(s, "読みました。\n\n") && strings.Contains(s, "※「huge.pdf」は大きすぎるため読んでいません（30.0 MB、10 MB まで）。")
	})
	mu.Lock()
	got := firstTurn
	mu.Unlock()
	if !strings.Contains(got, "「sales.csv」") || !strings.Contains(got, "2月,95") {
		t.Errorf("the model was not given the CSV's rows:\n%s", got)
	}
	downloads := len(h.discord.Downloads())
	if downloads != 1 {
		t.Errorf("%d downloads, want the CSV's only: %v", downloads, h.discord.Downloads())
	}

	h.mention(aliceID, "3月の売上は？")
	h.waitReply(t, 2, equals("3月は88です。"))
	if n := len(h.discord.Downloads()); n != downloads {
		t.Errorf("the later question downloaded again: %v", h.discord.Downloads())
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(toolResult, "sales.csv") {
		t.Errorf("read_fetched_file gave %q", toolResult)
	}
}

// TestThreadChannel: after /channel mode thread a mention opens a thread
// named from the question and is answered there; a follow-up in the
// thread is answered without a mention, with the thread's own
// conversation.
func TestThreadChannel(t *testing.T) {
	h := start(t, nil)
	h.discord.PutChannelInGuild(channelID, guildID)
	h.handle(func(req api.ChatRequest) ollamatest.Reply { return ollamatest.Echo(req) })
	mod := member(bobID, discordgo.PermissionManageChannels)
	if got := h.slash(t, mod, "channel", "mode", &discordgo.ApplicationCommandInteractionDataOption{
		Name: "value", Type: discordgo.ApplicationCommandOptionString, Value: "thread"}); !strings.HasPrefix(got, "このチャンネルのモードを thread") {
		t.Fatalf("/channel mode thread = %q", got)
	}
	q := h.mention(aliceID, "旅行の計画を立てたい")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	wait := func(what string, cond func() bool) {
		t.Helper()
		if err := h.discord.WaitFor(ctx, cond); err != nil {
			t.Fatalf("%s: %v\nstderr:\n%s", what, err, h.stderr.String())
		}
	}
	wait("the answer in a thread", func() bool {
		ms := h.discord.BotMessages(q.ID)
		return len(ms) == 1 && strings.Contains(ms[0].Content, "旅行の計画を立てたい")
	})
	if th, ok := h.discord.Thread(q.ID); !ok || th.ParentID != channelID || th.Name != "旅行の計画を立てたい" {
		t.Errorf("thread = %+v, %v", th, ok)
	}
	// The thread's first turn is stored (it trails the reply a little).
	h.waitCount(t, `SELECT count(*) FROM messages m JOIN sessions s ON s.id = m.session_id
		WHERE s.key = 'discord:channel:`+q.ID+`'`, 2)
	h.discord.SendMessage(&discordgo.Message{ChannelID: q.ID, GuildID: guildID, Content: "予算は5万円",
		Author: &discordgo.User{ID: aliceID, Username: "alice"}})
	wait("the follow-up answered in the thread", func() bool {
		ms := h.discord.BotMessages(q.ID)
		return len(ms) == 2 && strings.Contains(ms[1].Content, "予算は5万円")
	})
	if ms := h.discord.BotMessages(channelID); len(ms) != 0 {
		t.Errorf("answered in the channel too: %+v", ms)
	}
	turns := h.turns()
	var history []string
	for _, m := range turns[len(turns)-1].Messages {
		history = append(history, m.Content)
	}
	if joined := strings.Join(history, "\n"); !strings.Contains(joined, "旅行の計画を立てたい") {
		t.Errorf("the follow-up's context lacks the thread's first question:\n%s", joined)
	}
}

// TestStopButton: 停止 pressed while the model still streams cuts the
// model call; the text so far stays in Discord, shown with 「（停止しました）」,
// and in the conversation without it, and 再生成 takes the button's place.
func TestStopButton(t *testing.T) {
	h := start(t, nil)
	h.discord.PutChannelInGuild(channelID, guildID)
	never := make(chan struct{})
	defer close(never)
	h.handle(func(req api.ChatRequest) ollamatest.Reply {
		return ollamatest.Reply{Chunks: []ollamatest.Chunk{{Content: "途中まで書いた"}, {Content: "続き", Wait: never}}}
	})
	h.mention(aliceID, "長い話をして")
	msg := h.waitButton(t, 1, "停止")
	if r := h.press(t, msg, "停止", bobID, 0); r.Data == nil || !strings.Contains(r.Data.Content, "質問した人") {
		t.Errorf("someone else's 停止 = %+v, want the refusal only they see", r.Data)
	}
	pressed := time.Now()
	h.press(t, h.waitButton(t, 1, "停止"), "停止", aliceID, 0)
	h.waitReply(t, 1, equals("途中まで書いた\n\n（停止しました）"))
	if d := time.Since(pressed); d > time.Second {
		t.Errorf("the answer was cut %v after 停止, want within a second", d)
	}
	h.waitButton(t, 1, "再生成")
	h.waitCount(t, `SELECT count(*) FROM messages WHERE role = 'assistant' AND content = '途中まで書いた'`, 1)
	h.waitCount(t, `SELECT count(*) FROM messages WHERE content LIKE '%停止しました%'`, 0)
}
