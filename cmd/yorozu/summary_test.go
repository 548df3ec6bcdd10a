package main

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// TestSummaryOfTheTalk: members talk without mentioning yorozu, then one
// asks 「さっきの話まとめて」: the answer is the summary of the channel's
// history, its point linked to the member's message it cites; a follow-up
// (「その2番目について詳しく」) has the question and the summary in its
// context; and /summary and 「ここから要約」 are registered.
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
	var mu sync.Mutex
	var followUp []api.Message
	h.handle(func(req api.ChatRequest) ollamatest.Reply {
		if strings.Contains(req.Messages[0].Content, "チャンネルの会話を要約します") {
			read = req.Messages[len(req.Messages)-1].Content
			return ollamatest.Text("**BBQ**\n- ✅ 決定: 10時に駅前の広場に集合 [3]\n- ❓ 未解決: 雨の場合 [4]")
		}
		mu.Lock()
		followUp = req.Messages
		mu.Unlock()
		return ollamatest.Text("雨の場合は、前日の夜に決めましょう。")
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
	// The question and the summary are kept as a turn: a follow-up has
	// them in context.
	h.mention(aliceID, "その2番目について詳しく")
	h.waitReply(t, 2, func(s string) bool { return strings.Contains(s, "前日の夜") })
	mu.Lock()
	var asked, summary bool
	for _, m := range followUp {
		asked = asked || m.Role == "user" && strings.Contains(m.Content, "さっきの話まとめて")
		summary = summary || m.Role == "assistant" && strings.Contains(m.Content, "❓ 未解決: 雨の場合")
	}
	mu.Unlock()
	if !asked || !summary {
		t.Errorf("the follow-up's context lacks the summary turn (question %v, summary %v):\n%+v", asked, summary, followUp)
	}
	var names []string
	for _, c := range h.discord.Commands() {
		names = append(names, c.Name)
	}
	if !slices.Contains(names, "summary") || !slices.Contains(names, "Summarize from here") {
		t.Errorf("registered commands %q lack /summary or 「ここから要約」", names)
	}
}

// TestSummaryFromTheLog: /summary since:1h in a logged channel over 300
// logged messages reads the log (Discord's history is unreadable by then),
// summarises in parts with a budget too small for them all and then
// combines, and posts the summary for the channel with jump links to the
// real messages.
func TestSummaryFromTheLog(t *testing.T) {
	h := start(t, map[string]string{"CONTEXT_TOKEN_BUDGET": "2000"})
	ctx := context.Background()
	before := len(h.discord.InteractionResponses())
	h.discord.SendInteraction(&discordgo.Interaction{Type: discordgo.InteractionApplicationCommand, Token: "tok", ChannelID: channelID,
		GuildID: guildID, Member: member("400000000000000009", discordgo.PermissionManageChannels),
		Data: discordgo.ApplicationCommandInteractionData{Name: "channel", Options: []*discordgo.ApplicationCommandInteractionDataOption{{
			Name: "log", Type: discordgo.ApplicationCommandOptionSubCommand,
			Options: []*discordgo.ApplicationCommandInteractionDataOption{{Name: "value", Type: discordgo.ApplicationCommandOptionString, Value: "on"}},
		}}}})
	h.waitCount(t, "SELECT count(*) FROM channel_settings WHERE log", 1)
	lctx, lcancel := context.WithTimeout(ctx, 30*time.Second)
	defer lcancel()
	if err := h.discord.WaitFor(lctx, func() bool { return len(h.discord.InteractionResponses()) > before }); err != nil {
		t.Fatal("/channel log on was not answered")
	}
	real := map[string]bool{}
	for i := range 300 {
		user := aliceID
		if i%2 == 1 {
			user = bobID
		}
		real[h.say(user, fmt.Sprintf("BBQの持ち物の相談その%d：炭と網は持っていきます", i)).ID] = true
	}
	h.waitCount(t, "SELECT count(*) FROM channel_messages", 300)
	h.discord.FailChannel(channelID, 403, 50001, "Missing Access")
	var mu sync.Mutex
	parts, combined := 0, 0
	h.handle(func(req api.ChatRequest) ollamatest.Reply {
		system, user := req.Messages[0].Content, req.Messages[len(req.Messages)-1].Content
		first := regexp.MustCompile(`\[\d+\]`).FindString(user)
		mu.Lock()
		defer mu.Unlock()
		switch {
		case strings.Contains(system, "分けて要約したメモ"):
			combined++
			return ollamatest.Text("**BBQの持ち物**\n" + user)
		case strings.Contains(system, "一部"):
			parts++
			return ollamatest.Text("- ✅ 決定: 炭と網を持っていく " + first)
		}
		return ollamatest.Text("一度で要約しました " + first)
	})
	id := h.discord.NewID()
	h.discord.SendInteraction(&discordgo.Interaction{ID: id, Type: discordgo.InteractionApplicationCommand, Token: "tok-" + id,
		ChannelID: channelID, GuildID: guildID, Member: member(aliceID, 0),
		Data: discordgo.ApplicationCommandInteractionData{Name: "summary", Options: []*discordgo.ApplicationCommandInteractionDataOption{
			{Name: "since", Type: discordgo.ApplicationCommandOptionString, Value: "1h"}}}})
	wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	var summary string
	if err := h.discord.WaitFor(wctx, func() bool {
		for _, f := range h.discord.Followups(id) {
			if f.Flags&discordgo.MessageFlagsEphemeral == 0 {
				summary = f.Content
			}
		}
		if m, ok := h.discord.Original(id); ok && m.Flags&discordgo.MessageFlagsEphemeral == 0 {
			summary = m.Content
		}
		return summary != ""
	}); err != nil {
		m, _ := h.discord.Original(id)
		t.Fatalf("no summary posted; the user sees %q", m.Content)
	}
	mu.Lock()
	defer mu.Unlock()
	if parts < 2 || combined != 1 {
		t.Errorf("%d parts and %d combining calls; want parts, then one combining", parts, combined)
	}
	links := regexp.MustCompile(`\(https://discord\.com/channels/`+guildID+`/`+channelID+`/(\d+)\)`).FindAllStringSubmatch(summary, -1)
	if len(links) != parts {
		t.Errorf("%d links for %d parts:\n%s", len(links), parts, summary)
	}
	for _, l := range links {
		if !real[l[1]] {
			t.Errorf("link to %s, no message of the channel", l[1])
		}
	}
	if !strings.Contains(summary, "300件") {
		t.Errorf("summary does not say it read 300 messages:\n%s", summary)
	}
}
