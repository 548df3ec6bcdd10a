package bot

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/internal/logtest"
)

// snowflakeAt is a message id made at t, as Discord's ids encode it.
func snowflakeAt(t time.Time) string {
	return strconv.FormatUint(uint64(t.UnixMilli()-1420070400000)<<22, 10)
}

// A mention sent while yorozu was down, in a channel it never talked in,
// is answered once after the restart: the channel arrives in its server's
// GUILD_CREATE after READY, with a last message newer than the gateway's
// last heartbeat. The server's quiet channels are not read, and a second
// restart does not answer the mention again. The processes hand the
// gateway over through the real database, as yorozu does.
func TestRestartCatchesUpEveryChannel(t *testing.T) {
	t.Parallel()
	pool := dbtest.New(t)
	srv := discordtest.New(t)
	guild := discordtest.DefaultGuildID
	// A server of many channels whose last messages are an hour old.
	quiet := map[string]bool{}
	for i := range 40 {
		id := strconv.Itoa(700 + i)
		srv.AddChannel(id)
		srv.PutChannelInGuild(id, guild)
		srv.SendMessage(&discordgo.Message{ID: snowflakeAt(time.Now().Add(-time.Hour)), ChannelID: id, GuildID: guild,
			Author: &discordgo.User{ID: "u1", Username: "u1"}, Content: "昔の話", Timestamp: time.Now().Add(-time.Hour)})
		quiet[id] = true
	}
	const fresh = "800" // a channel yorozu never talked in
	srv.AddChannel(fresh)
	srv.PutChannelInGuild(fresh, guild)

	logs := &logtest.Buffer{}
	// run starts a yorozu process's Discord side (a bot with its
	// hand-over) and returns its responder and a stop that ends it as a
	// shutdown does.
	run := func(name string) (*fakeResponder, func()) {
		resp := &fakeResponder{}
		b, err := New(Options{Token: "restart-token", APIBase: srv.URL(), Responder: resp, Claims: DatabaseClaims(pool),
			Logger: slog.New(slog.NewTextHandler(logs, nil)).With("process", name)})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		h := NewHandover(b, pool, func(err error) { t.Errorf("%s: gateway lost: %v", name, err) })
		sctx, scancel := context.WithTimeout(ctx, 20*time.Second)
		defer scancel()
		if err := h.Start(sctx); err != nil {
			t.Fatal(err)
		}
		if err := srv.WaitFor(sctx, func() bool { return b.Ready() }); err != nil {
			t.Fatalf("%s not connected: %v\n%s", name, err, logs)
		}
		return resp, func() {
			b.Stop()
			rctx, rcancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer rcancel()
			if err := h.Release(rctx); err != nil {
				t.Errorf("%s: release the gateway: %v", name, err)
			}
			cancel()
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	waitText := func(want ...string) {
		t.Helper()
		var got []discordtest.Message
		err := srv.WaitFor(ctx, func() bool {
			got = srv.BotMessages(fresh)
			if len(got) != len(want) {
				return false
			}
			for i := range got {
				if got[i].Content != want[i] {
					return false
				}
			}
			return true
		})
		if err != nil {
			t.Fatalf("bot messages in %s = %+v, want %q: %v\n%s", fresh, got, want, err, logs)
		}
	}

	_, stop := run("first")
	stop()
	mention := srv.SendMessage(&discordgo.Message{ChannelID: fresh, GuildID: guild,
		Author:  &discordgo.User{ID: "u1", Username: "u1"},
		Content: "<@" + srv.BotID() + "> 止まっている間に聞きます", Mentions: []*discordgo.User{{ID: srv.BotID()}}})

	second, stop := run("second")
	waitText("了解です。")
	if reqs := second.requests(); len(reqs) != 1 || reqs[0].MessageID != mention.ID {
		t.Errorf("after the restart answered %+v, want the mention once", reqs)
	}
	for _, c := range srv.Calls() {
		var ch string
		if _, err := fmt.Sscanf(c.Path, "/channels/%3s/messages", &ch); err == nil && quiet[ch] && c.Method == "GET" {
			t.Errorf("read the history of quiet channel %s", ch)
		}
	}
	stop()

	reads := func() int { return len(callsTo(srv.Calls(), "GET", "/channels/"+fresh+"/messages")) }
	before := reads()
	third, stop := run("third")
	defer stop()
	// The channel is read again (its last message, the answer, is newer
	// than the heartbeat); a mention after that queues behind anything the
	// catch-up admitted.
	if err := srv.WaitFor(ctx, func() bool { return reads() > before }); err != nil {
		t.Fatalf("the third process did not read %s: %v\n%s", fresh, err, logs)
	}
	srv.SendMessage(&discordgo.Message{ChannelID: fresh, GuildID: guild, Author: &discordgo.User{ID: "u1", Username: "u1"},
		Content: "<@" + srv.BotID() + "> もう一度", Mentions: []*discordgo.User{{ID: srv.BotID()}}})
	waitText("了解です。", "了解です。")
	if reqs := third.requests(); len(reqs) != 1 || reqs[0].Text != "もう一度" {
		t.Errorf("after a second restart answered %+v, want only the new mention", reqs)
	}
}

// A catch-up reads at most catchUpChannels of a server's channels with new
// messages, the newest first, and says that it left the others; a channel
// with a conversation read at READY is not read again.
func TestGuildCatchUpIsBounded(t *testing.T) {
	t.Parallel()
	claims := &fakeClaims{channels: []db.DiscordChannel{{GuildID: discordtest.DefaultGuildID, ChannelID: "600"}}}
	h, logs := startFaulty(t, nil, withClaims(claims, time.Minute))
	h.bot.Leave()
	guild := discordtest.DefaultGuildID
	const n = catchUpChannels + 5
	for i := range n {
		id := strconv.Itoa(600 + i)
		h.srv.AddChannel(id)
		h.srv.PutChannelInGuild(id, guild)
		h.srv.SendMessage(&discordgo.Message{ChannelID: id, GuildID: guild, Author: &discordgo.User{ID: "u1", Username: "u1"},
			Content: "雑談"})
	}
	h.bot.CatchUpNext(time.Now().Add(-time.Minute), false)
	if err := h.bot.Start(h.ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := logs.WaitFor(h.ctx, regexp.MustCompile(`too many channels with new messages.* skipped=4 `)); err != nil {
		t.Fatalf("no line about the channels left: %v\n%s", err, logs)
	}
	reads := map[string]int{}
	for _, c := range h.srv.Calls() {
		if id, ok := strings.CutSuffix(strings.TrimPrefix(c.Path, "/channels/"), "/messages"); ok && c.Method == "GET" {
			reads[id]++
		}
	}
	if len(reads) != catchUpChannels+1 || reads["600"] != 1 {
		t.Errorf("read %d channels (%d times the one with a conversation), want %d, each once", len(reads), reads["600"], catchUpChannels+1)
	}
	for i := range 4 { // the oldest, but for the one read at READY
		if id := strconv.Itoa(601 + i); reads[id] != 0 {
			t.Errorf("read channel %s, one of the oldest", id)
		}
	}
}
