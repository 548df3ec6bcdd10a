package main

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// ownPostsModel writes yorozu's posts — a weather comment, a scheduled
// post, a digest — and answers a question replying to a post with
// 「返事です。」, keeping what the model read for that question.
type ownPostsModel struct {
	mu   sync.Mutex
	read [][]api.Message // the messages of each reply's turn
}

// The texts the model writes for yorozu's own posts.
const (
	weatherComment = "今日は洗濯日和です。夕方から風が強まります。"
	scheduledText  = "今日のお題：好きな鍋の具を教えてください。"
	digestText     = "**忘年会**\n- ✅ 決定: 金曜19時に駅前 [1]"
)

func (m *ownPostsModel) handle(req api.ChatRequest) ollamatest.Reply {
	last := req.Messages[len(req.Messages)-1].Content
	switch {
	case strings.Contains(last, "これってどういうこと？"):
		m.mu.Lock()
		m.read = append(m.read, slices.Clone(req.Messages))
		m.mu.Unlock()
		return ollamatest.Text("返事です。")
	case strings.Contains(req.Messages[0].Content, "チャンネルの会話を要約します"):
		return ollamatest.Text(digestText)
	case strings.Contains(last, "今日のお題を出して"):
		return ollamatest.Text(scheduledText)
	}
	return ollamatest.Text(weatherComment)
}

// asYorozu reports whether the model was given text as something yorozu
// itself said: an answer of its own in the conversation, or a line of the
// reply chain spoken by 「あなた (よろず)」.
func asYorozu(msgs []api.Message, text string) bool {
	for _, m := range msgs {
		if m.Role == "assistant" && strings.Contains(m.Content, text) ||
			strings.Contains(m.Content, "あなた (よろず): "+text) {
			return true
		}
	}
	return false
}

// joined is the messages' text, for a failure's message.
func joined(msgs []api.Message) string {
	var all []string
	for _, m := range msgs {
		all = append(all, m.Role+": "+m.Content)
	}
	return strings.Join(all, "\n")
}

// replyTo has alice reply to post, mentioning yorozu, and returns what the
// model read for the answer.
func (h *harness) replyTo(t *testing.T, m *ownPostsModel, post discordtest.Message) []api.Message {
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
	var read []api.Message
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

// firstLine is the first line of a post: what the model must have read of
// it as yorozu's own words.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// TestRepliesToOwnPostsCarryThem: a member who replies to one of yorozu's
// own posts — a reminder, a scheduled post, a digest, a weather post and an
// earthquake report, by bot message or through one of yorozu's webhooks —
// and asks about it has that post in the model's context, as what yorozu
// itself said. A post of a webhook that is not yorozu's is a member's.
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
			if read := h.replyTo(t, m, post); !asYorozu(read, firstLine(post.Content)) {
				t.Errorf("a reply to the post %q: the model did not read it as yorozu's:\n%s", post.Content, joined(read))
			}
		}
	})
	t.Run("scheduled post and digest", func(t *testing.T) {
		c := useClock(t, time.Date(2026, 12, 4, 16, 0, 0, 0, tokyo))
		h := start(t, map[string]string{"DIGEST_MIN_MESSAGES": "1"})
		m := &ownPostsModel{}
		h.handle(m.handle)
		manager := member(aliceID, discordgo.PermissionManageChannels)
		if got := h.slash(t, manager, "schedule", "add", stringOpt("when", "毎日17時"), stringOpt("prompt", "今日のお題を出して")); !strings.Contains(got, "#1 を登録しました") {
			t.Fatalf("/schedule add: %q", got)
		}
		if got := h.slash(t, manager, "schedule", "add", stringOpt("when", "毎日17時"), stringOpt("prompt", "今日の話題"), stringOpt("kind", "digest")); !strings.Contains(got, "#2 を登録しました") {
			t.Fatalf("/schedule add kind:digest: %q", got)
		}
		h.sayAt(bobID, "忘年会は金曜19時に駅前でどう？", time.Date(2026, 12, 4, 16, 30, 0, 0, tokyo))
		h.jump(t, c, time.Date(2026, 12, 4, 17, 0, 0, 0, tokyo))
		scheduled, digest := h.postWith(t, scheduledText), h.postWith(t, "のまとめ**")
		for _, post := range []discordtest.Message{scheduled, digest} {
			if read := h.replyTo(t, m, post); !asYorozu(read, firstLine(post.Content)) {
				t.Errorf("a reply to the post %q: the model did not read it as yorozu's:\n%s", post.Content, joined(read))
			}
		}
	})
	t.Run("weather and earthquake through webhooks", func(t *testing.T) {
		const weatherHook, quakeHook = "500000000000000001", "500000000000000009"
		quakeJMA := fakeQuakeJMA(t)
		var weatherURL, quakeURL string
		h := startHarness(t, nil, func(h *harness) {
			weatherURL = h.discord.URL() + "api/v10/webhooks/" + weatherHook + "/weather-token"
			quakeURL = h.discord.URL() + "api/v10/webhooks/" + quakeHook + "/quake-token"
			h.discord.AddWebhook(weatherHook, "weather-token", channelID)
			h.discord.AddWebhook(quakeHook, "quake-token", channelID)
			// yorozu serving knows its webhooks from the same settings
			// as the jobs that post through them.
			h.env["WEATHER_WEBHOOK_URL"], h.env["QUAKE_WEBHOOK_URL"] = weatherURL, quakeURL
			h.env["JMA_BASE_URL"], h.env["QUAKE_AREAS"] = quakeJMA, "石川県"
		})
		m := &ownPostsModel{}
		h.handle(m.handle)
		h.runJobNow(t, "weather", map[string]string{"WEATHER_WEBHOOK_URL": weatherURL, "JMA_BASE_URL": fakeJMA(t)})
		h.runJobNow(t, "disaster", map[string]string{"QUAKE_WEBHOOK_URL": quakeURL, "JMA_BASE_URL": quakeJMA, "QUAKE_AREAS": "石川県"})
		for _, text := range []string{"洗濯日和", "最大震度5強"} {
			post := h.postWith(t, text)
			if read := h.replyTo(t, m, post); !asYorozu(read, firstLine(post.Content)) {
				t.Errorf("a reply to the webhook post %q: the model did not read it as yorozu's:\n%s", post.Content, joined(read))
			}
		}

		// Another webhook's post is a member's words, not yorozu's.
		h.discord.AddWebhook("500000000000000077", "other-token", channelID)
		other := h.discord.SendMessage(&discordgo.Message{ChannelID: channelID, GuildID: guildID, WebhookID: "500000000000000077",
			Content: "GitHub: 新しいリリースが出ました", Author: &discordgo.User{ID: "500000000000000077", Username: "GitHub", Bot: true}})
		read := h.replyTo(t, m, h.postWith(t, other.Content))
		if asYorozu(read, other.Content) || !strings.Contains(joined(read), other.Content) {
			t.Errorf("a reply to another webhook's post: the model read\n%s", joined(read))
		}
	})
}
