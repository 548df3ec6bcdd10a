package bot

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/commands"
	"github.com/yorozu-bot/yorozu/llm"
)

// A channel holds MaxWaiting turns behind the running one; the next user is
// told at once that the bot is busy, and every queued turn is answered.
// holdAnswerTo makes the responder answer "答え:<text>" to every mention,
// holding its answer to text until the returned channel is closed.
func (h *harness) holdAnswerTo(text string) chan struct{} {
	release := make(chan struct{})
	h.resp.script = func(ctx context.Context, req chat.Request, emit func(llm.Event) error) error {
		if req.Text == text {
			<-release
		}
		return say("答え:"+req.Text)(ctx, req, emit)
	}
	return release
}

func TestFullChannelQueueTellsTheUser(t *testing.T) {
	t.Parallel()
	h := start(t, func(o *Options) { o.MaxWaiting = 2 })
	gate := h.holdAnswerTo("A")
	h.mention(chanID, "1", "A")
	h.srv.WaitFor(h.ctx, func() bool { return len(h.resp.requests()) == 1 })
	b := h.mention(chanID, "2", "B")
	c := h.mention(chanID, "3", "C")
	d := h.mention(chanID, "4", "D")
	h.waitBot(chanID, func(ms []discordtest.Message) bool {
		refs := map[string]string{}
		for _, m := range ms {
			if m.Reference != nil {
				refs[m.Reference.MessageID] = m.Content
			}
		}
		return refs[b.ID] == queuedText(2) && refs[c.ID] == queuedText(3) && refs[d.ID] == busyReply
	})
	close(gate)
	h.waitBot(chanID, func(ms []discordtest.Message) bool {
		var got []string
		for _, m := range ms {
			got = append(got, m.Content)
		}
		slices.Sort(got)
		want := []string{"答え:A", "答え:B", "答え:C", busyReply}
		slices.Sort(want)
		return slices.Equal(got, want)
	})
	var texts []string
	for _, r := range h.resp.requests() {
		texts = append(texts, r.Text)
	}
	if got := strings.Join(texts, ","); got != "A,B,C" {
		t.Errorf("answered %s, want A,B,C (D was refused)", got)
	}
}

// The bot takes its turns from the limiter it is given, the one the admin
// page's chat uses: turns spent on the page count on Discord too, and a
// limit changed on the settings page is in force for Discord at once.
func TestSharedRateLimiter(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	lim := chat.NewRateLimiter(2, time.Minute)
	h := start(t, func(o *Options) {
		o.Limiter = lim
		o.Now = func() time.Time { return now }
	})
	// User 42 spent both turns on the admin page.
	for range 2 {
		if ok, _ := lim.Allow("42", now); !ok {
			t.Fatal("the page's turn was refused")
		}
	}
	h.mention(chanID, "42", "もう一つ")
	h.waitText(chanID, rateLimitedReply)
	if n := len(h.resp.requests()); n != 0 {
		t.Fatalf("responder called %d times for a limited user", n)
	}
	lim.Set(0, time.Minute) // the settings page lifts the limit
	h.mention(chanID, "42", "今度は")
	h.waitText(chanID, rateLimitedReply, "了解です。")
	if got := fmt.Sprint(len(h.resp.requests())); got != "1" {
		t.Errorf("responder called %s times, want 1", got)
	}
}

// A responder that panics answers the user with a short error, and the
// channel's next mention is answered: the process and the channel go on.
func TestPanickingResponderAnswersWithAnError(t *testing.T) {
	t.Parallel()
	h, logs := startFaulty(t, nil, nil)
	h.resp.script = func(ctx context.Context, req chat.Request, emit func(llm.Event) error) error {
		if req.Text == "爆発" {
			panic("responder bug")
		}
		return say("答え:"+req.Text)(ctx, req, emit)
	}
	h.mention(chanID, "1", "爆発")
	h.waitText(chanID, genericErrorReply)
	h.mention(chanID, "1", "次")
	h.waitText(chanID, genericErrorReply, "答え:次")
	if !strings.Contains(logs.String(), "responder panic") {
		t.Errorf("the panic was not logged:\n%s", logs.String())
	}
}

// A slash-command handler that panics gets the user a short error as the
// interaction's answer, and later commands are still handled.
func TestPanickingCommandAnswersWithAnError(t *testing.T) {
	t.Parallel()
	srv := discordtest.New(t)
	b, err := New(Options{Token: "t", APIBase: srv.URL(), Responder: &fakeResponder{}})
	if err != nil {
		t.Fatal(err)
	}
	handled := make(chan struct{}, 1)
	b.AddCommand(commands.Command{Name: "boom", Description: "壊れたコマンド",
		Run: func(context.Context, commands.Request) commands.Reply { panic("broken handler") }})
	b.AddCommand(commands.Command{Name: "ping", Description: "疎通確認",
		Run: func(context.Context, commands.Request) commands.Reply {
			handled <- struct{}{}
			return commands.Text("pong")
		}})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := b.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer b.Stop()
	srv.SendInteraction(&discordgo.Interaction{Type: discordgo.InteractionApplicationCommand, ChannelID: chanID,
		Token: "tok1", Data: discordgo.ApplicationCommandInteractionData{Name: "boom"}})
	if err := srv.WaitFor(ctx, func() bool { return len(srv.InteractionResponses()) == 1 }); err != nil {
		t.Fatalf("no answer to the panicking command: %v", err)
	}
	r := srv.InteractionResponses()[0].Response
	if r.Data == nil || r.Data.Content != genericErrorReply || r.Data.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Errorf("answer = %+v, want the ephemeral error notice", r.Data)
	}
	srv.SendInteraction(&discordgo.Interaction{Type: discordgo.InteractionApplicationCommand, ChannelID: chanID,
		Token: "tok2", Data: discordgo.ApplicationCommandInteractionData{Name: "ping"}})
	select {
	case <-handled:
	case <-ctx.Done():
		t.Fatal("the next command was not handled")
	}
}
