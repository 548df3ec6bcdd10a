package main

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/bot"
	"github.com/yorozu-bot/yorozu/commands"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// TestProfileKeptUsedShownForgotten: a member asks yorozu to remember a
// fact about them; a later turn of theirs (and not another member's) has
// it in the model's context; /profile show lists it and /profile forget
// deletes it; bad facts are refused with the reason and nothing is kept.
func TestProfileKeptUsedShownForgotten(t *testing.T) {
	h := start(t, nil)
	h.handle(func(api.ChatRequest) ollamatest.Reply { return ollamatest.Text("カレーはいかがですか。") })

	h.mention(aliceID, "覚えておいて：私はエビアレルギー")
	h.waitReply(t, 1, func(s string) bool { return strings.HasPrefix(s, "覚えました：私はエビアレルギー") })
	h.mention(aliceID, "覚えておいて：田中さんは猫アレルギー")
	h.waitReply(t, 2, func(s string) bool { return strings.Contains(s, "ほかの人のことは覚えられません") })
	h.mention(aliceID, "覚えておいて："+strings.Repeat("長", 5000))
	h.waitReply(t, 3, func(s string) bool { return strings.Contains(s, "長すぎて覚えられません（5000 文字") })
	if n := len(h.turns()); n != 0 {
		t.Errorf("keeping a fact made %d model calls, want none", n)
	}
	h.waitCount(t, "SELECT count(*) FROM member_facts", 1)

	h.mention(aliceID, "今夜の夕飯なにがいい？")
	h.waitReply(t, 4, equals("カレーはいかがですか。"))
	h.mention(bobID, "今夜の夕飯なにがいい？")
	h.waitReply(t, 5, equals("カレーはいかがですか。"))
	read := func(req api.ChatRequest) string {
		var all []string
		for _, m := range req.Messages {
			all = append(all, m.Content)
		}
		return strings.Join(all, "\n")
	}
	turns := h.turns()
	if len(turns) != 2 {
		t.Fatalf("%d model calls, want the two dinner questions", len(turns))
	}
	alices, bobs := read(turns[0]), read(turns[1])
	if !strings.Contains(alices, "私はエビアレルギー") {
		t.Errorf("alice's next turn lacks her fact; the model read:\n%s", alices)
	}
	if bobs == "" || strings.Contains(bobs, "エビアレルギー") {
		t.Errorf("bob's turn should not have alice's fact; the model read:\n%s", bobs)
	}

	alice := member(aliceID, 0)
	show := h.slash(t, alice, "profile", "show")
	m := regexp.MustCompile(`#(\d+) 私はエビアレルギー`).FindStringSubmatch(show)
	if m == nil {
		t.Fatalf("/profile show = %q", show)
	}
	if got := h.slash(t, member(bobID, 0), "profile", "show"); strings.Contains(got, "#") {
		t.Errorf("bob's /profile show has alice's fact: %q", got)
	}
	long := &discordgo.ApplicationCommandInteractionDataOption{Name: "fact", Type: discordgo.ApplicationCommandOptionString, Value: strings.Repeat("あ", 5000)}
	if got := h.slash(t, alice, "profile", "add", long); !strings.Contains(got, "200 文字までです") {
		t.Errorf("/profile add of 5,000 characters = %q", got)
	}
	id, _ := strconv.ParseInt(m[1], 10, 64)
	if got := h.slash(t, member(bobID, 0), "profile", "forget", idOpt(id)); !strings.Contains(got, "ありません") {
		t.Errorf("bob forgetting alice's fact = %q", got)
	}
	if got := h.slash(t, alice, "profile", "forget", idOpt(id)); got != "#"+m[1]+" を忘れました。" {
		t.Errorf("/profile forget = %q", got)
	}
	if got := h.slash(t, alice, "profile", "show"); !strings.HasPrefix(got, "ここではまだ何も覚えていません") {
		t.Errorf("/profile show after forgetting = %q", got)
	}
	h.waitCount(t, "SELECT count(*) FROM member_facts", 0)

	var registered bool
	for _, c := range h.discord.Commands() {
		if c.Name == "profile" && c.NameLocalizations != nil && (*c.NameLocalizations)[discordgo.Japanese] == "プロフィール" {
			registered = true
		}
	}
	if !registered {
		t.Error("/profile (プロフィール) is not registered")
	}
}

// pressAnswer presses customID on message msgID as user and returns the
// response.
func (h *harness) pressAnswer(t *testing.T, msgID, customID, user string) discordgo.InteractionResponse {
	t.Helper()
	return h.response(t, h.discord.PressButton(channelID, msgID, customID, &discordgo.User{ID: user}, 0).ID)
}

// TestProfileOfferNeedsConsent: the model offers to keep a fact the member
// mentioned; nothing is kept until that member presses 覚える; another
// member's press is refused; a second press does nothing more.
func TestProfileOfferNeedsConsent(t *testing.T) {
	h := start(t, nil)
	h.script(
		ollamatest.ToolCalls(ollamatest.Call("offer_profile_fact", map[string]any{"fact": "私はエビアレルギー"})),
		ollamatest.Text("エビ抜きのカレーはいかがですか。"),
	)
	h.mention(aliceID, "エビアレルギーなんだけど夕飯なにがいい？")
	offer := h.waitReply(t, 2, func(s string) bool { return strings.Contains(s, "> 私はエビアレルギー") })
	buttons := offer.Buttons()
	if len(buttons) != 2 || buttons[0].Label != "覚える" || buttons[1].Label != "覚えない" {
		t.Fatalf("offer buttons = %+v", buttons)
	}
	h.waitCount(t, "SELECT count(*) FROM member_facts", 0)

	r := h.pressAnswer(t, offer.ID, buttons[0].CustomID, bobID)
	if r.Data == nil || r.Data.Flags&discordgo.MessageFlagsEphemeral == 0 || !strings.Contains(r.Data.Content, "頼んだ本人だけ") {
		t.Errorf("bob's press = %+v, want an ephemeral refusal", r.Data)
	}
	h.waitCount(t, "SELECT count(*) FROM member_facts", 0)

	r = h.pressAnswer(t, offer.ID, buttons[0].CustomID, aliceID)
	if r.Type != discordgo.InteractionResponseUpdateMessage || r.Data == nil || !strings.Contains(r.Data.Content, "✅ 覚えました") {
		t.Errorf("alice's press = type %d %+v, want the offer updated", r.Type, r.Data)
	}
	h.waitCount(t, "SELECT count(*) FROM member_facts WHERE user_id = '"+aliceID+"' AND content = '私はエビアレルギー'", 1)
	if got := h.slash(t, member(aliceID, 0), "profile", "show"); !strings.Contains(got, "私はエビアレルギー") {
		t.Errorf("/profile show = %q", got)
	}
}

// TestUserInstall: commands are registered for a server install, and
// /profile, /remind, /summary, 「よろずに聞く」 and 「これをリマインド」 also
// for a user install (integration types guild and user; contexts server,
// bot DM and group DM); in a group DM yorozu is not in, /profile works and
// a command that needs yorozu there says so.
func TestUserInstall(t *testing.T) {
	h := start(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if err := h.discord.WaitFor(ctx, func() bool { return len(h.discord.Commands()) > 0 }); err != nil {
		t.Fatal("no commands registered")
	}
	anywhere := 0
	for _, c := range h.discord.Commands() {
		types, contexts := "nil", "nil"
		if c.IntegrationTypes != nil {
			types = fmt.Sprint(*c.IntegrationTypes)
		}
		if c.Contexts != nil {
			contexts = fmt.Sprint(*c.Contexts)
		}
		wantTypes, wantContexts := "[0]", "[0 1]"
		switch c.Name {
		case "profile", "remind", "summary", bot.AskCommandName, commands.RemindThisName:
			wantTypes, wantContexts = "[0 1]", "[0 1 2]"
			anywhere++
		}
		if types != wantTypes || contexts != wantContexts {
			t.Errorf("/%s registered with integration_types %s and contexts %s, want %s and %s", c.Name, types, contexts, wantTypes, wantContexts)
		}
	}
	if anywhere != 5 {
		t.Errorf("%d commands registered for a user install, want 5", anywhere)
	}

	const groupDM = "700000000000000001"
	inGroup := func(name, sub string, opts ...*discordgo.ApplicationCommandInteractionDataOption) string {
		return h.aliceInGroup(t, groupDM, name, sub, opts...)
	}
	if got := inGroup("profile", "add", &discordgo.ApplicationCommandInteractionDataOption{Name: "fact", Type: discordgo.ApplicationCommandOptionString, Value: "私は猫派"}); !strings.HasPrefix(got, "覚えました") {
		t.Errorf("/profile add in a group DM = %q", got)
	}
	h.waitCount(t, "SELECT count(*) FROM member_facts WHERE space = 'dm:"+aliceID+"'", 1)
	if got := inGroup("memory", ""); got != commands.NotHereReply {
		t.Errorf("/memory in a group DM yorozu is not in = %q, want it to say so", got)
	}
}
