package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/bot"
	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/commands"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// response waits for the first response to interaction id.
func (h *harness) response(t *testing.T, id string) discordgo.InteractionResponse {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var got discordgo.InteractionResponse
	if err := h.discord.WaitFor(ctx, func() bool {
		for _, r := range h.discord.InteractionResponses() {
			if r.InteractionID == id {
				got = r.Response
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("interaction %s not answered", id)
	}
	return got
}

// TestAskAboutAMessage: 「よろずに聞く」 on a member's message opens a modal;
// the question sent from it is answered in reply to that message, the
// model reading the message, its file's name and the message it replied
// to. An empty question, or one about a message yorozu cannot read, is
// refused with the reason and nothing is asked.
func TestAskAboutAMessage(t *testing.T) {
	h := start(t, nil)
	h.discord.PutChannelInGuild(channelID, guildID)
	var mu sync.Mutex
	var read []string
	h.handle(func(req api.ChatRequest) ollamatest.Reply {
		var all []string
		for _, m := range req.Messages {
			all = append(all, m.Content)
		}
		mu.Lock()
		read = append(read, strings.Join(all, "\n"))
		mu.Unlock()
		return ollamatest.Text("駅前の広場でBBQをする提案です。")
	})
	parent := h.say(bobID, "土曜のBBQ、場所どこにする？")
	target := h.discord.SendMessage(&discordgo.Message{ChannelID: channelID, GuildID: guildID, Content: "駅前の広場はどう？",
		Author:           &discordgo.User{ID: bobID, Username: "bob"},
		Attachments:      []*discordgo.MessageAttachment{h.discord.AddAttachment("map.png", "image/png", []byte("\x89PNG map"))},
		MessageReference: &discordgo.MessageReference{MessageID: parent.ID, ChannelID: channelID, GuildID: guildID}})

	open := func(targetID string) string {
		id := h.discord.NewID()
		h.discord.SendInteraction(&discordgo.Interaction{ID: id, Type: discordgo.InteractionApplicationCommand, Token: "tok-" + id,
			ChannelID: channelID, GuildID: guildID, Member: member(aliceID, 0),
			Data: discordgo.ApplicationCommandInteractionData{Name: bot.AskCommandName, CommandType: discordgo.MessageApplicationCommand, TargetID: targetID}})
		r := h.response(t, id)
		if r.Type != discordgo.InteractionResponseModal || r.Data == nil || len(r.Data.Components) != 1 {
			t.Fatalf("「よろずに聞く」 answered type %d %+v, want a modal with one input", r.Type, r.Data)
		}
		return r.Data.CustomID
	}
	submit := func(customID, question string) string {
		i := h.discord.SubmitModal(channelID, customID, map[string]string{"question": question}, &discordgo.User{ID: aliceID}, 0)
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		var text string
		if err := h.discord.WaitFor(ctx, func() bool {
			if m, ok := h.discord.Original(i.ID); ok && m.Content != "" {
				text = m.Content
				return true
			}
			for _, r := range h.discord.InteractionResponses() {
				if r.InteractionID == i.ID && r.Response.Data != nil && r.Response.Data.Content != "" {
					text = r.Response.Data.Content
					return true
				}
			}
			return false
		}); err != nil {
			t.Fatalf("the modal %s was not answered", customID)
		}
		return text
	}

	if got := submit(open(target.ID), "  "); !strings.Contains(got, "質問が空です") {
		t.Errorf("an empty question = %q", got)
	}
	if got := submit(open("999999999999999999"), "これは何？"); !strings.Contains(got, "このメッセージを読めませんでした") {
		t.Errorf("a question about a message yorozu cannot read = %q", got)
	}
	if n := len(h.turns()); n != 0 {
		t.Fatalf("refused questions made %d model calls", n)
	}

	if got := submit(open(target.ID), "これってどこのこと？"); !strings.Contains(got, "返信として答えます") {
		t.Errorf("the question's acknowledgement = %q", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := h.discord.WaitFor(ctx, func() bool {
		for _, m := range h.discord.BotMessages(channelID) {
			if m.Content == "駅前の広場でBBQをする提案です。" && m.Reference != nil && m.Reference.MessageID == target.ID {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("no answer in reply to the message; bot messages %+v", h.discord.BotMessages(channelID))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(read) != 1 {
		t.Fatalf("%d model calls, want 1", len(read))
	}
	for _, want := range []string{"これってどこのこと？", "駅前の広場はどう？", "map.png", "土曜のBBQ、場所どこにする？"} {
		if !strings.Contains(read[0], want) {
			t.Errorf("the model did not read %q:\n%s", want, read[0])
		}
	}
}

// TestRemindThis: 「これをリマインド」 on a message opens a form asking
// when; the time is read back (with the next occurrences of a repeat)
// before anything is kept, and only 登録, pressed by the user who asked,
// keeps the reminder with a link to the message; やめる keeps nothing. A
// form left empty, or a time that cannot be read, is refused with the
// reason and nothing is kept.
func TestRemindThis(t *testing.T) {
	useClock(t, time.Date(2026, 12, 2, 8, 0, 0, 0, tokyo))
	h := start(t, nil)
	h.discord.PutChannelInGuild(channelID, guildID)
	target := h.say(bobID, "来週の会費は3000円です")
	// submit sends the form and returns its interaction and what it shows.
	submit := func(when, what string) (string, discordtest.Message) {
		t.Helper()
		i := h.discord.UseMessageCommand(channelID, commands.RemindThisName, target.ID, &discordgo.User{ID: aliceID}, 0)
		r := h.response(t, i.ID)
		if r.Type != discordgo.InteractionResponseModal || r.Data == nil || len(r.Data.Components) != 2 {
			t.Fatalf("「これをリマインド」 answered type %d %+v, want a form with two inputs", r.Type, r.Data)
		}
		s := h.discord.SubmitModal(channelID, r.Data.CustomID, map[string]string{"when": when, "what": what}, &discordgo.User{ID: aliceID}, 0)
		return s.ID, h.shown(t, s.ID)
	}
	if _, got := submit("", "会費"); !strings.Contains(got.Content, "いつ知らせるかが空です") {
		t.Errorf("an empty when = %q", got.Content)
	}
	if _, got := submit("そのうち", "会費"); !strings.Contains(got.Content, "読み取れませんでした") || len(got.Buttons()) != 0 {
		t.Errorf("an unreadable when = %q with %d buttons", got.Content, len(got.Buttons()))
	}

	readID, readBack := submit("明日の9時", "会費を払う")
	due := time.Date(2026, 12, 3, 9, 0, 0, 0, tokyo)
	if !strings.Contains(readBack.Content, fmt.Sprintf("<t:%d:F>", due.Unix())) || !strings.Contains(readBack.Content, "まだ登録していません") {
		t.Errorf("the read-back = %q, want %s read back and nothing kept yet", readBack.Content, due)
	}
	if readBack.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Errorf("the read-back is not ephemeral (flags %d)", readBack.Flags)
	}
	keep, _ := readBackButtons(t, readBack)
	h.waitCount(t, "SELECT count(*) FROM reminders", 0)

	// Someone else's press is refused and keeps nothing.
	other := h.discord.PressButton(channelID, readBack.ID, keep, &discordgo.User{ID: bobID}, 0)
	if got := h.shown(t, other.ID); !strings.Contains(got.Content, "本人だけ") {
		t.Errorf("bob's press = %q, want it refused", got.Content)
	}
	h.waitCount(t, "SELECT count(*) FROM reminders", 0)

	h.discord.PressButton(channelID, readBack.ID, keep, &discordgo.User{ID: aliceID}, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := h.discord.WaitFor(ctx, func() bool {
		m, _ := h.discord.Original(readID)
		return strings.Contains(m.Content, "を登録しました")
	}); err != nil {
		m, _ := h.discord.Original(readID)
		t.Fatalf("登録 did not keep it: the read-back now says %q", m.Content)
	}
	link := "https://discord.com/channels/" + guildID + "/" + channelID + "/" + target.ID
	h.waitCount(t, "SELECT count(*) FROM reminders", 1)
	var content, channel string
	var at time.Time
	if err := h.pool.QueryRow(context.Background(), "SELECT content, channel_id, due_at FROM reminders WHERE user_id = $1", aliceID).Scan(&content, &channel, &at); err != nil ||
		!strings.Contains(content, "会費を払う") || !strings.Contains(content, link) || channel != channelID || !at.Equal(due) {
		t.Errorf("the reminder keeps %q in %s at %s (%v), want the words and the link %s in %s at %s", content, channel, at, err, link, channelID, due)
	}

	// A repeat reads back its next occurrences; やめる keeps nothing.
	repeatID, repeat := submit("毎週月曜の8時", "定例")
	for _, d := range []int{7, 14, 21} {
		if stamp := fmt.Sprintf("<t:%d:F>", time.Date(2026, 12, d, 8, 0, 0, 0, tokyo).Unix()); !strings.Contains(repeat.Content, stamp) {
			t.Errorf("the repeat's read-back %q does not show %s (12/%d 8:00)", repeat.Content, stamp, d)
		}
	}
	_, drop := readBackButtons(t, repeat)
	h.discord.PressButton(channelID, repeat.ID, drop, &discordgo.User{ID: aliceID}, 0)
	if err := h.discord.WaitFor(ctx, func() bool {
		m, _ := h.discord.Original(repeatID)
		return strings.Contains(m.Content, "やめました")
	}); err != nil {
		t.Errorf("やめる was not answered in place")
	}
	h.waitCount(t, "SELECT count(*) FROM reminders", 1)
}
