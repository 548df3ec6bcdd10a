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

// Where yorozu is installed to a user's account only: a group DM it is not
// in. The fake answers every call yorozu makes on such a channel with 403
// Missing Access, as Discord does; what yorozu says there goes through the
// interactions alone.

// groupDM is a group DM yorozu is not a member of.
const groupDM = "700000000000000002"

// shown waits until interaction id shows a message (its response, or the
// deferred response edited) and returns it.
func (h *harness) shown(t *testing.T, id string) discordtest.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var m discordtest.Message
	if err := h.discord.WaitFor(ctx, func() bool {
		var ok bool
		m, ok = h.discord.Original(id)
		return ok && m.Content != ""
	}); err != nil {
		t.Fatalf("interaction %s shows nothing; responses %+v", id, h.discord.InteractionResponses())
	}
	return m
}

// readBackButtons are the custom ids of 登録 and やめる under a read-back.
func readBackButtons(t *testing.T, m discordtest.Message) (keep, drop string) {
	t.Helper()
	for _, b := range m.Buttons() {
		switch b.Label {
		case "登録":
			keep = b.CustomID
		case "やめる":
			drop = b.CustomID
		}
	}
	if keep == "" || drop == "" {
		t.Fatalf("the read-back %q has no 登録 and やめる: %+v", m.Content, m.Buttons())
	}
	return keep, drop
}

// askInGroup opens 「よろずに聞く」 on message target of the group DM as
// user, checks that its modal opens, submits question and returns the
// submission's interaction id.
func (h *harness) askInGroup(t *testing.T, target string, user *discordgo.User, question string) string {
	t.Helper()
	i := h.discord.UseMessageCommand(groupDM, bot.AskCommandName, target, user, 0)
	r := h.response(t, i.ID)
	if r.Type != discordgo.InteractionResponseModal || r.Data == nil {
		t.Fatalf("「よろずに聞く」 in a group DM answered type %d %+v, want its modal", r.Type, r.Data)
	}
	return h.discord.SubmitModal(groupDM, r.Data.CustomID, map[string]string{"question": question}, user, 0).ID
}

// aliceInGroup runs command name (subcommand sub, if any, with opts) as
// Alice in the group DM channel, yorozu installed to her account only, and
// returns what she is shown.
func (h *harness) aliceInGroup(t *testing.T, channel, name, sub string, opts ...*discordgo.ApplicationCommandInteractionDataOption) string {
	t.Helper()
	data := discordgo.ApplicationCommandInteractionData{Name: name}
	if sub != "" {
		data.Options = []*discordgo.ApplicationCommandInteractionDataOption{{Name: sub, Type: discordgo.ApplicationCommandOptionSubCommand, Options: opts}}
	}
	return h.command(t, &discordgo.Interaction{ChannelID: channel, User: &discordgo.User{ID: aliceID},
		Context:                      discordgo.InteractionContextPrivateChannel,
		AuthorizingIntegrationOwners: map[discordgo.ApplicationIntegrationType]string{discordgo.ApplicationIntegrationUserInstall: aliceID},
		Data:                         data})
}

// noCallsOn fails when yorozu called Discord on channel (a group DM it is
// not in): a post there, or a read, would be refused.
func (h *harness) noCallsOn(t *testing.T, channel string) {
	t.Helper()
	for _, c := range h.discord.Calls() {
		if strings.HasPrefix(c.Path, "/channels/"+channel) {
			t.Errorf("yorozu called %s %s (%d) in a group DM it is not in", c.Method, c.Path, c.Status)
		}
	}
}

// TestAskFromAGroupDM: 「よろずに聞く」 in a group DM yorozu is not in opens
// its modal; the question is answered about the chosen message (and the
// message it replied to, as Discord resolved it) through the interaction
// alone, only the asker seeing it, and the turn is kept in the asker's
// own DM space. An empty question is refused and nothing is asked.
func TestAskFromAGroupDM(t *testing.T) {
	h := start(t, nil)
	h.discord.AddGroupDM(groupDM)
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
	bob := &discordgo.User{ID: bobID, Username: "bob"}
	parent := h.discord.PostInGroupDM(&discordgo.Message{ChannelID: groupDM, Author: bob, Content: "土曜のBBQ、場所どこにする？"})
	target := h.discord.PostInGroupDM(&discordgo.Message{ChannelID: groupDM, Author: bob, Content: "駅前の広場はどう？",
		MessageReference: &discordgo.MessageReference{MessageID: parent.ID, ChannelID: groupDM}})
	alice := &discordgo.User{ID: aliceID, Username: "alice"}
	if got := h.shown(t, h.askInGroup(t, target.ID, alice, "  ")); !strings.Contains(got.Content, "質問が空です") {
		t.Errorf("an empty question = %q", got.Content)
	}
	if n := len(h.turns()); n != 0 {
		t.Fatalf("an empty question made %d model calls", n)
	}

	// The answer is streamed into the deferred response: wait for its
	// final text.
	s := h.askInGroup(t, target.ID, alice, "これってどこのこと？")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var answer discordtest.Message
	if err := h.discord.WaitFor(ctx, func() bool {
		answer, _ = h.discord.Original(s)
		return answer.Content == "駅前の広場でBBQをする提案です。"
	}); err != nil {
		t.Fatalf("the answer is not the response: %+v (calls %+v)", answer, h.discord.Calls())
	}
	if answer.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Errorf("the answer in a group DM is seen by all (flags %d), want the asker only", answer.Flags)
	}
	h.noCallsOn(t, groupDM)
	mu.Lock()
	if len(read) != 1 {
		t.Fatalf("%d model calls, want 1", len(read))
	}
	for _, want := range []string{"これってどこのこと？", "駅前の広場はどう？", "土曜のBBQ、場所どこにする？"} {
		if !strings.Contains(read[0], want) {
			t.Errorf("the model did not read %q:\n%s", want, read[0])
		}
	}
	mu.Unlock()
	h.waitCount(t, "SELECT count(*) FROM messages m JOIN sessions s ON s.id = m.session_id WHERE s.space = 'dm:"+aliceID+"' AND m.content = 'これってどこのこと？'", 1)
}

// TestProfileOfferFromAGroupDM: a fact the model offers to keep while
// answering 「よろずに聞く」 in a group DM yorozu is not in follows the
// answer, ephemeral, with 覚える and 覚えない; the asker's press keeps it,
// and nothing is called on the group DM.
func TestProfileOfferFromAGroupDM(t *testing.T) {
	h := start(t, nil)
	h.discord.AddGroupDM(groupDM)
	h.script(
		ollamatest.ToolCalls(ollamatest.Call("offer_profile_fact", map[string]any{"fact": "私はエビアレルギー"})),
		ollamatest.Text("海鮮なら、エビのない店にしましょう。"),
	)
	bob := &discordgo.User{ID: bobID, Username: "bob"}
	alice := &discordgo.User{ID: aliceID, Username: "alice"}
	target := h.discord.PostInGroupDM(&discordgo.Message{ChannelID: groupDM, Author: bob, Content: "夕飯は海鮮どう？"})
	s := h.askInGroup(t, target.ID, alice, "私エビアレルギーなんだけど、どう？")

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var offer discordtest.Message
	if err := h.discord.WaitFor(ctx, func() bool {
		for _, m := range h.discord.Followups(s) {
			if strings.Contains(m.Content, "> 私はエビアレルギー") {
				offer = m
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("no offer followed the answer: %+v", h.discord.Followups(s))
	}
	buttons := offer.Buttons()
	if offer.Flags&discordgo.MessageFlagsEphemeral == 0 || len(buttons) != 2 || buttons[0].Label != "覚える" || buttons[1].Label != "覚えない" {
		t.Fatalf("offer %+v with buttons %+v, want ephemeral with 覚える and 覚えない", offer, buttons)
	}
	h.waitCount(t, "SELECT count(*) FROM member_facts", 0)
	pressed := h.response(t, h.discord.PressButton(groupDM, offer.ID, buttons[0].CustomID, alice, 0).ID)
	if pressed.Data == nil || !strings.Contains(pressed.Data.Content, "✅ 覚えました") {
		t.Errorf("alice's press = type %d %+v, want the offer updated", pressed.Type, pressed.Data)
	}
	h.waitCount(t, "SELECT count(*) FROM member_facts WHERE user_id = '"+aliceID+"' AND content = '私はエビアレルギー'", 1)
	h.noCallsOn(t, groupDM)
}

// TestRemindThisFromAGroupDM: 「これをリマインド」 in a group DM yorozu is
// not in reads the time back, saying the reminder goes to the user's DM;
// nothing is kept before 登録, a press by someone else is refused, and on
// 登録 the reminder is kept, then delivered in the user's DM with yorozu
// with a link to the message. yorozu never calls Discord on the group DM.
func TestRemindThisFromAGroupDM(t *testing.T) {
	c := useClock(t, time.Date(2026, 12, 2, 8, 0, 0, 0, tokyo))
	h := start(t, nil)
	h.discord.AddGroupDM(groupDM)
	bob := &discordgo.User{ID: bobID, Username: "bob"}
	alice := &discordgo.User{ID: aliceID, Username: "alice"}
	target := h.discord.PostInGroupDM(&discordgo.Message{ChannelID: groupDM, Author: bob, Content: "来週の会費は3000円です"})

	i := h.discord.UseMessageCommand(groupDM, commands.RemindThisName, target.ID, alice, 0)
	r := h.response(t, i.ID)
	if r.Type != discordgo.InteractionResponseModal || r.Data == nil {
		t.Fatalf("「これをリマインド」 in a group DM answered type %d %+v, want its form", r.Type, r.Data)
	}
	s := h.discord.SubmitModal(groupDM, r.Data.CustomID, map[string]string{"when": "明日の9時", "what": "会費を払う"}, alice, 0)
	readBack := h.shown(t, s.ID)
	due := time.Date(2026, 12, 3, 9, 0, 0, 0, tokyo)
	for _, want := range []string{fmt.Sprintf("<t:%d:F>", due.Unix()), "まだ登録していません", "DM にお届けします"} {
		if !strings.Contains(readBack.Content, want) {
			t.Errorf("the read-back %q does not say %q", readBack.Content, want)
		}
	}
	keep, _ := readBackButtons(t, readBack)
	h.waitCount(t, "SELECT count(*) FROM reminders", 0)

	other := h.discord.PressButton(groupDM, readBack.ID, keep, bob, 0)
	if got := h.shown(t, other.ID); !strings.Contains(got.Content, "本人だけ") {
		t.Errorf("bob's press = %q, want it refused", got.Content)
	}
	h.waitCount(t, "SELECT count(*) FROM reminders", 0)

	h.discord.PressButton(groupDM, readBack.ID, keep, alice, 0)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := h.discord.WaitFor(ctx, func() bool {
		m, _ := h.discord.Original(s.ID)
		return strings.Contains(m.Content, "を登録しました")
	}); err != nil {
		m, _ := h.discord.Original(s.ID)
		t.Fatalf("登録 did not keep it: the read-back says %q", m.Content)
	}
	dm, ok := h.discord.DMChannel(aliceID)
	if !ok {
		t.Fatal("yorozu opened no DM with the user")
	}
	h.waitCount(t, "SELECT count(*) FROM reminders WHERE channel_id = '"+dm+"' AND guild_id = ''", 1)
	if m, _ := h.discord.Original(s.ID); len(m.Buttons()) != 0 {
		t.Errorf("the kept read-back still has buttons: %+v", m.Buttons())
	}

	h.jump(t, c, due)
	link := "https://discord.com/channels/@me/" + groupDM + "/" + target.ID
	if err := h.discord.WaitFor(ctx, func() bool {
		for _, m := range h.discord.BotMessages(dm) {
			if strings.Contains(m.Content, "会費を払う") && strings.Contains(m.Content, link) {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("the reminder was not delivered in the DM with the link %s: %+v", link, h.discord.BotMessages(dm))
	}
	h.noCallsOn(t, groupDM)
}

// TestCommandsInAGroupDM: /remind add in a group DM yorozu is not in keeps
// the reminder for the user's DM and says so; /remind list shows it;
// /summary says why the talk there cannot be summarised, without a model
// call or a read of the channel.
func TestCommandsInAGroupDM(t *testing.T) {
	h := start(t, nil)
	h.discord.AddGroupDM(groupDM)
	inGroup := func(name, sub string, opts ...*discordgo.ApplicationCommandInteractionDataOption) string {
		return h.aliceInGroup(t, groupDM, name, sub, opts...)
	}
	got := inGroup("remind", "add", stringOpt("when", "明日の9時"), stringOpt("what", "ゴミ出し"))
	if !strings.Contains(got, "を登録しました") || !strings.Contains(got, "DM にお届けします") {
		t.Errorf("/remind add in a group DM = %q, want it kept and delivered to the DM", got)
	}
	dm, ok := h.discord.DMChannel(aliceID)
	if !ok {
		t.Fatal("yorozu opened no DM with the user")
	}
	h.waitCount(t, "SELECT count(*) FROM reminders WHERE channel_id = '"+dm+"' AND content LIKE 'ゴミ出し https://discord.com/channels/@me/"+groupDM+"'", 1)
	if got := inGroup("remind", "list"); !strings.Contains(got, "ゴミ出し") {
		t.Errorf("/remind list in a group DM = %q", got)
	}
	if got := inGroup("summary", ""); !strings.Contains(got, "要約できません") {
		t.Errorf("/summary in a group DM = %q, want why it cannot", got)
	}
	if n := len(h.turns()); n != 0 {
		t.Errorf("%d model calls", n)
	}
	h.noCallsOn(t, groupDM)
}
