package bot

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm"
)

// fakeClaims keeps claims in memory; away makes every call fail (the
// database refuses), hang makes it wait for its deadline (the database
// does not answer).
type fakeClaims struct {
	mu       sync.Mutex
	owners   map[string]string
	away     bool
	hang     bool
	channels []db.DiscordChannel
	calls    int
	gate     chan struct{} // when set, a claim waits for it to close
}

func (f *fakeClaims) set(away, hang bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.away, f.hang = away, hang
}

func (f *fakeClaims) ClaimMention(ctx context.Context, messageID string) (bool, error) {
	f.mu.Lock()
	f.calls++
	away, hang, gate := f.away, f.hang, f.gate
	f.mu.Unlock()
	if gate != nil {
		<-gate
	}
	if hang {
		<-ctx.Done()
		return false, ctx.Err()
	}
	if away {
		return false, errors.New("dial tcp 127.0.0.1:5432: connect: connection refused")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.owners == nil {
		f.owners = map[string]string{}
	}
	if o, ok := f.owners[messageID]; ok && o != "us" {
		return false, nil
	}
	f.owners[messageID] = "us"
	return true, nil
}

func (f *fakeClaims) RecentChannels(context.Context, int) ([]db.DiscordChannel, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.channels, nil
}

// claimedBy marks messageID as another process's.
func (f *fakeClaims) claimedBy(messageID, owner string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.owners == nil {
		f.owners = map[string]string{}
	}
	f.owners[messageID] = owner
}

func withClaims(c Claims, wait time.Duration) func(*Options) {
	return func(o *Options) { o.Claims, o.OutageWait = c, wait }
}

// A mention that arrives while the database refuses waits for it and is
// answered once when it is back.
func TestMentionWaitsForTheDatabase(t *testing.T) {
	claims := &fakeClaims{away: true}
	h := start(t, withClaims(claims, time.Minute))
	h.srv.AddChannel(chanID)
	h.mention(chanID, "u1", "こんにちは")
	time.Sleep(1500 * time.Millisecond)
	if got := h.resp.requests(); len(got) != 0 {
		t.Fatalf("answered while the database was away: %+v", got)
	}
	claims.set(false, false)
	h.waitText(chanID, "了解です。")
	time.Sleep(300 * time.Millisecond)
	if n := len(h.resp.requests()); n != 1 {
		t.Errorf("responder called %d times, want 1", n)
	}
}

// A mention that waited OutageWait for a database that does not answer
// (each claim cut by its deadline) is told so once, and the channel's next
// turn is not held up behind it.
func TestMentionToldWhenTheDatabaseStaysAway(t *testing.T) {
	claims := &fakeClaims{hang: true}
	h := start(t, withClaims(claims, 3*time.Second))
	h.srv.AddChannel(chanID)
	began := time.Now()
	h.mention(chanID, "u1", "こんにちは")
	h.waitText(chanID, databaseAwayReply)
	if d := time.Since(began); d < 3*time.Second || d > 3*time.Second+claimTimeout+time.Second {
		t.Errorf("told after %s, want about OutageWait (3 s), within one claim's deadline", d)
	}
	claims.set(false, false)
	h.mention(chanID, "u1", "もう一度")
	h.waitText(chanID, databaseAwayReply, "了解です。")
	if n := len(h.resp.requests()); n != 1 {
		t.Errorf("responder called %d times, want 1 (the second mention)", n)
	}
}

// A mention another process claimed is left to it: nothing is posted
// here, also by a responder that answers without waiting for the claim
// (no Admit).
func TestMentionClaimedElsewhere(t *testing.T) {
	for _, tc := range []struct {
		name        string
		ignoreAdmit bool
		want        string // the texts the responder got
	}{
		{"the responder waits for the claim", false, "次"},
		{"the responder does not wait", true, "重複,次"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			claims := &fakeClaims{}
			h := start(t, withClaims(claims, time.Minute))
			h.srv.AddChannel(chanID)
			h.resp.ignoreAdmit = tc.ignoreAdmit
			id := h.srv.NewID()
			claims.claimedBy(id, "other")
			h.srv.SendMessage(&discordgo.Message{ID: id, ChannelID: chanID, GuildID: guildID,
				Author: &discordgo.User{ID: "u1", Username: "u1"}, Content: "<@" + h.srv.BotID() + "> 重複"})
			h.mention(chanID, "u1", "次")
			h.waitText(chanID, "了解です。")
			var texts []string
			for _, r := range h.resp.requests() {
				texts = append(texts, r.Text)
			}
			if got := strings.Join(texts, ","); got != tc.want {
				t.Errorf("responder got %q, want %q", got, tc.want)
			}
		})
	}
}

// The model is asked while the claim is on its way; when another process
// turns out to have claimed the message, the call is stopped at once and
// nothing of it is shown.
func TestLostClaimStopsTheModelCall(t *testing.T) {
	claims := &fakeClaims{}
	h := start(t, withClaims(claims, time.Minute))
	h.srv.AddChannel(chanID)
	h.resp.ignoreAdmit = true // the model call starts before the claim is known
	stopped := make(chan error, 1)
	h.resp.script = func(ctx context.Context, req chat.Request, emit func(llm.Event) error) error {
		if req.Text != "重複" {
			return say("了解です。")(ctx, req, emit)
		}
		_ = emit(llm.Text{Text: "途中まで"})
		select {
		case <-ctx.Done():
			stopped <- context.Cause(ctx)
			return ctx.Err()
		case <-time.After(10 * time.Second):
			stopped <- nil
			return errors.New("not stopped")
		}
	}
	id := h.srv.NewID()
	claims.claimedBy(id, "other")
	h.srv.SendMessage(&discordgo.Message{ID: id, ChannelID: chanID, GuildID: guildID,
		Author: &discordgo.User{ID: "u1", Username: "u1"}, Content: "<@" + h.srv.BotID() + "> 重複"})
	if cause := <-stopped; !errors.Is(cause, errUnclaimed) {
		t.Fatalf("the model call ended with %v, want it stopped as unclaimed", cause)
	}
	h.mention(chanID, "u1", "次")
	h.waitText(chanID, "了解です。")
}

// A mention's claim is made while the responder reads the turn's context:
// the turn reaches the responder before the claim is done, and nothing is
// shown or asked of the model until it is.
func TestClaimMadeBesideTheContext(t *testing.T) {
	gate := make(chan struct{})
	claims := &fakeClaims{gate: gate}
	h := start(t, withClaims(claims, time.Minute))
	h.srv.AddChannel(chanID)
	entered := make(chan struct{}, 1)
	h.resp.entered = func(chat.Request) { entered <- struct{}{} }
	h.mention(chanID, "u1", "こんにちは")
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the responder waits for the claim")
	}
	time.Sleep(100 * time.Millisecond)
	if msgs, reqs := h.srv.BotMessages(chanID), h.resp.requests(); len(msgs) != 0 || len(reqs) != 0 {
		t.Errorf("before the claim: bot messages %+v, model asked %d times", msgs, len(reqs))
	}
	close(gate)
	h.waitText(chanID, "了解です。")
}

// The gateway was not held while mentions were sent: CatchUp answers the
// fresh ones in order, tells the stale one once, and leaves alone one the
// bot replied to, one another process claimed and a message that does not
// mention the bot; a mention after the connection comes after them. A
// second catch-up does nothing more.
func TestCatchUpAnswersMissedMentions(t *testing.T) {
	claims := &fakeClaims{channels: []db.DiscordChannel{{GuildID: guildID, ChannelID: chanID}}}
	h, logs := startFaulty(t, nil, withClaims(claims, time.Minute))
	defer func() {
		if t.Failed() {
			t.Log(logs.String())
		}
	}()
	h.srv.AddChannel(chanID)
	h.bot.Leave()

	user := &discordgo.User{ID: "u1", Username: "u1"}
	at := func(ago time.Duration) time.Time { return time.Now().Add(-ago) }
	send := func(text string, ago time.Duration, mention bool) *discordgo.Message {
		content := text
		if mention {
			content = "<@" + h.srv.BotID() + "> " + text
		}
		return h.srv.SendMessage(&discordgo.Message{ChannelID: chanID, GuildID: guildID, Author: user,
			Content: content, Timestamp: at(ago)})
	}
	since := at(5 * time.Minute)
	send("古すぎる", 6*time.Minute, true) // before the gap: answered then
	answered := send("返事済み", 4*time.Minute, true)
	h.srv.SendMessage(&discordgo.Message{ChannelID: chanID, Author: &discordgo.User{ID: h.srv.BotID(), Bot: true},
		Content: "返事です", MessageReference: &discordgo.MessageReference{MessageID: answered.ID, ChannelID: chanID}})
	send("止まっていた間に", 3*time.Minute, true)
	send("雑談", 40*time.Second, false)
	elsewhere := send("別のプロセスが", 30*time.Second, true)
	claims.claimedBy(elsewhere.ID, "other")
	send("一つ目", 20*time.Second, true)
	send("二つ目", 10*time.Second, true)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	h.bot.CatchUpNext(since, true)
	if err := h.bot.Start(ctx); err != nil {
		t.Fatal(err)
	}
	// A mention after the connection queues behind those caught up.
	h.mention(chanID, "u1", "三つ目")
	want := databaseAwayReply + " | 了解です。 | 了解です。 | 了解です。"
	written := func(ms []discordtest.Message) string {
		var texts []string
		for _, m := range ms[1:] { // ms[0] is the test's own 返事です
			texts = append(texts, m.Content)
		}
		slices.Sort(texts) // the stale one is told outside the channel's queue
		return strings.Join(texts, " | ")
	}
	h.waitBot(chanID, func(ms []discordtest.Message) bool { return written(ms) == want })
	var asked []string
	for _, r := range h.resp.requests() {
		asked = append(asked, r.Text)
	}
	if got := strings.Join(asked, ","); got != "一つ目,二つ目,三つ目" {
		t.Errorf("answered %q, want 一つ目,二つ目,三つ目 in order", got)
	}
	h.bot.Leave()
	h.bot.CatchUpNext(since, true)
	if err := h.bot.Start(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if got := written(h.srv.BotMessages(chanID)); got != want {
		t.Errorf("after a second catch-up the bot wrote %q", got)
	}
}

// A gateway session that ended (closed normally: Discord will not resume
// it) is identified anew, and the mentions sent while it was away are
// caught up, though no hand-over asked for it.
func TestNewSessionCatchesUpWhatTheOldOneMissed(t *testing.T) {
	claims := &fakeClaims{channels: []db.DiscordChannel{{GuildID: guildID, ChannelID: chanID}}}
	h, logs := startFaulty(t, nil, withClaims(claims, time.Minute))
	h.srv.AddChannel(chanID)
	sessions := h.srv.Sessions()
	// discordgo's Close sends its close frame and waits a second before it
	// tells the bot, which then connects again at once: the mention is sent
	// in that second, while no gateway connection is there to get it.
	closed := make(chan error, 1)
	go func() { closed <- h.bot.session.Close() }() // as discordgo's own heartbeat does on a write error
	if err := h.srv.WaitFor(h.ctx, func() bool { return !h.srv.Connected() }); err != nil {
		t.Fatal(err)
	}
	h.mention(chanID, "u1", "聞こえますか")
	if h.srv.Sessions() != sessions {
		t.Fatal("connected again before the mention was sent")
	}
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if err := h.srv.WaitFor(h.ctx, func() bool { return h.srv.Sessions() > sessions && h.srv.Connected() }); err != nil {
		t.Fatalf("not connected again: %v\n%s", err, logs)
	}
	h.waitText(chanID, "了解です。")
	if reqs := h.resp.requests(); len(reqs) != 1 || reqs[0].Text != "聞こえますか" {
		t.Errorf("answered %+v", reqs)
	}
}
