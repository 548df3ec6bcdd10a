package bot

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/memory"
)

// fakeTurns records the turns forgotten for 再生成.
type fakeTurns struct {
	mu     sync.Mutex
	forgot []string
	latest string // the conversation's newest question; "" lets any through
}

func (f *fakeTurns) LatestQuestion(context.Context, memory.SessionKey) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.latest, nil
}

func (f *fakeTurns) ForgetTurn(_ context.Context, key memory.SessionKey, id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.forgot = append(f.forgot, string(key)+"/"+id)
	return nil
}

func (f *fakeTurns) list() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.forgot...)
}

func startAnswerButtons(t *testing.T, turns TurnForgetter, mods ...func(*Options)) *harness {
	t.Helper()
	h, _ := startFaulty(t, func(srv *discordtest.Server) {
		srv.AddChannel(chanID)
		srv.PutChannelInGuild(chanID, guildID)
	}, func(o *Options) {
		o.ButtonKey = []byte("test-key")
		o.Turns = turns
		for _, mod := range mods {
			mod(o)
		}
	})
	return h
}

// buttonOn waits for the bot's first message in channel to carry one
// button labelled label, and returns the message and the button.
func (h *harness) buttonOn(channel, label string) (discordtest.Message, *discordgo.Button) {
	h.t.Helper()
	var msg discordtest.Message
	var btn *discordgo.Button
	h.waitBot(channel, func(ms []discordtest.Message) bool {
		if len(ms) == 0 {
			return false
		}
		msg = ms[0]
		bs := msg.Buttons()
		if len(bs) != 1 || bs[0].Label != label {
			return false
		}
		btn = bs[0]
		return true
	})
	return msg, btn
}

// ephemeral waits for the answer to press i and returns its text, failing
// unless only the presser sees it.
func (h *harness) ephemeral(i *discordgo.Interaction) string {
	h.t.Helper()
	r := h.answer(i)
	if r.Type != discordgo.InteractionResponseChannelMessageWithSource || r.Data == nil || r.Data.Flags&discordgo.MessageFlagsEphemeral == 0 {
		h.t.Fatalf("answer = type %d %+v, want an ephemeral message", r.Type, r.Data)
	}
	return r.Data.Content
}

// 停止 cuts the model call at once; the text so far stays, marked, and
// 再生成 takes the button's place. Only the asker or a moderator may
// press it; a forged id is refused.
func TestStopButton(t *testing.T) {
	t.Parallel()
	h := startAnswerButtons(t, nil)
	cut := make(chan struct{})
	h.resp.script = func(ctx context.Context, _ chat.Request, emit func(llm.Event) error) error {
		if err := emit(llm.Text{Text: "途中まで書いた答え"}); err != nil {
			return err
		}
		<-ctx.Done() // a model call that would run on
		close(cut)
		return ctx.Err()
	}
	h.mention(chanID, "7", "長い話をして")
	msg, stop := h.buttonOn(chanID, "停止")
	if msg.Content != "途中まで書いた答え" {
		t.Fatalf("streaming message = %q", msg.Content)
	}

	// Someone else may not; the answer goes on.
	i := h.srv.PressButton(chanID, msg.ID, stop.CustomID, &discordgo.User{ID: "8"}, 0)
	if got := h.ephemeral(i); got != notAskerReply {
		t.Errorf("another user's press = %q, want %q", got, notAskerReply)
	}
	select {
	case <-cut:
		t.Fatal("another user's press stopped the answer")
	default:
	}
	// A forged id (another signature) is refused.
	forged := stop.CustomID[:strings.LastIndex(stop.CustomID, ":")+1] + "AAAAAAAAAAAAAAAA"
	fmsg := h.postButtons(chanID, forged)
	i = h.srv.PressButton(chanID, fmsg, forged, &discordgo.User{ID: "7"}, 0)
	if got := h.ephemeral(i); got != forgedButtonReply {
		t.Errorf("forged press = %q, want %q", got, forgedButtonReply)
	}

	pressed := time.Now()
	h.srv.PressButton(chanID, msg.ID, stop.CustomID, &discordgo.User{ID: "7"}, 0)
	select {
	case <-cut:
	case <-time.After(time.Second):
		t.Fatal("the model call was not cut within a second of 停止")
	}
	t.Logf("cut %v after the press", time.Since(pressed))
	h.waitBot(chanID, func(ms []discordtest.Message) bool {
		return len(ms) >= 1 && ms[0].Content == "途中まで書いた答え\n\n"+chat.StoppedMark &&
			len(ms[0].Buttons()) == 1 && ms[0].Buttons()[0].Label == "再生成"
	})
}

// A moderator (Manage Messages) may stop someone else's answer.
func TestStopButtonByModerator(t *testing.T) {
	t.Parallel()
	h := startAnswerButtons(t, nil)
	h.resp.script = func(ctx context.Context, _ chat.Request, emit func(llm.Event) error) error {
		emit(llm.Text{Text: "書きかけ"})
		<-ctx.Done()
		return ctx.Err()
	}
	h.mention(chanID, "7", "話して")
	msg, stop := h.buttonOn(chanID, "停止")
	h.srv.PressButton(chanID, msg.ID, stop.CustomID, &discordgo.User{ID: "9"}, discordgo.PermissionManageMessages)
	h.waitBot(chanID, func(ms []discordtest.Message) bool {
		return len(ms) == 1 && ms[0].Content == "書きかけ\n\n"+chat.StoppedMark
	})
}

// 再生成 answers the same question again in the same message, and the
// old turn is forgotten so the conversation keeps the new answer.
func TestAgainButton(t *testing.T) {
	t.Parallel()
	turns := &fakeTurns{}
	h := startAnswerButtons(t, turns)
	n := 0
	var mu sync.Mutex
	h.resp.script = func(_ context.Context, req chat.Request, emit func(llm.Event) error) error {
		mu.Lock()
		n++
		text := map[int]string{1: "最初の答え", 2: "二度目の答え"}[n]
		mu.Unlock()
		emit(llm.Text{Text: text + " (" + req.Text + ")"})
		return emit(llm.Done{})
	}
	q := h.mention(chanID, "7", "おすすめの本は？")
	msg, again := h.buttonOn(chanID, "再生成")
	if msg.Content != "最初の答え (おすすめの本は？)" {
		t.Fatalf("answer = %q", msg.Content)
	}
	i := h.srv.PressButton(chanID, msg.ID, again.CustomID, &discordgo.User{ID: "8"}, 0)
	if got := h.ephemeral(i); got != notAskerReply {
		t.Errorf("another user's 再生成 = %q", got)
	}
	h.srv.PressButton(chanID, msg.ID, again.CustomID, &discordgo.User{ID: "7"}, 0)
	ms := h.waitBot(chanID, func(ms []discordtest.Message) bool {
		return len(ms) == 1 && ms[0].Content == "二度目の答え (おすすめの本は？)" && len(ms[0].Buttons()) == 1
	})
	if ms[0].ID != msg.ID {
		t.Errorf("new answer in message %s, want the old one %s edited", ms[0].ID, msg.ID)
	}
	if got := turns.list(); len(got) != 1 || got[0] != "discord:channel:"+chanID+"/"+q.ID {
		t.Errorf("forgotten turns = %v, want the first answer's", got)
	}
}

// Only the last answer is asked again. The answer before keeps its
// 再生成 (no edit per turn takes it off), and a press of it is refused
// with a line only the presser sees; then the button goes.
func TestAgainOnlyOnTheLastAnswer(t *testing.T) {
	t.Parallel()
	h := startAnswerButtons(t, nil)
	h.mention(chanID, "7", "一つ目")
	first, again := h.buttonOn(chanID, "再生成")
	before := len(h.srv.Calls())
	h.mention(chanID, "7", "二つ目")
	ms := h.waitBot(chanID, func(ms []discordtest.Message) bool {
		return len(ms) == 2 && slices.Equal(labels(ms[1]), []string{"再生成"})
	})
	// A user presses what they see; the bot has seen Discord's answer to
	// its post by then.
	h.waitLastAnswer(chanID, ms[1].ID)
	for _, c := range h.srv.Calls()[before:] {
		if c.Method == "PATCH" && c.MessageID == first.ID {
			t.Errorf("the first answer was edited when the second came: %s %s", c.Method, c.Path)
		}
	}
	i := h.srv.PressButton(chanID, first.ID, again.CustomID, &discordgo.User{ID: "7"}, 0)
	if got := h.ephemeral(i); got != againStaleReply {
		t.Errorf("the first answer's 再生成 = %q, want %q", got, againStaleReply)
	}
	h.waitBot(chanID, func(ms []discordtest.Message) bool {
		return len(ms) == 2 && len(ms[0].Buttons()) == 0 && slices.Equal(labels(ms[1]), []string{"再生成"})
	})
	if n := len(h.resp.requests()); n != 2 {
		t.Errorf("%d answers, want 2: the old question is not answered again", n)
	}
}

// A 再生成 that outlived the conversation going on (a restart forgot to
// take it off) is refused, and the button goes: the old question would be
// answered anew as the newest turn.
func TestAgainRefusedAfterTheConversationWentOn(t *testing.T) {
	t.Parallel()
	turns := &fakeTurns{}
	h := startAnswerButtons(t, turns)
	h.mention(chanID, "7", "古い質問")
	msg, again := h.buttonOn(chanID, "再生成")
	turns.mu.Lock()
	turns.latest = "a-later-question"
	turns.mu.Unlock()
	i := h.srv.PressButton(chanID, msg.ID, again.CustomID, &discordgo.User{ID: "7"}, 0)
	if got := h.ephemeral(i); got != againStaleReply {
		t.Errorf("press = %q, want %q", got, againStaleReply)
	}
	h.waitBot(chanID, func(ms []discordtest.Message) bool { return len(ms) == 1 && len(ms[0].Buttons()) == 0 })
	if got := turns.list(); len(got) != 0 {
		t.Errorf("forgot %v: the old turn must stay", got)
	}
	if n := len(h.resp.requests()); n != 1 {
		t.Errorf("%d answers, want the first only", n)
	}
}

// waitLastAnswer waits until the bot knows id as channel's last answer.
func (h *harness) waitLastAnswer(channel, id string) {
	h.t.Helper()
	for h.bot.staleAgain(channel, id) {
		select {
		case <-h.ctx.Done():
			h.t.Fatalf("the bot never took %s for the last answer in %s", id, channel)
		case <-time.After(time.Millisecond):
		}
	}
}

// labels is the labels of a message's buttons, in order.
func labels(m discordtest.Message) []string {
	var out []string
	for _, b := range m.Buttons() {
		out = append(out, b.Label)
	}
	return out
}

// The buttons ride the answer's last part: 停止 on the part being written,
// 再生成 on the last once the answer is complete, none on the parts above.
func TestButtonsOnTheLastPart(t *testing.T) {
	t.Parallel()
	h := startAnswerButtons(t, nil)
	first := strings.Repeat("一つ目の部分の文です。", 200) // over one message
	h.resp.script = func(ctx context.Context, _ chat.Request, emit func(llm.Event) error) error {
		emit(llm.Text{Text: first})
		h.waitBot(chanID, func(ms []discordtest.Message) bool {
			return len(ms) == 2 && len(labels(ms[0])) == 0 && slices.Equal(labels(ms[1]), []string{"停止"})
		})
		emit(llm.Text{Text: "最後の文です。"})
		return emit(llm.Done{})
	}
	h.mention(chanID, "7", "長く話して")
	h.waitBot(chanID, func(ms []discordtest.Message) bool {
		return len(ms) == 2 && strings.HasSuffix(ms[1].Content, "最後の文です。") &&
			len(labels(ms[0])) == 0 && slices.Equal(labels(ms[1]), []string{"再生成"})
	})
}

// On a server that refuses edits, the rest of the answer goes out as new
// messages and the last of them carries 再生成; the 停止 left on the first
// message, which no edit could take off, is refused with a reason when
// pressed, as is a 再生成 left on an older answer.
func TestButtonsFollowTheAnswerWhenEditsFail(t *testing.T) {
	t.Parallel()
	turns := &fakeTurns{}
	h, _ := startFaulty(t, func(srv *discordtest.Server) {
		srv.AddChannel(chanID)
		srv.PutChannelInGuild(chanID, guildID)
		srv.RefuseEdits(chanID, true)
	}, func(o *Options) {
		o.ButtonKey = []byte("test-key")
		o.Turns = turns
	})
	h.resp.script = func(ctx context.Context, req chat.Request, emit func(llm.Event) error) error {
		emit(llm.Text{Text: "前半、"})
		h.waitBot(chanID, func(ms []discordtest.Message) bool { return len(ms) >= 1 })
		emit(llm.Text{Text: "後半です。"})
		return emit(llm.Done{})
	}
	h.mention(chanID, "7", "話して")
	ms := h.waitBot(chanID, func(ms []discordtest.Message) bool {
		return len(ms) == 2 && ms[1].Content == "後半です。" && len(ms[1].Buttons()) > 0
	})
	if got := labels(ms[1]); !slices.Equal(got, []string{"再生成"}) {
		t.Errorf("last part's buttons = %v, want [再生成]", got)
	}
	stale := ms[0].Buttons()
	if len(stale) != 1 || stale[0].Label != "停止" {
		t.Fatalf("first message's buttons = %v; the test wants the 停止 no edit could take off", labels(ms[0]))
	}
	i := h.srv.PressButton(chanID, ms[0].ID, stale[0].CustomID, &discordgo.User{ID: "7"}, 0)
	if got := h.ephemeral(i); got != notRunningReply {
		t.Errorf("stale 停止 = %q, want %q", got, notRunningReply)
	}

	// A second answer: the first one's 再生成 stays (no edit takes it off)
	// and is refused, the conversation having gone on.
	// (In two parts, as the first: an answer whose whole text is in its
	// first message keeps the 停止 it was posted with when the edit to
	// 再生成 is refused, and whether the text is whole by then is timing.)
	h.resp.script = func(ctx context.Context, req chat.Request, emit func(llm.Event) error) error {
		emit(llm.Text{Text: "二つ目、"})
		h.waitBot(chanID, func(ms []discordtest.Message) bool { return len(ms) >= 3 })
		emit(llm.Text{Text: "答えです。"})
		return emit(llm.Done{})
	}
	h.mention(chanID, "7", "もう一つ")
	ms = h.waitBot(chanID, func(ms []discordtest.Message) bool {
		return len(ms) == 4 && slices.Equal(labels(ms[3]), []string{"再生成"})
	})
	turns.mu.Lock()
	turns.latest = "a-later-question"
	turns.mu.Unlock()
	old := ms[1].Buttons()
	if len(old) != 1 || old[0].Label != "再生成" {
		t.Fatalf("older answer's buttons = %v", labels(ms[1]))
	}
	i = h.srv.PressButton(chanID, ms[1].ID, old[0].CustomID, &discordgo.User{ID: "7"}, 0)
	if got := h.ephemeral(i); got != againStaleReply {
		t.Errorf("older 再生成 = %q, want %q", got, againStaleReply)
	}
	if n := len(h.resp.requests()); n != 2 {
		t.Errorf("%d answers, want 2", n)
	}
}

// A 停止 whose answer is over (its process stopped before taking it off)
// is refused with a reason only the presser sees, and the button goes.
func TestStaleStopRefusedWithAReason(t *testing.T) {
	t.Parallel()
	h := startAnswerButtons(t, nil)
	id := h.bot.answerButtonID(answerButton{action: actionStop, messageID: "123", askerID: "7"})
	msg := h.postButtons(chanID, id)
	i := h.srv.PressButton(chanID, msg, id, &discordgo.User{ID: "7"}, 0)
	if got := h.ephemeral(i); got != notRunningReply {
		t.Errorf("press = %q, want %q", got, notRunningReply)
	}
	h.waitBot(chanID, func(ms []discordtest.Message) bool { return len(ms) == 1 && len(ms[0].Buttons()) == 0 })
}

// A long answer on a server that refuses edits: of the new messages its
// rest goes out in, only the last carries a button, 再生成.
func TestLongAnswerWithEditsRefusedEndsWithAgain(t *testing.T) {
	t.Parallel()
	h, _ := startFaulty(t, func(srv *discordtest.Server) {
		srv.AddChannel(chanID)
		srv.PutChannelInGuild(chanID, guildID)
		srv.RefuseEdits(chanID, true)
	}, func(o *Options) { o.ButtonKey = []byte("test-key") })
	text := strings.Repeat("長い答えの文です。", 500)
	h.resp.script = func(ctx context.Context, _ chat.Request, emit func(llm.Event) error) error {
		emit(llm.Text{Text: "書き出し、"})
		h.waitBot(chanID, func(ms []discordtest.Message) bool { return len(ms) == 1 })
		emit(llm.Text{Text: text})
		return emit(llm.Done{})
	}
	h.mention(chanID, "7", "長く")
	ms := h.waitBot(chanID, func(ms []discordtest.Message) bool {
		return len(ms) >= 3 && len(ms[len(ms)-1].Buttons()) > 0
	})
	for i, m := range ms {
		want := []string(nil)
		switch i {
		case 0:
			want = []string{"停止"} // no edit could take it off
		case len(ms) - 1:
			want = []string{"再生成"}
		}
		if got := labels(m); !slices.Equal(got, want) {
			t.Errorf("message %d of %d has buttons %v, want %v", i+1, len(ms), got, want)
		}
	}
}
