package main

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// ownPostsModel answers a weather post with a fixed text, and a question replying to a post with 「返事です。」,
// keeping what the model read for that question.
type ownPostsModel struct {
	mu   sync.Mutex
	read []string // the context of each reply's turn, all messages joined
}

func (m *ownPostsModel) handle(req api.ChatRequest) ollamatest.Reply {
	last := req.Messages[len(req.Messages)-1].Content
	switch {
	case strings.Contains(last, "これってどういうこと？"):
		var all []string
		for _, msg := range req.Messages {
			all = append(all, msg.Content)
		}
		m.mu.Lock()
		m.read = append(m.read, strings.Join(all, "\n"))
		m.mu.Unlock()
		return ollamatest.Text("返事です。")
	}
	return ollamatest.Text("今日は洗濯日和です。夕方から風が強まります。")
}

// replyTo has alice reply to post, mentioning yorozu, and returns what the
// model read for the answer.
func (h *harness) replyTo(t *testing.T, m *ownPostsModel, post discordtest.Message) string {
	t.Helper()
	m.mu.Lock()
	before := len(m.read)
	m.mu.Unlock()
	h.discord.SendMessage(&discordgo.Message{
		ChannelID: channelID, GuildID: guildID, Content: "<@" + h.discord.BotID() + "> これってどういうこと？",
		Author:           &discordgo.User{ID: aliceID, Username: "alice"},
		Mentions:         []*discordgo.User{{ID: h.discord.BotID(), Username: "yorozu", Bot: true}},
		MessageReference: &discordgo.MessageReference{MessageID: post.ID, ChannelID: channelID, GuildID: guildID},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var read string
	if err := h.discord.WaitFor(ctx, func() bool {
		m.mu.Lock()
		defer m.mu.Unlock()
		if len(m.read) > before {
			read = m.read[before]
			return true
		}
		return false
	}); err != nil {
		for _, r := range h.turns() {
			t.Logf("turn: last %q", r.Messages[len(r.Messages)-1].Content)
		}
		t.Fatalf("the reply to %q was not answered; bot messages %+v\nstderr:\n%s", post.Content, h.discord.BotMessages(channelID), h.stderr.String())
	}
	return read
}

// postWith waits for a message in the test channel, the bot's or a
// webhook's, that contains text.
func (h *harness) postWith(t *testing.T, text string) discordtest.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var post discordtest.Message
	if err := h.discord.WaitFor(ctx, func() bool {
		for _, msg := range h.discord.Messages(channelID) {
			if strings.Contains(msg.Content, text) && (msg.AuthorID == h.discord.BotID() || msg.WebhookID != "") {
				post = msg
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("no post with %q in %+v", text, h.discord.Messages(channelID))
	}
	return post
}

// TestRepliesToOwnPostsCarryThem: a member who replies to one of yorozu's
// own posts — a reminder, a weather post and an earthquake report, by bot
// message or through a webhook — and asks about it has that post in the
// model's context.
func TestRepliesToOwnPostsCarryThem(t *testing.T) {
	t.Run("reminder and weather post as bot messages", func(t *testing.T) {
		h := start(t, nil)
		scriptReminder(h, "燃えるゴミを出す", "リマインダーを登録しました。", tokyo)
		h.mention(aliceID, "リマインドして、燃えるゴミを出す")
		reminded := h.postWith(t, "⏰")
		m := &ownPostsModel{}
		h.handle(m.handle)
		h.runJobNow(t, "weather", map[string]string{"WEATHER_CHANNEL_ID": channelID, "JMA_BASE_URL": fakeJMA(t),
			"DISCORD_TOKEN": "test-token", "DISCORD_API_BASE": h.discord.URL()})
		for _, post := range []discordtest.Message{reminded, h.postWith(t, "洗濯日和")} {
			want := post.Content[strings.LastIndex(post.Content, " ")+1:]
			if read := h.replyTo(t, m, post); !strings.Contains(read, want) {
				t.Errorf("a reply to the post %q: the model did not read it:\n%s", post.Content, read)
			}
		}
	})
	t.Run("weather and earthquake through webhooks", func(t *testing.T) {
		h := start(t, nil)
		m := &ownPostsModel{}
		h.handle(m.handle)
		h.discord.AddWebhook("500000000000000001", "weather-token", channelID)
		h.discord.AddWebhook("500000000000000009", "quake-token", channelID)
		h.runJobNow(t, "weather", map[string]string{
			"WEATHER_WEBHOOK_URL": h.discord.URL() + "api/v10/webhooks/500000000000000001/weather-token", "JMA_BASE_URL": fakeJMA(t)})
		h.runJobNow(t, "disaster", map[string]string{
			"QUAKE_WEBHOOK_URL": h.discord.URL() + "api/v10/webhooks/500000000000000009/quake-token",
			"JMA_BASE_URL":      fakeQuakeJMA(t), "QUAKE_AREAS": "石川県"})
		for _, text := range []string{"洗濯日和", "最大震度5強"} {
			post := h.postWith(t, text)
			if read := h.replyTo(t, m, post); !strings.Contains(read, text) {
				t.Errorf("a reply to the webhook post %q: the model did not read it:\n%s", post.Content, read)
			}
		}
	})
}
