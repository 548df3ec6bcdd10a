package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

const talkHeading = "## チャンネルの最近の会話"

// talkOfTurn is the channel talk the n-th turn's request held ("" none).
func talkOfTurn(t *testing.T, h *harness, n int) string {
	t.Helper()
	turns := h.turns()
	if len(turns) < n {
		t.Fatalf("%d turns, want at least %d", len(turns), n)
	}
	for _, m := range turns[n-1].Messages {
		if m.Role == "system" && strings.HasPrefix(m.Content, talkHeading) {
			return m.Content
		}
	}
	return ""
}

// member1 writes as a member with a server nickname; member2 has none,
// only a global name, as in the channel history Discord gives.
func talkMsg(user, text string) *discordgo.Message {
	m := &discordgo.Message{ChannelID: channelID, GuildID: guildID, Content: text}
	switch user {
	case aliceID:
		m.Author = &discordgo.User{ID: aliceID, Username: "alice", GlobalName: "Alice"}
		m.Member = &discordgo.Member{Nick: "たろう"}
	default:
		m.Author = &discordgo.User{ID: user, Username: "bob", GlobalName: "はなこ"}
	}
	return m
}

func (h *harness) listReads() int {
	n := 0
	for _, c := range h.discord.Calls() {
		if c.Method == "GET" && c.Path == "/channels/"+channelID+"/messages" {
			n++
		}
	}
	return n
}

// TestChannelTalkInContext: what members said without mentioning yorozu
// is in the model's request at the next mention, with names and times;
// deletions and edits on Discord are followed; /channel context off leaves
// it out; after a restart the talk is read from the channel's history once.
func TestChannelTalkInContext(t *testing.T) {
	h := start(t, nil)
	h.handle(func(req api.ChatRequest) ollamatest.Reply { return ollamatest.Text("はい。") })
	jst := jstZone(t)

	lines := []struct{ user, text string }{
		{aliceID, "週末のバーベキュー、どこでやる？"},
		{bobID, "河川敷の広場がいいと思う"},
		{aliceID, "駐車場あったっけ？"},
		{bobID, "あるよ、10台くらい"},
		{aliceID, "じゃあ11時集合で"},
	}
	var said []*discordgo.Message
	for _, l := range lines {
		said = append(said, h.discord.SendMessage(talkMsg(l.user, l.text)))
	}
	q := h.mention(aliceID, "今の話どう思う？")
	h.waitReply(t, 1, equals("はい。"))
	got := talkOfTurn(t, h, 1)
	for i, l := range lines {
		name := map[string]string{aliceID: "たろう", bobID: "はなこ"}[l.user]
		want := said[i].Timestamp.In(jst).Format("15:04") + " " + name + ": " + l.text
		if !strings.Contains(got, want) {
			t.Errorf("the talk lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "今の話どう思う？") {
		t.Errorf("the mention being answered is repeated in the talk:\n%s", got)
	}
	if last := h.turns()[0].Messages; last[len(last)-1].Content != "今の話どう思う？" || last[len(last)-2].Content != got {
		t.Error("the talk does not come just before the question")
	}
	_ = q

	// Deleted, edited, files only, a bot, and a very long message.
	gone := h.discord.SendMessage(talkMsg(bobID, "これは消す話"))
	h.discord.Dispatch("MESSAGE_DELETE", &discordgo.Message{ID: gone.ID, ChannelID: channelID, GuildID: guildID})
	edited := h.discord.SendMessage(talkMsg(aliceID, "集合は10時"))
	upd := talkMsg(aliceID, "集合は12時に変更")
	upd.ID = edited.ID
	h.discord.Dispatch("MESSAGE_UPDATE", upd)
	photo := talkMsg(bobID, "")
	photo.Attachments = []*discordgo.MessageAttachment{{ID: "1", Filename: "map.png"}}
	photo.StickerItems = []*discordgo.StickerItem{{ID: "2", Name: "いいね"}}
	h.discord.SendMessage(photo)
	other := talkMsg(bobID, "天気bot: 週末は晴れ")
	other.Author = &discordgo.User{ID: "400000000000000009", Username: "weatherbot", Bot: true}
	h.discord.SendMessage(other)
	h.discord.SendMessage(talkMsg(bobID, strings.Repeat("長", 4000)))
	h.mention(bobID, "どう思う？")
	h.waitReply(t, 2, equals("はい。"))
	got = talkOfTurn(t, h, 2)
	for _, want := range []string{"たろう: 集合は12時に変更", "はなこ: [添付: map.png] [スタンプ: いいね]", "[bot] weatherbot: 天気bot: 週末は晴れ", "…(以下略)"} {
		if !strings.Contains(got, want) {
			t.Errorf("the second talk lacks %q:\n%s", want, got)
		}
	}
	for _, not := range []string{"これは消す話", "集合は10時", "週末のバーベキュー", "今の話どう思う？"} {
		if strings.Contains(got, not) {
			t.Errorf("the second talk holds %q:\n%s", not, got)
		}
	}
	if n := strings.Count(got, "長"); n > 1000 {
		t.Errorf("a 4,000-character message takes %d characters of the talk", n)
	}

	// Off: only the mention, as before.
	mod := member(bobID, discordgo.PermissionManageChannels)
	value := func(v string) *discordgo.ApplicationCommandInteractionDataOption {
		return &discordgo.ApplicationCommandInteractionDataOption{Name: "value", Type: discordgo.ApplicationCommandOptionString, Value: v}
	}
	if got := h.slash(t, mod, "channel", "context", value("off")); !strings.Contains(got, "off") {
		t.Fatalf("/channel context off = %q", got)
	}
	h.discord.SendMessage(talkMsg(aliceID, "オフの間の話"))
	h.mention(aliceID, "聞いてた？")
	h.waitReply(t, 3, equals("はい。"))
	if got := talkOfTurn(t, h, 3); got != "" {
		t.Errorf("with /channel context off the request holds the talk:\n%s", got)
	}
	if got := h.slash(t, mod, "channel", "context", value("on")); !strings.Contains(got, "on") {
		t.Fatalf("/channel context on = %q", got)
	}

	// A restart: the talk is read from the history, once (by the catch-up
	// or by the turn, whichever comes first).
	h.discord.SendMessage(talkMsg(bobID, "再起動の前に言ったこと"))
	before := h.listReads()
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	h.startRun(t, h.env)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.discord.WaitConnected(ctx); err != nil {
		t.Fatal(err)
	}
	h.mention(aliceID, "さっきのは？")
	h.waitReply(t, 4, equals("はい。"))
	got = talkOfTurn(t, h, 4)
	// The history carries no server nickname; the fake's not even a
	// global name, so the username stands.
	if !strings.Contains(got, "bob: 再起動の前に言ったこと") {
		t.Errorf("after a restart the talk lacks what was said before it:\n%s", got)
	}
	for _, not := range []string{"オフの間の話", "集合は12時に変更", "聞いてた？"} {
		if strings.Contains(got, not) {
			t.Errorf("after a restart the talk holds %q, said before an answer:\n%s", not, got)
		}
	}
	h.discord.SendMessage(talkMsg(bobID, "もうひとこと"))
	h.mention(aliceID, "もう一回")
	h.waitReply(t, 5, equals("はい。"))
	if got := talkOfTurn(t, h, 5); !strings.Contains(got, "はなこ: もうひとこと") || strings.Contains(got, "再起動の前に") {
		t.Errorf("the second turn after the restart: talk\n%s", got)
	}
	if n := h.listReads() - before; n != 1 {
		t.Errorf("the channel history was read %d times after the restart, want once", n)
	}
}
