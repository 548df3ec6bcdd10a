package main

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// sayAt is a member's message in the test channel written at at on the
// scheduler's clock (its id a snowflake of that time, as Discord's are).
func (h *harness) sayAt(user, text string, at time.Time) *discordgo.Message {
	return h.discord.SendMessage(&discordgo.Message{
		ID: strconv.FormatInt(db.SnowflakeAt(at)+1, 10), Timestamp: at,
		ChannelID: channelID, GuildID: guildID, Content: text,
		Author: &discordgo.User{ID: user, Username: "user" + user[len(user)-1:]},
	})
}

// TestDigestEndToEnd: /schedule add kind:digest makes a daily digest whose
// confirmation says it reads Discord's history (the channel has no log);
// at its time it summarises what members said since, posting once with
// jump links to the real messages; a quiet day (fewer than
// DIGEST_MIN_MESSAGES) posts nothing and is recorded as handled, and the
// schedule goes on.
func TestDigestEndToEnd(t *testing.T) {
	c := useClock(t, time.Date(2026, 12, 7, 20, 0, 0, 0, tokyo))
	h := start(t, map[string]string{"DIGEST_MIN_MESSAGES": "3"})
	var mu sync.Mutex
	var read []string
	asked := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(read)
	}
	h.handle(func(req api.ChatRequest) ollamatest.Reply {
		if strings.Contains(req.Messages[0].Content, "チャンネルの会話を要約します") {
			mu.Lock()
			defer mu.Unlock()
			read = append(read, req.Messages[len(req.Messages)-1].Content)
			return ollamatest.Text("**忘年会**\n- ✅ 決定: 金曜19時に駅前 [2]\n- ❓ 未解決: 予算 [3]")
		}
		return ollamatest.Text("普通の返事です。")
	})

	got := h.slash(t, member(alice, discordgo.PermissionManageChannels), "schedule", "add",
		stringOpt("when", "毎日22時"), stringOpt("prompt", "今日の話題をまとめて"), stringOpt("kind", "digest"))
	for _, want := range []string{"話題のまとめの定期投稿 #1 を登録しました", "毎日 22:00", "Discord のメッセージ履歴"} {
		if !strings.Contains(got, want) {
			t.Errorf("/schedule add kind:digest = %q; want %q", got, want)
		}
	}
	if got := h.slash(t, member(alice, discordgo.PermissionManageChannels), "schedule", "add",
		stringOpt("when", "毎日22時"), stringOpt("prompt", "今日の話題"), stringOpt("kind", "weekly")); !strings.Contains(got, "kind は post") {
		t.Errorf("a bad kind: %q", got)
	}

	day := time.Date(2026, 12, 7, 21, 0, 0, 0, tokyo)
	said := []*discordgo.Message{
		h.sayAt(alice, "忘年会いつにする？", day),
		h.sayAt(bob, "金曜19時に駅前はどう？", day.Add(5*time.Minute)),
		h.sayAt(alice, "いいね、予算はあとで決めよう", day.Add(10*time.Minute)),
	}
	h.jump(t, c, time.Date(2026, 12, 7, 22, 0, 0, 0, tokyo))
	head := "**<#" + channelID + "> のまとめ**"
	post := h.waitPosts(t, head, 1)[0]
	for _, m := range said[1:] {
		if link := "https://discord.com/channels/" + guildID + "/" + channelID + "/" + m.ID; !strings.Contains(post.Content, link) {
			t.Errorf("digest %q lacks the link %s", post.Content, link)
		}
	}
	if read := asked(); len(read) != 1 || !strings.Contains(read[0], "金曜19時に駅前はどう？") {
		t.Errorf("the model read %q", read)
	}

	// A quiet day: two messages, fewer than three.
	h.waitCount(t, "SELECT count(*) FROM reminders WHERE id = 1 AND due_at = '2026-12-08T22:00:00+09:00'", 1)
	h.sayAt(bob, "おはよう", time.Date(2026, 12, 8, 9, 0, 0, 0, tokyo))
	h.sayAt(alice, "おはよう", time.Date(2026, 12, 8, 9, 1, 0, 0, tokyo))
	h.jump(t, c, time.Date(2026, 12, 8, 22, 0, 0, 0, tokyo))
	h.waitCount(t, "SELECT count(*) FROM reminder_deliveries WHERE reminder_id = 1 AND message_id = '' AND error LIKE 'quiet: 2 member messages%'", 1)
	h.waitPosts(t, head, 1)
	if n := len(asked()); n != 1 {
		t.Errorf("%d summaries asked of the model, want 1 (none for the quiet day)", n)
	}
	h.waitCount(t, "SELECT count(*) FROM reminders WHERE id = 1 AND due_at = '2026-12-09T22:00:00+09:00' AND failed_at IS NULL", 1)
	if list := h.slash(t, member(bob, 0), "schedule", "list"); !strings.Contains(list, "📝 話題のまとめ") {
		t.Errorf("list %q does not show the digest", list)
	}
	var n int
	if err := h.pool.QueryRow(context.Background(), "SELECT count(*) FROM reminder_deliveries WHERE reminder_id = 1").Scan(&n); err != nil || n != 2 {
		t.Errorf("%d occurrences recorded (%v), want 2", n, err)
	}
}
