package bot

import (
	"context"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm"
)

// fakeModes is the channel modes store.
type fakeModes struct{ modes []db.ChannelMode }

func (f fakeModes) ChannelModes(context.Context) ([]db.ChannelMode, error) { return f.modes, nil }

func withModes(modes map[string]string) func(*Options) {
	var ms []db.ChannelMode
	for ch, m := range modes {
		ms = append(ms, db.ChannelMode{GuildID: guildID, ChannelID: ch, Mode: m})
	}
	return func(o *Options) { o.Modes = fakeModes{ms} }
}

// post sends a guild message from user without mentioning the bot.
func (h *harness) post(channel, user, text string, mentioned ...*discordgo.User) *discordgo.Message {
	return h.srv.SendMessage(&discordgo.Message{
		ChannelID: channel, GuildID: guildID,
		Author:  &discordgo.User{ID: user, Username: "user" + user},
		Content: text, Mentions: mentioned,
	})
}

// echo answers with the question.
func echo(_ context.Context, req chat.Request, emit func(llm.Event) error) error {
	if err := emit(llm.Text{Text: "答え: " + req.Text}); err != nil {
		return err
	}
	return emit(llm.Done{})
}

func TestFreeChannelAnswersWithoutMention(t *testing.T) {
	t.Parallel()
	const free, other = "501", "502"
	h := start(t, withModes(map[string]string{free: db.ModeFree}))
	h.resp.script = echo
	h.post(free, "7", "<@8> ランチどうする？", &discordgo.User{ID: "8", Username: "user8"}) // for someone else
	h.post(free, "7", "// ひとりごと")                                                   // people among themselves
	h.post(other, "7", "ここは mention のまま")                                           // another channel
	h.post(free, "7", "東京の天気は？")
	h.waitText(free, "答え: 東京の天気は？")
	// A mention of the bot with someone else is for the bot.
	h.post(free, "7", "<@"+h.srv.BotID()+"> と <@8> に質問", &discordgo.User{ID: h.srv.BotID()}, &discordgo.User{ID: "8", Username: "user8"})
	h.waitText(free, "答え: 東京の天気は？", "答え: と @user8 に質問")
	if got := h.resp.requests(); len(got) != 2 {
		t.Errorf("%d turns, want 2: %+v", len(got), got)
	}
	if ms := h.srv.BotMessages(other); len(ms) != 0 {
		t.Errorf("a mention channel answered a plain message: %+v", ms)
	}
	// A thread of a free channel is free too.
	h.srv.AddThread("503", free)
	h.srv.Dispatch("THREAD_CREATE", &discordgo.Channel{ID: "503", GuildID: guildID, ParentID: free, Type: discordgo.ChannelTypeGuildPublicThread})
	h.post("503", "7", "スレッドでも")
	h.waitText("503", "答え: スレッドでも")
	h.bot.SetChannelMode(other, db.ModeFree) // as /channel mode does
	h.post(other, "7", "いまは free")
	h.waitText(other, "答え: いまは free")
}

func TestThreadChannelOpensAThread(t *testing.T) {
	t.Parallel()
	const ch = "510"
	h := start(t, withModes(map[string]string{ch: db.ModeThread}))
	h.resp.script = echo
	h.srv.AddChannel(ch)
	h.srv.PutChannelInGuild(ch, guildID)
	h.post(ch, "7", "独り言は無視") // no mention in the channel itself: not answered
	long := strings.Repeat("長", 120)
	q := h.mention(ch, "7", long+"\n二行目")
	h.waitText(q.ID, "答え: "+long+"\n二行目")
	th, ok := h.srv.Thread(q.ID)
	if !ok || th.ParentID != ch || th.Name != strings.Repeat("長", 99)+"…" {
		t.Fatalf("thread = %+v, %v; want one of %s named from the question's first line (100 characters)", th, ok, ch)
	}
	if ms := h.srv.BotMessages(ch); len(ms) != 0 {
		t.Errorf("answered in the channel too: %+v", ms)
	}
	if ms := h.srv.BotMessages(q.ID); ms[0].Reference != nil && ms[0].Reference.MessageID != "" {
		t.Errorf("the thread's answer replies to the question in another channel: %+v", ms[0].Reference)
	}
	// In the thread, a follow-up without a mention is answered there.
	h.post(q.ID, "7", "続きの質問")
	h.waitText(q.ID, "答え: "+long+"\n二行目", "答え: 続きの質問")
	reqs := h.resp.requests()
	if last := reqs[len(reqs)-1]; last.ParentID != ch || last.Session != "discord:channel:"+q.ID {
		t.Errorf("follow-up = parent %q session %q, want the thread's conversation under %s", last.ParentID, last.Session, ch)
	}
	if n := len(reqs); n != 2 {
		t.Errorf("%d turns, want 2", n)
	}
}

// A thread Discord refuses to start is answered in the channel, and the log
// says what Discord answered rather than guessing a missing permission.
func TestThreadRefusedAnswersInTheChannel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		ch      string
		prepare func(h *harness, ch, messageID string)
		want    string
	}{
		{"no Create Public Threads", "520", func(h *harness, ch, _ string) {
			h.srv.DenyBot(ch, discordgo.PermissionCreatePublicThreads)
		}, `status=403 code=50013 discord_message="Missing Permissions"`},
		{"a thread already started from the message", "521", func(h *harness, ch, messageID string) {
			h.srv.AddThread(messageID, ch)
		}, `status=400 code=160004 discord_message="A thread has already been created for this message"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := start(t, withModes(map[string]string{tc.ch: db.ModeThread}))
			h.srv.AddChannel(tc.ch)
			id := h.srv.NewID()
			tc.prepare(h, tc.ch, id)
			h.srv.SendMessage(&discordgo.Message{ID: id, ChannelID: tc.ch, GuildID: guildID,
				Author:  &discordgo.User{ID: "7", Username: "user7"},
				Content: "<@" + h.srv.BotID() + "> 質問", Mentions: []*discordgo.User{{ID: h.srv.BotID()}}})
			h.waitText(tc.ch, "了解です。")
			logs := h.logs.String()
			if !strings.Contains(logs, "thread not started") || !strings.Contains(logs, tc.want) {
				t.Errorf("log does not say Discord's answer %s:\n%s", tc.want, logs)
			}
			if strings.Contains(logs, "Create Public Threads missing?") {
				t.Errorf("log guesses a missing permission:\n%s", logs)
			}
		})
	}
}

func TestThreadName(t *testing.T) {
	for in, want := range map[string]string{
		"  東京の   天気\n詳しく":        "東京の 天気",
		"":                       defaultThreadName,
		strings.Repeat("a", 100): strings.Repeat("a", 100),
	} {
		if got := threadName(in); got != want {
			t.Errorf("threadName(%q) = %q, want %q", in, got, want)
		}
	}
}
