package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// TestSummaryOfTheTalk: members talk without mentioning yorozu, then one
// asks 「さっきの話まとめて」: the answer is the summary of the channel's
// history, its point linked to the member's message it cites, and /summary
// and 「ここから要約」 are registered.
func TestSummaryOfTheTalk(t *testing.T) {
	h := start(t, nil)
	var said []*discordgo.Message
	for i, text := range []string{"土曜のBBQどこ集合にする？", "駅前の広場でいいんじゃない", "賛成、10時に駅前で", "雨だったらどうする？"} {
		user := aliceID
		if i%2 == 1 {
			user = bobID
		}
		said = append(said, h.discord.SendMessage(&discordgo.Message{ChannelID: channelID, GuildID: guildID, Content: text,
			Author: &discordgo.User{ID: user, Username: "user" + user[len(user)-1:]}}))
	}
	var read string
	h.handle(func(req api.ChatRequest) ollamatest.Reply {
		if strings.Contains(req.Messages[0].Content, "チャンネルの会話を要約します") {
			read = req.Messages[len(req.Messages)-1].Content
			return ollamatest.Text("**BBQ**\n- ✅ 決定: 10時に駅前の広場に集合 [3]\n- ❓ 未解決: 雨の場合 [4]")
		}
		return ollamatest.Text("普通の返事です。")
	})
	h.mention(aliceID, "さっきの話まとめて")
	link := "https://discord.com/channels/" + guildID + "/" + channelID + "/" + said[2].ID
	got := h.waitReply(t, 1, func(s string) bool { return strings.Contains(s, link) })
	if !strings.Contains(got.Content, "❓ 未解決: 雨の場合 [↗](https://discord.com/channels/"+guildID+"/"+channelID+"/"+said[3].ID+")") {
		t.Errorf("summary = %q", got.Content)
	}
	if !strings.Contains(read, "駅前の広場でいいんじゃない") {
		t.Errorf("the model read:\n%s", read)
	}
	var names []string
	for _, c := range h.discord.Commands() {
		names = append(names, c.Name)
	}
	if !slices.Contains(names, "summary") || !slices.Contains(names, "Summarize from here") {
		t.Errorf("registered commands %q lack /summary or 「ここから要約」", names)
	}
}
