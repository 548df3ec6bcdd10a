package bot

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/commands"
)

// dmChanID is a DM channel of the button tests: the fake puts it in no
// server.
const dmChanID = "501"

// startButtons starts a bot that answers presses with bs, acknowledging
// a press that takes longer than deferAfter (0: the default).
func startButtons(t *testing.T, deferAfter time.Duration, bs ...commands.Buttons) *harness {
	t.Helper()
	h, _ := startFaulty(t, func(srv *discordtest.Server) {
		srv.AddChannel(chanID)
		srv.PutChannelInGuild(chanID, guildID)
		srv.AddChannel(dmChanID)
	}, nil)
	for _, b := range bs {
		h.bot.AddButtons(b)
	}
	h.bot.mu.Lock()
	h.bot.deferAfter = deferAfter
	h.bot.mu.Unlock()
	return h
}

// postButtons posts, as the bot, a message carrying a button for each
// custom id, and returns its id.
func (h *harness) postButtons(channel string, customIDs ...string) string {
	h.t.Helper()
	var row []discordgo.MessageComponent
	for _, id := range customIDs {
		row = append(row, discordgo.Button{Label: "完了", Style: discordgo.SuccessButton, CustomID: id})
	}
	m, err := h.bot.Session().ChannelMessageSendComplex(channel, &discordgo.MessageSend{
		Content:    "⏰ 牛乳を買う",
		Components: []discordgo.MessageComponent{discordgo.ActionsRow{Components: row}},
	}, discordgo.WithContext(h.ctx))
	if err != nil {
		h.t.Fatalf("post message with buttons: %v", err)
	}
	return m.ID
}

// message is the bot's message id in channel as the fake has it now.
func (h *harness) message(channel, id string) discordtest.Message {
	h.t.Helper()
	for _, m := range h.srv.Messages(channel) {
		if m.ID == id {
			return m
		}
	}
	h.t.Fatalf("no message %s in %s", id, channel)
	return discordtest.Message{}
}

// answer waits for the callback of interaction i and returns it.
func (h *harness) answer(i *discordgo.Interaction) discordgo.InteractionResponse {
	h.t.Helper()
	var got *discordgo.InteractionResponse
	err := h.srv.WaitFor(h.ctx, func() bool {
		for _, r := range h.srv.InteractionResponses() {
			if r.InteractionID == i.ID {
				got = &r.Response
				return true
			}
		}
		return false
	})
	if err != nil {
		h.t.Fatalf("press %s not answered: %v", i.ID, err)
	}
	return *got
}

// followups waits for n follow-ups of interaction i and returns them.
func (h *harness) followups(i *discordgo.Interaction, n int) []discordtest.Message {
	h.t.Helper()
	var got []discordtest.Message
	err := h.srv.WaitFor(h.ctx, func() bool {
		got = h.srv.Followups(i.ID)
		return len(got) >= n
	})
	if err != nil {
		h.t.Fatalf("follow-ups of %s: %v; have %+v", i.ID, err, got)
	}
	return got
}

// recording is a Buttons that sends every press it gets to a channel and
// answers with reply.
func recording(prefix string, reply commands.PressReply) (commands.Buttons, <-chan commands.Press) {
	got := make(chan commands.Press, 10)
	return commands.Buttons{Prefix: prefix, Press: func(_ context.Context, p commands.Press) commands.PressReply {
		got <- p
		return reply
	}}, got
}

// A press goes to the Buttons with the longest prefix of its custom id,
// with who pressed it, where, on which message, and what they may do there
// as Discord computed it (everything in a DM).
func TestPressRoutedByPrefix(t *testing.T) {
	t.Parallel()
	wide, wideGot := recording("rem:", commands.PressReply{Text: "wide"})
	narrow, narrowGot := recording("rem:done:", commands.PressReply{Text: "narrow"})
	h := startButtons(t, 0, wide, narrow)
	user := &discordgo.User{ID: "42", Username: "alice"}

	tests := []struct {
		name     string
		channel  string
		customID string
		perms    int64
		got      <-chan commands.Press
		want     commands.Press
	}{
		{"a member", chanID, "rem:done:7", discordgo.PermissionSendMessages, narrowGot,
			commands.Press{CustomID: "rem:done:7", UserID: "42", GuildID: guildID, ChannelID: chanID}},
		{"Manage Messages", chanID, "rem:snooze:7", discordgo.PermissionManageMessages, wideGot,
			commands.Press{CustomID: "rem:snooze:7", UserID: "42", GuildID: guildID, ChannelID: chanID, Perms: commands.ManageMessages}},
		{"an administrator", chanID, "rem:done:8", discordgo.PermissionAdministrator, narrowGot,
			commands.Press{CustomID: "rem:done:8", UserID: "42", GuildID: guildID, ChannelID: chanID, Perms: commands.All}},
		{"a DM", dmChanID, "rem:done:9", 0, narrowGot,
			commands.Press{CustomID: "rem:done:9", UserID: "42", ChannelID: dmChanID, Perms: commands.All}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msg := h.postButtons(tc.channel, tc.customID)
			i := h.srv.PressButton(tc.channel, msg, tc.customID, user, tc.perms)
			tc.want.MessageID, tc.want.Content = msg, "⏰ 牛乳を買う"
			select {
			case p := <-tc.got:
				if p != tc.want {
					t.Errorf("press =\n%+v\nwant\n%+v", p, tc.want)
				}
			case <-h.ctx.Done():
				t.Fatal("press not routed")
			}
			h.answer(i)
		})
	}
}

// Update replaces the pressed message and takes its buttons away at once
// (one type 7 answer), Text reaches the presser alone; nobody is pinged.
func TestPressUpdateRemovesButtons(t *testing.T) {
	t.Parallel()
	bs, _ := recording("rem:", commands.PressReply{Update: "✅ 完了 <@42>", Text: "完了にしました。"})
	h := startButtons(t, 0, bs)
	msg := h.postButtons(chanID, "rem:done:7", "rem:snooze:7")
	if got := h.message(chanID, msg).Buttons(); len(got) != 2 {
		t.Fatalf("posted message has buttons %+v, want 2", got)
	}

	i := h.srv.PressButton(chanID, msg, "rem:done:7", &discordgo.User{ID: "42"}, 0)
	r := h.answer(i)
	if r.Type != discordgo.InteractionResponseUpdateMessage || r.Data == nil || r.Data.Content != "✅ 完了 <@42>" ||
		r.Data.AllowedMentions == nil || len(r.Data.AllowedMentions.Parse) != 0 {
		t.Errorf("answer = type %d %+v, want an update mentioning nobody", r.Type, r.Data)
	}
	m := h.message(chanID, msg)
	if m.Content != "✅ 完了 <@42>" || len(m.Components) != 0 {
		t.Errorf("pressed message = %q with %d components, want the update without buttons", m.Content, len(m.Components))
	}
	got, err := h.bot.Session().ChannelMessage(chanID, msg, discordgo.WithContext(h.ctx))
	if err != nil || got.Content != "✅ 完了 <@42>" || len(got.Components) != 0 {
		t.Errorf("GET pressed message = %+v, %v", got, err)
	}
	f := h.followups(i, 1)
	if f[0].Content != "完了にしました。" || f[0].Flags&discordgo.MessageFlagsEphemeral == 0 ||
		f[0].AllowedMentions == nil || len(f[0].AllowedMentions.Parse) != 0 {
		t.Errorf("follow-up = %+v, want the text, ephemeral, mentioning nobody", f[0])
	}
	for _, c := range callsTo(h.srv.Calls(), "POST", "/interactions/"+i.ID) {
		if !strings.Contains(string(c.Body), `"components":[]`) {
			t.Errorf("update body %s does not clear the components", c.Body)
		}
	}
}

// A press answered with text only is answered to the presser alone, and
// the message keeps its buttons; one answered with nothing is acknowledged
// and nothing changes; one whose prefix nobody claims is refused, so that
// an old button does not spin.
func TestPressTextOnlyNothingOrUnknown(t *testing.T) {
	t.Parallel()
	text, _ := recording("rem:text:", commands.PressReply{Text: "<@42> @everyone 了解です。"})
	quiet, _ := recording("rem:quiet:", commands.PressReply{})
	h := startButtons(t, 0, text, quiet)

	tests := []struct {
		name     string
		customID string
		wantType discordgo.InteractionResponseType
		wantText string
	}{
		{"text", "rem:text:1", discordgo.InteractionResponseChannelMessageWithSource, "<@42> @everyone 了解です。"},
		{"nothing", "rem:quiet:1", discordgo.InteractionResponseDeferredMessageUpdate, ""},
		{"an unknown prefix", "old:done:1", discordgo.InteractionResponseChannelMessageWithSource, expiredButtonReply},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msg := h.postButtons(chanID, tc.customID)
			i := h.srv.PressButton(chanID, msg, tc.customID, &discordgo.User{ID: "42"}, 0)
			r := h.answer(i)
			if r.Type != tc.wantType {
				t.Fatalf("answer type = %d, want %d", r.Type, tc.wantType)
			}
			if tc.wantText != "" && (r.Data == nil || r.Data.Content != tc.wantText || r.Data.Flags&discordgo.MessageFlagsEphemeral == 0 ||
				r.Data.AllowedMentions == nil || len(r.Data.AllowedMentions.Parse) != 0) {
				t.Errorf("answer = %+v, want %q, ephemeral, mentioning nobody", r.Data, tc.wantText)
			}
			if m := h.message(chanID, msg); m.Content != "⏰ 牛乳を買う" || len(m.Buttons()) != 1 || m.Edits != 0 {
				t.Errorf("pressed message = %+v, want it unchanged", m)
			}
		})
	}
}

// A panicking Press is answered with the generic error, and the next press
// is answered as usual.
func TestPressPanicAnswersError(t *testing.T) {
	t.Parallel()
	ok, _ := recording("ok:", commands.PressReply{Text: "了解です。"})
	h := startButtons(t, 0, ok, commands.Buttons{Prefix: "boom:", Press: func(context.Context, commands.Press) commands.PressReply {
		panic("broken handler")
	}})
	msg := h.postButtons(chanID, "boom:1", "ok:1")
	r := h.answer(h.srv.PressButton(chanID, msg, "boom:1", &discordgo.User{ID: "42"}, 0))
	if r.Type != discordgo.InteractionResponseChannelMessageWithSource || r.Data == nil || r.Data.Content != genericErrorReply ||
		r.Data.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Errorf("answer = type %d %+v, want the ephemeral error notice", r.Type, r.Data)
	}
	r = h.answer(h.srv.PressButton(chanID, msg, "ok:1", &discordgo.User{ID: "42"}, 0))
	if r.Data == nil || r.Data.Content != "了解です。" {
		t.Errorf("next press answered %+v", r.Data)
	}
}

// A Press slower than the deadline is acknowledged with a deferred update
// before it returns; its update then edits the pressed message and its
// text is a follow-up, and a panic after the acknowledgement is one too.
func TestSlowPressDeferred(t *testing.T) {
	t.Parallel()
	// slow returns reply once the fake has its press (whose interaction
	// id comes through pressed) acknowledged: it cannot return before the
	// deadline has passed.
	var h *harness
	pressed := make(chan string, 1)
	slow := func(prefix string, reply commands.PressReply, crash bool) commands.Buttons {
		return commands.Buttons{Prefix: prefix, Press: func(ctx context.Context, p commands.Press) commands.PressReply {
			var id string
			select {
			case id = <-pressed:
			case <-ctx.Done():
				return commands.PressReply{Text: "no interaction id"}
			}
			err := h.srv.WaitFor(ctx, func() bool {
				for _, r := range h.srv.InteractionResponses() {
					if r.InteractionID == id && r.Response.Type == discordgo.InteractionResponseDeferredMessageUpdate {
						return true
					}
				}
				return false
			})
			if err != nil {
				return commands.PressReply{Text: "not deferred: " + err.Error()}
			}
			if crash {
				panic("broken after the deferral")
			}
			return reply
		}}
	}
	h = startButtons(t, 10*time.Millisecond,
		slow("upd:", commands.PressReply{Update: "✅ 完了", Text: "完了にしました。"}, false),
		slow("txt:", commands.PressReply{Text: "了解です。"}, false),
		slow("boom:", commands.PressReply{}, true))

	tests := []struct {
		name       string
		customID   string
		wantUpdate string // the pressed message's content after; "" unchanged
		wantText   string // the ephemeral follow-up
	}{
		{"update and text", "upd:1", "✅ 完了", "完了にしました。"},
		{"text", "txt:1", "", "了解です。"},
		{"a panic", "boom:1", "", genericErrorReply},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msg := h.postButtons(chanID, tc.customID)
			i := h.srv.PressButton(chanID, msg, tc.customID, &discordgo.User{ID: "42"}, 0)
			pressed <- i.ID
			if r := h.answer(i); r.Type != discordgo.InteractionResponseDeferredMessageUpdate {
				t.Fatalf("first answer type = %d, want a deferred update", r.Type)
			}
			f := h.followups(i, 1)
			if f[0].Content != tc.wantText || f[0].Flags&discordgo.MessageFlagsEphemeral == 0 {
				t.Errorf("follow-up = %+v, want %q, ephemeral", f[0], tc.wantText)
			}
			m := h.message(chanID, msg)
			switch {
			case tc.wantUpdate != "" && (m.Content != tc.wantUpdate || len(m.Components) != 0):
				t.Errorf("pressed message = %q with %d components, want %q without buttons", m.Content, len(m.Components), tc.wantUpdate)
			case tc.wantUpdate == "" && (m.Edits != 0 || len(m.Buttons()) != 1):
				t.Errorf("pressed message = %+v, want it unchanged", m)
			}
			if n := len(callsTo(h.srv.Calls(), "POST", "/interactions/"+i.ID)); n != 1 {
				t.Errorf("%d callbacks, want only the deferral", n)
			}
		})
	}
}
