package bot

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/internal/logtest"
	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/memory"
)

// 「よろずに聞く」 in a group DM yorozu is not in: an answer longer than a
// message streams into the interaction's ephemeral response and goes on
// in ephemeral follow-ups, whole and in order; the model reads the chosen
// message as Discord resolved it, the turn is the asker's DM's, and yorozu
// never calls Discord on the group DM (which would be refused).
func TestAskAbsentStreamsIntoTheInteraction(t *testing.T) {
	t.Parallel()
	const group = "700"
	srv := discordtest.New(t)
	srv.AddGroupDM(group)
	target := srv.PostInGroupDM(&discordgo.Message{ChannelID: group, Content: "この本、面白かった",
		Author: &discordgo.User{ID: "42", Username: "bob"}})
	para := func(r string) string { return strings.Repeat(r, 900) + "。" }
	chunks := []string{para("あ"), "\n\n", para("い"), "\n\n", para("う")}
	resp := &fakeResponder{script: say(chunks...)}
	logs := &logtest.Buffer{}
	ctx := startAsker(t, Options{Token: "t", APIBase: srv.URL(), Responder: resp, EditInterval: 10 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(logs, nil))})

	alice := &discordgo.User{ID: "41", Username: "alice"}
	s := submitAsk(t, ctx, srv, group, target.ID, alice, "どんな本？")
	want := strings.Join(chunks, "")
	var shown []discordtest.Message
	if err := srv.WaitFor(ctx, func() bool {
		original, ok := srv.Original(s)
		if !ok {
			return false
		}
		shown = append([]discordtest.Message{original}, srv.Followups(s)...)
		var got strings.Builder
		for _, m := range shown {
			got.WriteString(m.Content)
		}
		return got.String() == want
	}); err != nil {
		t.Fatalf("the answer was not shown whole: %d messages; log:\n%s", len(shown), logs)
	}
	if len(shown) != 2 {
		t.Errorf("the answer took %d messages, want 2", len(shown))
	}
	seenByTheAskerAlone(t, srv, group, shown)
	reqs := resp.requests()
	dm, _ := srv.DMChannel(alice.ID)
	if len(reqs) != 1 || reqs[0].Session != string(memory.DiscordDM(dm)) || len(reqs[0].ReplyChain) == 0 ||
		reqs[0].ReplyChain[0].Content != "この本、面白かった" || reqs[0].Text != "どんな本？" {
		t.Errorf("turns = %+v, want the question about the message in the asker's DM (%s)", reqs, dm)
	}
}

// seenByTheAskerAlone fails when one of msgs is seen by all, or when
// yorozu called Discord on the group DM (which would be refused).
func seenByTheAskerAlone(t *testing.T, srv *discordtest.Server, group string, msgs []discordtest.Message) {
	t.Helper()
	for _, m := range msgs {
		if m.Flags&discordgo.MessageFlagsEphemeral == 0 {
			t.Errorf("message %s is seen by all (flags %d)", m.ID, m.Flags)
		}
	}
	for _, c := range srv.Calls() {
		if strings.HasPrefix(c.Path, "/channels/"+group) {
			t.Errorf("yorozu called %s %s in the group DM", c.Method, c.Path)
		}
	}
}

// startAsker starts a bot on opts with 「よろずに聞く」; it stops when the
// test ends, and the context it returns lasts a minute.
func startAsker(t *testing.T, opts Options) context.Context {
	t.Helper()
	b, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	b.AddAsk()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	if err := b.Start(ctx); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		b.Stop()
		cancel()
	})
	return ctx
}

// submitAsk opens 「よろずに聞く」 on target in group as user, submits the
// question, and returns the submission's interaction id.
func submitAsk(t *testing.T, ctx context.Context, srv *discordtest.Server, group, target string, user *discordgo.User, question string) string {
	t.Helper()
	i := srv.UseMessageCommand(group, AskCommandName, target, user, 0)
	var modal string
	if err := srv.WaitFor(ctx, func() bool {
		for _, r := range srv.InteractionResponses() {
			if r.InteractionID == i.ID && r.Response.Type == discordgo.InteractionResponseModal {
				modal = r.Response.Data.CustomID
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatal("no modal")
	}
	return srv.SubmitModal(group, modal, map[string]string{askInputID: question}, user, 0).ID
}

// With DISCORD_GUILDS set, 「よろずに聞く」 from a group DM answers only a
// user who shares one of those servers (as a DM would); anyone else is
// told why, and the model is not called.
func TestAskAbsentOnlyForMembersOfServedServers(t *testing.T) {
	t.Parallel()
	const group, served = "700", "901"
	srv := discordtest.New(t)
	srv.AddGroupDM(group)
	srv.SetGuilds(served)
	srv.AddMember(served, "41")
	target := srv.PostInGroupDM(&discordgo.Message{ChannelID: group, Content: "集合は10時",
		Author: &discordgo.User{ID: "42", Username: "bob"}})
	resp := &fakeResponder{script: say("10時に駅前です。")}
	ctx := startAsker(t, Options{Token: "t", APIBase: srv.URL(), Responder: resp, Guilds: []string{served}})
	ask := func(user string) string {
		s := submitAsk(t, ctx, srv, group, target.ID, &discordgo.User{ID: user, Username: "u" + user}, "何時？")
		var text string
		if err := srv.WaitFor(ctx, func() bool {
			m, _ := srv.Original(s)
			text = m.Content
			return text != ""
		}); err != nil {
			t.Fatalf("user %s got no answer", user)
		}
		return text
	}
	if got := ask("43"); got != askAbsentNotServed {
		t.Errorf("a user of no served server was answered %q", got)
	}
	if n := len(resp.requests()); n != 0 {
		t.Errorf("%d model turns for a user of no served server", n)
	}
	if got := ask("41"); got != "10時に駅前です。" {
		t.Errorf("a member of a served server was answered %q", got)
	}
}

// A chart and an offer of the turn follow the answer where yorozu is not:
// the chart as an ephemeral follow-up with the file, the offer as one with
// its two buttons, and nothing on the group DM.
func TestAskAbsentFollowsWithFilesAndOffers(t *testing.T) {
	t.Parallel()
	const group = "700"
	srv := discordtest.New(t)
	srv.AddGroupDM(group)
	target := srv.PostInGroupDM(&discordgo.Message{ChannelID: group, Content: "週末は晴れるかな",
		Author: &discordgo.User{ID: "42", Username: "bob"}})
	chart := llm.File{Name: "forecast.png", ContentType: "image/png", Data: []byte("\x89PNG chart")}
	offer := llm.Offer{ID: 7, Kind: "profile", Preview: "これを覚えますか？\n> 私は晴れ男", Accept: "覚える", Decline: "覚えない"}
	resp := &fakeResponder{script: func(_ context.Context, _ chat.Request, emit func(llm.Event) error) error {
		for _, ev := range []llm.Event{llm.Text{Text: "土曜は晴れです。"}, chart, offer, llm.Done{}} {
			if err := emit(ev); err != nil {
				return err
			}
		}
		return nil
	}}
	ctx := startAsker(t, Options{Token: "t", APIBase: srv.URL(), Responder: resp})

	s := submitAsk(t, ctx, srv, group, target.ID, &discordgo.User{ID: "41", Username: "alice"}, "晴れる？")
	var follow []discordtest.Message
	if err := srv.WaitFor(ctx, func() bool {
		follow = srv.Followups(s)
		return len(follow) == 2
	}); err != nil {
		t.Fatalf("follow-ups %+v, want the chart and the offer", follow)
	}
	if m, _ := srv.Original(s); m.Content != "土曜は晴れです。" {
		t.Errorf("answer %q", m.Content)
	}
	if a := follow[0].Attachments; len(a) != 1 || a[0].Filename != "forecast.png" || string(a[0].Data) != string(chart.Data) {
		t.Errorf("chart follow-up attachments %+v", a)
	}
	if bs := follow[1].Buttons(); follow[1].Content != offer.Preview || len(bs) != 2 || bs[0].Label != "覚える" || bs[1].Label != "覚えない" {
		t.Errorf("offer follow-up %q with buttons %+v", follow[1].Content, bs)
	}
	seenByTheAskerAlone(t, srv, group, follow)
}
