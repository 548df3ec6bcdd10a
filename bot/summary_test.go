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
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/commands"
	"github.com/yorozu-bot/yorozu/internal/logtest"
	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// summaryHarness is a bot with /summary and 「ここから要約」 between the fake
// Discord and the fake Ollama.
type summaryHarness struct {
	t      *testing.T
	ctx    context.Context
	srv    *discordtest.Server
	ollama *ollamatest.Server
	logs   *logtest.Buffer
}

func startSummary(t *testing.T, budget int) *summaryHarness {
	t.Helper()
	srv := discordtest.New(t)
	srv.AddChannel(chanID)
	srv.PutChannelInGuild(chanID, guildID)
	o := ollamatest.New(t)
	o.AddModel("m", "completion")
	logs := &logtest.Buffer{}
	b, err := New(Options{Token: "t", APIBase: srv.URL(), Responder: &fakeResponder{},
		Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	b.deferAfter = 50 * time.Millisecond
	s := &chat.Summarizer{Source: b, Pipeline: llm.New(llm.Options{Client: o.Client()}), Model: "m", Budget: budget}
	opts := commands.SummaryOptions{Summarizer: s}
	b.AddCommand(commands.Summary(opts))
	b.AddCommand(commands.SummaryFromHere(opts))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	if err := b.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Stop)
	return &summaryHarness{t: t, ctx: ctx, srv: srv, ollama: o, logs: logs}
}

// idAt is a message id made at t, as Discord's ids carry their time.
func idAt(t time.Time, seq int) string {
	return strconv.FormatUint(uint64(t.UnixMilli()-1420070400000)<<22|uint64(seq), 10)
}

// talk posts n member messages in the channel, evenly from from to to, and
// returns their ids in order.
func (h *summaryHarness) talk(n int, from, to time.Time, text func(i int) string) []string {
	step := to.Sub(from) / time.Duration(n)
	var ids []string
	for i := range n {
		at := from.Add(time.Duration(i) * step)
		m := h.srv.SendMessage(&discordgo.Message{ID: idAt(at, i%4096), ChannelID: chanID, GuildID: guildID, Timestamp: at,
			Author: &discordgo.User{ID: fmt.Sprint(100 + i%3), Username: fmt.Sprintf("member%d", i%3)}, Content: text(i)})
		ids = append(ids, m.ID)
	}
	return ids
}

// use sends the command (options: since, channel) or, with target, the
// message command on that message, and returns what the user saw last
// and what the channel saw ("" when nothing).
func (h *summaryHarness) use(name, target string, opts map[string]string) (seen, public string) {
	h.t.Helper()
	id := h.srv.NewID()
	data := discordgo.ApplicationCommandInteractionData{Name: name, TargetID: target}
	if target != "" {
		data.CommandType = discordgo.MessageApplicationCommand
	}
	for k, v := range opts {
		data.Options = append(data.Options, &discordgo.ApplicationCommandInteractionDataOption{Name: k, Type: discordgo.ApplicationCommandOptionString, Value: v})
	}
	h.srv.SendInteraction(&discordgo.Interaction{ID: id, Type: discordgo.InteractionApplicationCommand, GuildID: guildID,
		ChannelID: chanID, Token: "tok-" + id, Member: &discordgo.Member{User: &discordgo.User{ID: "100"}}, Data: data})
	err := h.srv.WaitFor(h.ctx, func() bool {
		m, ok := h.srv.Original(id)
		if !ok || m.Content == "" || strings.HasPrefix(m.Content, "要約中") || strings.HasPrefix(m.Content, "履歴を") {
			return false
		}
		return m.Content != postedReply || len(h.srv.Followups(id)) > 0
	})
	if err != nil {
		h.t.Fatalf("no answer to %s: %v\nlog:\n%s", name, err, h.logs)
	}
	m, _ := h.srv.Original(id)
	if m.Flags&discordgo.MessageFlagsEphemeral == 0 {
		return "", m.Content // answered at once, in the channel
	}
	if f := h.srv.Followups(id); len(f) > 0 {
		public = f[0].Content
	}
	return m.Content, public
}

// partReply answers a part with a point citing the part's first message,
// and a combining request with the points it was given.
func partReply(req api.ChatRequest) ollamatest.Reply {
	system, user := req.Messages[0].Content, req.Messages[len(req.Messages)-1].Content
	first := regexp.MustCompile(`\[(\d+)\]`).FindString(user)
	switch {
	case strings.Contains(system, "分けて要約したメモ"):
		return ollamatest.Text("**BBQの集合場所**\n" + user + "\n- ❓ 未解決: 雨の場合 [9999] https://discord.com/channels/1/2/3")
	case strings.Contains(system, "一部"):
		return ollamatest.Text("- ✅ 決定: 集合は駅前 " + first)
	}
	return ollamatest.Text("**BBQ**\n- ✅ 決定: 集合は駅前 " + first)
}

// /summary since:1h over 300 messages of the last hour, older talk before
// them: the summary is posted in the channel, made in parts and then
// combined (progress shown on the deferred answer meanwhile), each point
// with a jump link to a real message; the model sees nothing older than
// the hour and no number or link it made up survives.
func TestSummaryInParts(t *testing.T) {
	t.Parallel()
	h := startSummary(t, 2000)
	now := time.Now()
	h.talk(20, now.Add(-3*time.Hour), now.Add(-2*time.Hour), func(i int) string { return fmt.Sprintf("古い話 %d", i) })
	ids := h.talk(300, now.Add(-59*time.Minute), now.Add(-time.Minute), func(i int) string {
		return fmt.Sprintf("BBQの集合場所は駅前がいいと思います、その%d", i)
	})
	deferred := make(chan struct{})
	h.ollama.Handle(func(req api.ChatRequest) ollamatest.Reply {
		// The first part waits for the deferral, so progress can show.
		select {
		case <-deferred:
		default:
			_ = h.srv.WaitFor(h.ctx, func() bool {
				for _, c := range h.srv.Calls() {
					if strings.HasSuffix(c.Path, "/callback") {
						return true
					}
				}
				return false
			})
			close(deferred)
		}
		return partReply(req)
	})

	seen, public := h.use("summary", "", map[string]string{"since": "1h"})
	if seen != postedReply {
		t.Errorf("the user sees %q, want %q", seen, postedReply)
	}
	reqs := h.ollama.Requests()
	if len(reqs) < 3 || !strings.Contains(reqs[len(reqs)-1].Messages[0].Content, "分けて要約したメモ") {
		t.Fatalf("model requests = %d, the last not combining", len(reqs))
	}
	for _, r := range reqs {
		if strings.Contains(r.Messages[1].Content, "古い話") {
			t.Fatal("the model saw talk from before the hour")
		}
	}
	if want := chat.JumpLink(guildID, chanID, ids[0]); !strings.Contains(public, want) {
		t.Errorf("summary lacks the link to the first message %s:\n%s", want, public)
	}
	links := regexp.MustCompile(`https://discord\.com/channels/(\S+?)/(\d+)/(\d+)\)`).FindAllStringSubmatch(public, -1)
	if len(links) != len(reqs)-1 {
		t.Errorf("%d links for %d parts:\n%s", len(links), len(reqs)-1, public)
	}
	real := map[string]bool{}
	for _, id := range ids {
		real[id] = true
	}
	for _, l := range links {
		if l[1] != guildID || l[2] != chanID || !real[l[3]] {
			t.Errorf("link %s is to no message of the hour", l[0])
		}
	}
	if strings.Contains(public, "9999") || strings.Contains(public, "/1/2/3") {
		t.Errorf("a number or link the model made up survived:\n%s", public)
	}
	if !strings.Contains(public, "300件") {
		t.Errorf("summary does not say how many messages it read:\n%s", public)
	}
	var progress []string
	for _, c := range h.srv.Calls() {
		if c.Method == "PATCH" && strings.Contains(c.Path, "@original") && strings.Contains(string(c.Body), "要約中") {
			progress = append(progress, c.Content)
		}
	}
	if len(progress) == 0 {
		t.Errorf("no progress shown on the deferred answer; calls: %+v", h.srv.Calls())
	} else if last := progress[len(progress)-1]; last != fmt.Sprintf("要約中… %d/%d", len(reqs), len(reqs)) {
		t.Errorf("last progress %q after %d model calls", last, len(reqs))
	}
}

// What /summary and 「ここから要約」 answer without a summary to make, and
// from a message.
func TestSummaryAnswers(t *testing.T) {
	t.Parallel()
	h := startSummary(t, 6000)
	now := time.Now()
	ids := h.talk(10, now.Add(-20*time.Minute), now.Add(-10*time.Minute), func(i int) string {
		switch i {
		case 3:
			return "" // only an attachment, below
		case 4:
			return strings.Repeat("長い話。", 1000) // 4,000 characters
		}
		return fmt.Sprintf("話題その%d", i)
	})
	h.ollama.Handle(partReply)

	t.Run("an empty period makes no model call", func(t *testing.T) {
		seen, public := h.use("summary", "", map[string]string{"since": "5m"})
		if public != "" || !strings.Contains(seen, "メッセージがありません") {
			t.Errorf("the user sees %q, public %q", seen, public)
		}
		if n := h.ollama.ChatCalls(); n != 0 {
			t.Errorf("%d model calls for nothing said", n)
		}
	})
	t.Run("long and empty messages", func(t *testing.T) {
		_, public := h.use("summary", "", map[string]string{"since": "1h"})
		if !strings.Contains(public, "9件") {
			t.Errorf("summary of the hour = %q", public)
		}
		read := h.ollama.Requests()[h.ollama.ChatCalls()-1].Messages[1].Content
		if n := strings.Count(read, "長い話。"); n == 0 || n > 200 {
			t.Errorf("the 4,000-character message reached the model as %d sentences", n)
		}
		if strings.Contains(read, "[4] ") {
			t.Errorf("an empty message reached the model:\n%s", read)
		}
	})
	t.Run("a since it cannot read", func(t *testing.T) {
		seen, public := h.use("summary", "", map[string]string{"since": "先週くらい"})
		if public != "" || !strings.Contains(seen, "「先週くらい」は期間として読めませんでした") || !strings.Contains(seen, "yesterday（昨日）") {
			t.Errorf("the user sees %q, public %q", seen, public)
		}
	})
	t.Run("from a message", func(t *testing.T) {
		_, public := h.use(commands.SummaryFromHereName, ids[7], nil)
		if !strings.Contains(public, "（") || !strings.Contains(public, chat.JumpLink(guildID, chanID, ids[7])) {
			t.Errorf("summary from message 8 = %q", public)
		}
		last := h.ollama.Requests()[h.ollama.ChatCalls()-1].Messages[1].Content
		if strings.Contains(last, "話題その6") || !strings.Contains(last, "話題その7") || !strings.Contains(last, "話題その9") {
			t.Errorf("the model read:\n%s", last)
		}
	})
	t.Run("history yorozu may not read", func(t *testing.T) {
		h.srv.FailChannel(chanID, 403, 50001, "Missing Access")
		seen, public := h.use("summary", "", nil)
		if public != "" || !strings.Contains(seen, "「メッセージ履歴を読む」") {
			t.Errorf("the user sees %q, public %q", seen, public)
		}
	})
}

// Messages of only an attachment, of 4,000 characters, or by a member who
// left reach the model as something said, the long one cut.
func TestChannelMessageForSummary(t *testing.T) {
	m := channelMessage(&discordgo.Message{ID: "1", Author: &discordgo.User{Username: "Deleted User"},
		Attachments:  []*discordgo.MessageAttachment{{Filename: "map.png"}},
		StickerItems: []*discordgo.StickerItem{{Name: "OK"}}})
	if m.Author != "Deleted User" || len(m.Attachments) != 1 || len(m.Stickers) != 1 {
		t.Errorf("channel message = %+v", m)
	}
}

// /summary is declared with its Japanese name and a channel option;
// 「ここから要約」 as a message context-menu command, with no description.
func TestSummaryDeclarations(t *testing.T) {
	opts := commands.SummaryOptions{}
	sum := applicationCommand(commands.Summary(opts))
	if sum.Type != 0 || (*sum.NameLocalizations)[discordgo.Japanese] != "要約" || len(sum.Options) != 2 ||
		sum.Options[1].Type != discordgo.ApplicationCommandOptionChannel {
		t.Errorf("/summary = %+v", sum)
	}
	here := applicationCommand(commands.SummaryFromHere(opts))
	if here.Type != discordgo.MessageApplicationCommand || here.Name != "Summarize from here" ||
		(*here.NameLocalizations)[discordgo.Japanese] != "ここから要約" || here.Description != "" || here.Options != nil {
		t.Errorf("message command = %+v", here)
	}
}

// A member may have another channel summarised only when it is of the
// same server and they can read its history there.
func TestMayRead(t *testing.T) {
	t.Parallel()
	h := startSummary(t, 6000)
	for _, c := range []struct{ id, guild string }{{"601", guildID}, {"602", guildID}, {"603", "999"}} {
		h.srv.AddChannel(c.id)
		h.srv.PutChannelInGuild(c.id, c.guild)
	}
	h.srv.AddMember(guildID, "100")
	h.srv.AddMember("999", "100")
	h.srv.DenyMember("602", "100", discordgo.PermissionReadMessageHistory)
	b, err := New(Options{Token: "t", APIBase: h.srv.URL(), Responder: &fakeResponder{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		channel string
		want    bool
	}{{"601", true}, {"602", false}, {"603", false}, {"604", false}} {
		got, err := b.MayRead(h.ctx, guildID, "100", tc.channel)
		if err != nil || got != tc.want {
			t.Errorf("may read %s = %v, %v; want %v", tc.channel, got, err, tc.want)
		}
	}
}

// A public reply longer than a message (a summary with its links) reaches
// the channel whole, in two messages, whether it was deferred or not.
func TestLongPublicReplySplit(t *testing.T) {
	t.Parallel()
	srv := discordtest.New(t)
	srv.AddChannel(chanID)
	b, err := New(Options{Token: "t", APIBase: srv.URL(), Responder: &fakeResponder{}})
	if err != nil {
		t.Fatal(err)
	}
	b.deferAfter = 100 * time.Millisecond
	long := strings.Repeat("- 項目です。 [↗](https://discord.com/channels/900/500/123456789012345678)\n", 40)
	for _, name := range []string{"quick", "slow"} {
		b.AddCommand(commands.Command{Name: name, Description: name, Run: func(ctx context.Context, _ commands.Request) commands.Reply {
			if name == "slow" {
				_ = srv.WaitFor(ctx, func() bool {
					return len(srv.InteractionResponses()) > 0 && srv.InteractionResponses()[len(srv.InteractionResponses())-1].Response.Type == 5
				})
			}
			return commands.Reply{Text: long, Public: true}
		}})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := b.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer b.Stop()
	for _, name := range []string{"quick", "slow"} {
		t.Run(name, func(t *testing.T) {
			id := srv.NewID()
			srv.SendInteraction(&discordgo.Interaction{ID: id, Type: discordgo.InteractionApplicationCommand, ChannelID: chanID,
				Token: "tok-" + id, Data: discordgo.ApplicationCommandInteractionData{Name: name}})
			var public []string
			err := srv.WaitFor(ctx, func() bool {
				public = nil
				if m, ok := srv.Original(id); ok && m.Flags&discordgo.MessageFlagsEphemeral == 0 && m.Content != "" {
					public = append(public, m.Content)
				}
				for _, f := range srv.Followups(id) {
					public = append(public, f.Content)
				}
				return strings.Join(public, "") == long || strings.Join(public, "\n") == long
			})
			if err != nil || len(public) != 2 {
				t.Errorf("the channel saw %d messages: %q (%v)", len(public), public, err)
			}
		})
	}
}
