package main

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// polls are the messages of the channel that carry a poll.
func (h *harness) polls() []discordtest.Message {
	var out []discordtest.Message
	for _, m := range h.discord.BotMessages(channelID) {
		if m.Poll != nil {
			out = append(out, m)
		}
	}
	return out
}

// offerOf waits for the bot's n-th message, an offer whose preview holds
// want, and returns it with its 作成 and キャンセル buttons checked.
func (h *harness) offerOf(t *testing.T, n int, want string) (discordtest.Message, string) {
	t.Helper()
	offer := h.waitReply(t, n, func(s string) bool { return strings.Contains(s, want) })
	b := offer.Buttons()
	if len(b) != 2 || b[0].Label != "作成" || b[1].Label != "キャンセル" {
		t.Fatalf("offer buttons = %+v, want 作成 and キャンセル", b)
	}
	return offer, b[0].CustomID
}

// TestPollOfferNeedsConsent: 「来週の日程、投票作って」 shows the poll as a
// preview; nothing is posted until the asker presses 作成; another
// member's press is refused; a double press posts one poll.
func TestPollOfferNeedsConsent(t *testing.T) {
	h := start(t, nil)
	h.script(
		ollamatest.ToolCalls(ollamatest.Call("offer_poll", map[string]any{
			"question": "来週の日程", "options": []string{"月曜", "水曜", "金曜"}, "hours": 48})),
		ollamatest.Text("投票を用意しました。"),
	)
	h.mention(aliceID, "来週の日程、投票作って。月水金で")
	offer, create := h.offerOf(t, 2, "📊 **来週の日程**")
	if !strings.Contains(offer.Content, "3. 金曜") || !strings.Contains(offer.Content, "期間：2日") {
		t.Errorf("preview = %q, want the options and the duration", offer.Content)
	}
	if n := len(h.polls()); n != 0 {
		t.Fatalf("%d polls before the press", n)
	}

	r := h.pressAnswer(t, offer.ID, create, bobID)
	if r.Data == nil || r.Data.Flags&discordgo.MessageFlagsEphemeral == 0 || !strings.Contains(r.Data.Content, "頼んだ本人だけ") {
		t.Errorf("bob's press = %+v, want an ephemeral refusal", r.Data)
	}
	if n := len(h.polls()); n != 0 {
		t.Fatalf("%d polls after someone else's press", n)
	}

	presses := h.discord.DoublePress(channelID, offer.ID, create, &discordgo.User{ID: aliceID}, 0)
	var created, answered int
	for _, p := range presses {
		r := h.response(t, p.ID)
		switch {
		case r.Type == discordgo.InteractionResponseUpdateMessage && r.Data != nil && strings.Contains(r.Data.Content, "✅ 投票を作成しました"):
			created++
		case r.Data != nil && (strings.Contains(r.Data.Content, "もう答えが出ています") || strings.Contains(r.Data.Content, "いま処理しているところです")):
			answered++
		default:
			t.Errorf("alice's press = type %d %+v", r.Type, r.Data)
		}
	}
	if created != 1 || answered != 1 {
		t.Errorf("a double press: %d created and %d told it was answered or under way, want 1 and 1", created, answered)
	}
	polls := h.polls()
	if len(polls) != 1 {
		t.Fatalf("%d polls after a double press, want 1", len(polls))
	}
	p := polls[0].Poll
	if p.Question.Text != "来週の日程" || len(p.Answers) != 3 || p.Answers[1].Media.Text != "水曜" || p.Duration != 48 {
		t.Errorf("poll = %+v, want 来週の日程 with 月曜/水曜/金曜 for 48 hours", p)
	}
}

// TestPollMissingPermission: when yorozu may not send polls in the
// channel, the press names the permission, nothing is posted, and the
// offer stays open.
func TestPollMissingPermission(t *testing.T) {
	h := start(t, nil)
	h.script(
		ollamatest.ToolCalls(ollamatest.Call("offer_poll", map[string]any{"question": "昼ごはん", "options": []string{"カレー", "そば"}})),
		ollamatest.Text("どうぞ。"),
	)
	h.discord.DenyBot(channelID, discordgo.PermissionSendPolls)
	h.mention(aliceID, "昼ごはんの投票作って")
	offer, create := h.offerOf(t, 2, "📊 **昼ごはん**")
	r := h.pressAnswer(t, offer.ID, create, aliceID)
	if r.Data == nil || r.Data.Flags&discordgo.MessageFlagsEphemeral == 0 || !strings.Contains(r.Data.Content, "「投票の作成」") {
		t.Errorf("press without Send Polls = %+v, want the permission named", r.Data)
	}
	if n := len(h.polls()); n != 0 {
		t.Errorf("%d polls posted without the permission", n)
	}
	h.waitCount(t, "SELECT count(*) FROM offers WHERE kind = 'poll' AND decided_at IS NULL", 1)
}

// badInput is one bad call of an offer tool and the reason its refusal
// gives.
type badInput struct {
	name string
	args map[string]any
	want string
}

// refuseEach has the model call tool with each case's arguments in turn,
// passing the tool's answer on as its own, and checks that the member
// reads the reason and is offered nothing to create.
func (h *harness) refuseEach(t *testing.T, tool string, cases []badInput) {
	var mu sync.Mutex
	var args map[string]any
	h.handle(func(req api.ChatRequest) ollamatest.Reply {
		mu.Lock()
		defer mu.Unlock()
		if last := req.Messages[len(req.Messages)-1]; last.Role == "tool" {
			return ollamatest.Text(last.Content)
		}
		return ollamatest.ToolCalls(ollamatest.Call(tool, args))
	})
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			args = tc.args
			mu.Unlock()
			h.mention(aliceID, "作って")
			reply := h.waitReply(t, i+1, func(s string) bool { return strings.Contains(s, tc.want) })
			for _, b := range reply.Buttons() {
				if b.Label == "作成" {
					t.Errorf("the refusal offers 作成: %q", reply.Content)
				}
			}
		})
	}
	h.waitCount(t, "SELECT count(*) FROM offers", 0)
}

// TestPollBadInput: a poll with one option, more than ten or no
// question, or open too long, is refused with the reason (the model
// passes it on) and nothing is offered or posted.
func TestPollBadInput(t *testing.T) {
	h := start(t, nil)
	eleven := []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"}
	h.refuseEach(t, "offer_poll", []badInput{
		{"one option", map[string]any{"question": "行く？", "options": []string{"行く"}}, "選択肢が2個以上必要です"},
		{"eleven options", map[string]any{"question": "何番？", "options": eleven}, "選択肢は10個まで"},
		{"no question", map[string]any{"question": " ", "options": []string{"はい", "いいえ"}}, "質問が空です"},
		{"too long", map[string]any{"question": "行く？", "options": []string{"はい", "いいえ"}, "hours": 800}, "768時間"},
	})
	if n := len(h.polls()); n != 0 {
		t.Errorf("%d polls posted from bad input", n)
	}
}

// pressSees has user press customID on message msgID and returns what
// they see then: the press's answer, or, when the press was acknowledged
// first (a slow one), its follow-up or the pressed message as edited.
func (h *harness) pressSees(t *testing.T, msgID, customID, user string) (text string, ephemeral bool) {
	t.Helper()
	before := ""
	for _, m := range h.discord.Messages(channelID) {
		if m.ID == msgID {
			before = m.Content
		}
	}
	id := h.discord.PressButton(channelID, msgID, customID, &discordgo.User{ID: user}, 0).ID
	r := h.response(t, id)
	if r.Type != discordgo.InteractionResponseDeferredMessageUpdate {
		if r.Data == nil {
			t.Fatalf("press answered with %+v", r)
		}
		return r.Data.Content, r.Data.Flags&discordgo.MessageFlagsEphemeral != 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := h.discord.WaitFor(ctx, func() bool {
		if f := h.discord.Followups(id); len(f) > 0 {
			text, ephemeral = f[0].Content, f[0].Flags&discordgo.MessageFlagsEphemeral != 0
			return true
		}
		for _, m := range h.discord.Messages(channelID) {
			if m.ID == msgID && m.Content != before {
				text, ephemeral = m.Content, false
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("the deferred press was never answered")
	}
	return text, ephemeral
}

// TestPollOfferAfterDiscordFailure: when Discord fails every try of the
// post, the press says so and the offer stays open; pressing again posts
// one poll — also when the failed tries had made the poll and only their
// answers were lost, and Discord has forgotten the nonce by the second
// press: that press finds the poll instead of posting another.
func TestPollOfferAfterDiscordFailure(t *testing.T) {
	h := start(t, nil)
	offer := func(question string) ollamatest.Reply {
		return ollamatest.ToolCalls(ollamatest.Call("offer_poll", map[string]any{"question": question, "options": []string{"はい", "いいえ"}}))
	}
	h.script(offer("忘年会に行く？"), ollamatest.Text("どうぞ。"), offer("新年会に行く？"), ollamatest.Text("どうぞ。"))
	polls := func(question string) int {
		n := 0
		for _, m := range h.polls() {
			if m.Poll.Question.Text == question {
				n++
			}
		}
		return n
	}
	failed := func(text string, ephemeral bool) bool {
		return ephemeral && strings.Contains(text, "もう一度押してください")
	}
	// Every try of one post: createMessage tries four times with its nonce.
	const tries = 4

	h.mention(aliceID, "忘年会の出欠、投票作って")
	msg, create := h.offerOf(t, 2, "📊 **忘年会に行く？**")
	h.discord.FailNext(http.MethodPost, "/channels/"+channelID+"/messages", tries, http.StatusInternalServerError)
	if text, eph := h.pressSees(t, msg.ID, create, aliceID); !failed(text, eph) || polls("忘年会に行く？") != 0 {
		t.Fatalf("press while Discord fails = %q, %d polls; want a failure to try again and none", text, polls("忘年会に行く？"))
	}
	if text, _ := h.pressSees(t, msg.ID, create, aliceID); !strings.Contains(text, "✅ 投票を作成しました") {
		t.Fatalf("the second press = %q, want the poll posted", text)
	}
	if n := polls("忘年会に行く？"); n != 1 {
		t.Errorf("%d polls after a failure and a retry, want 1", n)
	}

	h.mention(aliceID, "新年会の出欠も")
	msg, create = h.offerOf(t, 5, "📊 **新年会に行く？**")
	h.discord.LoseCreateResponses(channelID, tries, discordtest.LossServerError)
	if text, eph := h.pressSees(t, msg.ID, create, aliceID); !failed(text, eph) || polls("新年会に行く？") != 1 {
		t.Fatalf("press whose answers are lost = %q, %d polls; want a failure to try again and the 1 Discord made", text, polls("新年会に行く？"))
	}
	h.discord.ForgetNonces()
	if text, _ := h.pressSees(t, msg.ID, create, aliceID); !strings.Contains(text, "✅ 投票を作成しました") {
		t.Fatalf("the second press = %q, want the poll reported posted", text)
	}
	if n := polls("新年会に行く？"); n != 1 {
		t.Errorf("%d polls after lost answers and a retry, want 1", n)
	}
}

// TestExpiredOfferIsRefused: a week after it was made, an offer's 作成
// answers that it expired and posts nothing; the daily offer_prune job
// deletes it, and a press after that says the same.
func TestExpiredOfferIsRefused(t *testing.T) {
	h := start(t, nil)
	h.script(
		ollamatest.ToolCalls(ollamatest.Call("offer_poll", map[string]any{"question": "花見の日", "options": []string{"土曜", "日曜"}})),
		ollamatest.Text("どうぞ。"),
	)
	h.mention(aliceID, "花見の日を投票で決めたい")
	msg, create := h.offerOf(t, 2, "📊 **花見の日**")
	if _, err := h.pool.Exec(context.Background(), "UPDATE offers SET created_at = now() - interval '8 days'"); err != nil {
		t.Fatal(err)
	}
	expired := func(when string) {
		t.Helper()
		if text, eph := h.pressSees(t, msg.ID, create, aliceID); !eph || !strings.Contains(text, "この提案は期限切れです") {
			t.Errorf("a press %s = %q (ephemeral %v), want it told the offer expired", when, text, eph)
		}
	}
	expired("8 days on")
	h.runJobNow(t, "offer_prune", nil)
	h.waitCount(t, "SELECT count(*) FROM offers", 0)
	expired("after the offer was pruned")
	if n := len(h.polls()); n != 0 {
		t.Errorf("%d polls posted from an expired offer", n)
	}
}
