package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// Two servers (A, B) served, a third (C) not, and a DM user who shares A.
const (
	guildA, chanA = guildID, channelID
	guildB, chanB = "300000000000000002", "200000000000000002"
	guildC, chanC = "300000000000000003", "200000000000000003"
	chanDM        = "200000000000000009"
	dmUser        = "400000000000000009"
	adminPassword = "correct horse battery staple"
)

// spaceModel answers each turn by the first word of the user's message: a
// tool call, then (once the tool has answered) the tool's result, so the
// test reads what the tool said in the channel.
func spaceModel(req api.ChatRequest) ollamatest.Reply {
	last := req.Messages[len(req.Messages)-1]
	if last.Role == "tool" {
		return ollamatest.Text("結果: " + last.Content)
	}
	var user string
	for _, m := range req.Messages {
		if m.Role == "user" {
			user = m.Content
		}
	}
	call := func(name string, args map[string]any) ollamatest.Reply {
		return ollamatest.ToolCalls(ollamatest.Call(name, args))
	}
	switch word := strings.Fields(user + " _")[0]; word {
	case "合言葉を書いて":
		return call("write_note", map[string]any{"title": "A の合言葉", "content": "やまかわ", "mode": "create"})
	case "合言葉を書き換えて":
		return call("write_note", map[string]any{"title": "A の合言葉", "content": "まちがい", "mode": "replace"})
	case "合言葉を読んで":
		return call("read_note", map[string]any{"title_or_id": "A の合言葉"})
	case "調べて":
		return call("web_search", map[string]any{"query": "猫の日"})
	case "日記を書いて":
		return call("write_note", map[string]any{"title": "ひみつの日記", "content": "今日は晴れ", "mode": "create"})
	}
	return ollamatest.Text("はい")
}

type spaceHarness struct {
	*harness
	mu    sync.Mutex
	count map[string]int // bot messages seen per channel
}

// say sends text in channel (a DM when guild is empty) and waits for the
// bot's next message there.
func (h *spaceHarness) say(t *testing.T, guild, channel, user, text string) string {
	t.Helper()
	m := &discordgo.Message{ChannelID: channel, GuildID: guild, Content: text,
		Author: &discordgo.User{ID: user, Username: "user" + user[len(user)-1:]}}
	if guild != "" {
		m.Content = "<@" + h.discord.BotID() + "> " + text
		m.Mentions = []*discordgo.User{{ID: h.discord.BotID(), Username: "yorozu", Bot: true}}
	}
	h.mu.Lock()
	h.count[channel]++
	n := h.count[channel]
	h.mu.Unlock()
	h.discord.SendMessage(m)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var got string
	if err := h.discord.WaitFor(ctx, func() bool {
		msgs := h.discord.BotMessages(channel)
		if len(msgs) < n {
			return false
		}
		// Tool status lines are edited into the answer: spaceModel's
		// answers start with 結果 or are はい.
		got = msgs[n-1].Content
		return strings.HasPrefix(got, "結果") || got == "はい"
	}); err != nil {
		t.Fatalf("no answer to %q in %s; stderr:\n%s", text, channel, h.stderr.String())
	}
	return got
}

// prompt is the system text of the turn that answered text.
func (h *spaceHarness) prompt(t *testing.T, text string) string {
	t.Helper()
	for _, r := range h.turns() {
		var b strings.Builder
		asked := false
		for _, m := range r.Messages {
			if m.Role == "system" {
				b.WriteString(m.Content + "\n")
			}
			asked = asked || m.Role == "user" && strings.HasSuffix(m.Content, text)
		}
		if asked {
			return b.String()
		}
	}
	t.Fatalf("no turn asked %q", text)
	return ""
}

// forget sends /forget confirm:True in server A's channel with the given
// permissions and returns the ephemeral answer.
func (h *spaceHarness) forget(t *testing.T, perms int64) string {
	t.Helper()
	before := len(h.discord.InteractionResponses())
	h.discord.SendInteraction(&discordgo.Interaction{
		Type: discordgo.InteractionApplicationCommand, ChannelID: chanA, GuildID: guildA, Token: "tok",
		Member: &discordgo.Member{User: &discordgo.User{ID: "400000000000000001"}, Permissions: perms},
		Data: discordgo.ApplicationCommandInteractionData{Name: "forget", Options: []*discordgo.ApplicationCommandInteractionDataOption{
			{Name: "confirm", Type: discordgo.ApplicationCommandOptionBoolean, Value: true}}},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.discord.WaitFor(ctx, func() bool { return len(h.discord.InteractionResponses()) > before }); err != nil {
		t.Fatal("/forget was not answered")
	}
	r := h.discord.InteractionResponses()[before].Response
	if r.Data == nil || r.Data.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Fatalf("/forget answer is not ephemeral: %+v", r.Data)
	}
	return r.Data.Content
}

func TestSpacesKeepEachCommunitysMemory(t *testing.T) {
	search := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"results":[{"title":"猫の日 - 百科","url":"https://example.com/neko","content":"2月22日は猫の日"}]}`)
	}))
	t.Cleanup(search.Close)
	h := &spaceHarness{count: map[string]int{}, harness: startPrepared(t, map[string]string{
		"DISCORD_GUILDS": guildA + "," + guildB,
		"SEARCH_BACKEND": "searxng",
		"SEARXNG_URL":    search.URL,
		"ADMIN_PASSWORD": adminPassword,
	}, func(d *discordtest.Server) {
		d.SetGuilds(guildA, guildB, guildC)
		for _, c := range []string{chanB, chanC, chanDM} {
			d.AddChannel(c)
		}
		d.AddMember(guildA, dmUser)
	})}
	h.handle(spaceModel)
	const alice, bob = "400000000000000001", "400000000000000002"

	// Server A writes a note and searches; B cannot see either.
	if got := h.say(t, guildA, chanA, alice, "合言葉を書いて"); !strings.Contains(got, "OK: created") {
		t.Fatalf("write in A: %q; turns %+v\nstderr:\n%s", got, h.turns(), h.stderr.String())
	}
	if got := h.say(t, guildA, chanA, alice, "調べて"); !strings.Contains(got, "猫の日") {
		t.Fatalf("search in A: %q", got)
	}
	h.waitCount(t, "SELECT count(*) FROM knowledge_entries WHERE space = 'guild:"+guildA+"'", 1)
	h.say(t, guildA, chanA, alice, "今の話どう思う？")
	inA := h.prompt(t, "今の話どう思う？")
	for _, want := range []string{"A の合言葉", "調べたこと"} {
		if !strings.Contains(inA, want) {
			t.Errorf("A's prompt lacks %q:\n%s", want, inA)
		}
	}
	readInB := h.say(t, guildB, chanB, bob, "合言葉を読んで")
	if !strings.Contains(readInB, "no note page") || strings.Contains(readInB, "やまかわ") {
		t.Errorf("read_note in B = %q; want not found", readInB)
	}
	inB := h.prompt(t, "合言葉を読んで")
	for _, leak := range []string{"A の合言葉", "調べたこと", "蓄積した知識"} {
		if strings.Contains(inB, leak) {
			t.Errorf("B's prompt shows %q:\n%s", leak, inB)
		}
	}

	// The DM user's notes are theirs: in no server's prompt.
	if got := h.say(t, "", chanDM, dmUser, "日記を書いて"); !strings.Contains(got, "OK: created") {
		t.Fatalf("write in the DM: %q", got)
	}
	h.say(t, guildA, chanA, alice, "日記はある？")
	h.say(t, guildB, chanB, bob, "日記はある？")
	for _, p := range []string{h.prompt(t, "日記はある？")} {
		if strings.Contains(p, "ひみつの日記") {
			t.Errorf("a server's prompt shows the DM user's note:\n%s", p)
		}
	}
	for _, r := range h.turns() {
		for _, m := range r.Messages {
			if m.Role == "system" && strings.Contains(m.Content, "ひみつの日記") && !strings.Contains(r.Messages[len(r.Messages)-1].Content, "日記を書いて") {
				t.Errorf("the DM user's note reached another turn: %q", r.Messages[len(r.Messages)-1].Content)
			}
		}
	}

	// Server C is not served, and a DM from someone in no served server
	// goes unanswered; both are logged, C once.
	for range 2 {
		h.discord.SendMessage(&discordgo.Message{ChannelID: chanC, GuildID: guildC, Content: "<@" + h.discord.BotID() + "> こんにちは",
			Author: &discordgo.User{ID: "400000000000000003"}, Mentions: []*discordgo.User{{ID: h.discord.BotID()}}})
	}
	h.discord.SendMessage(&discordgo.Message{ChannelID: chanDM, Content: "こんにちは", Author: &discordgo.User{ID: "400000000000000004"}})
	h.say(t, guildB, chanB, bob, "まだいる？") // a later turn: the ignored ones were handled before it
	if n := len(h.discord.BotMessages(chanC)); n != 0 {
		t.Errorf("the bot answered %d times in a server not in DISCORD_GUILDS", n)
	}
	if n := len(h.discord.BotMessages(chanDM)); n != 1 {
		t.Errorf("%d bot messages in the DM channel; want only the answer to its member", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	waitLog(t, ctx, h.stderr, regexp.MustCompile("ignoring DMs from a user who shares no server"))
	if n := strings.Count(h.stderr.String(), "ignoring a server not in DISCORD_GUILDS"); n != 1 {
		t.Errorf("server C logged %d times; want once", n)
	}

	// Slash commands in server C are refused, to its user alone.
	if got := h.command(t, &discordgo.Interaction{ChannelID: chanC, GuildID: guildC, Member: member("400000000000000003", discordgo.PermissionManageMessages),
		Data: discordgo.ApplicationCommandInteractionData{Name: "memory"}}); !strings.Contains(got, "このサーバーではよろずを使えません") {
		t.Errorf("/memory in a server not in DISCORD_GUILDS = %q", got)
	}

	// /forget needs Manage Messages.
	if got := h.forget(t, 0); got != notAllowedReply {
		t.Errorf("/forget without Manage Messages = %q", got)
	}
	unarchivedA := "SELECT count(*) FROM messages m JOIN sessions s ON s.id = m.session_id WHERE s.space = 'guild:" + guildA + "' AND archived_at IS NULL"
	h.waitCount(t, unarchivedA, 8) // four turns in A, none forgotten
	if got := h.forget(t, discordgo.PermissionManageMessages); !strings.Contains(got, "8 件を忘れました") {
		t.Errorf("/forget with Manage Messages = %q", got)
	}
	h.waitCount(t, unarchivedA, 0)

	// A replaced note keeps its earlier text, and the admin page restores it.
	if got := h.say(t, guildA, chanA, alice, "合言葉を書き換えて"); !strings.Contains(got, "OK: replaced") {
		t.Fatalf("replace: %q", got)
	}
	page, err := db.NotePageByTitle(context.Background(), h.pool, "guild:"+guildA, "A の合言葉")
	if err != nil || page.Content != "まちがい" {
		t.Fatalf("page = %+v, %v", page, err)
	}
	admin := h.adminClient(t)
	var revs []db.NoteRevision
	admin.call(t, "GET", fmt.Sprintf("/api/notes/%d/revisions", page.ID), &revs)
	if len(revs) != 1 || revs[0].Content != "やまかわ" || revs[0].ChangedBy != "user1" {
		t.Fatalf("revisions = %+v", revs)
	}
	var back db.NotePage
	admin.call(t, "POST", fmt.Sprintf("/api/notes/%d/revisions/%d/restore", page.ID, revs[0].ID), &back)
	if back.Content != "やまかわ" {
		t.Errorf("restored page = %+v", back)
	}
	// A thread of server A is in A's space: it sees A's notes.
	const threadA = "200000000000000011"
	h.discord.AddChannel(threadA)
	h.say(t, guildA, threadA, alice, "スレッドでも合言葉は？")
	if p := h.prompt(t, "スレッドでも合言葉は？"); !strings.Contains(p, "A の合言葉") {
		t.Errorf("a thread of server A does not see A's notes:\n%s", p)
	}

	// Each space has its own word pool: what A talks about is not B's
	// topic. The pool is fed after the turn is tagged, in the background
	// (the dictionary loads slowly under -race).
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		var n int
		if err := h.pool.QueryRow(context.Background(), `SELECT count(*) FROM message_tags t JOIN messages m ON m.id = t.message_id
WHERE m.content = '今の話どう思う？' AND t.tag = '話'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("A's message 今の話どう思う？ was never tagged 話")
		}
	}
	wordsOf := func(space string) []string {
		var res struct{ Words []string }
		admin.call(t, "GET", "/api/system/word-pool?space="+space, &res)
		return res.Words
	}
	for deadline := time.Now().Add(10 * time.Second); !slices.Contains(wordsOf("guild:"+guildA), "話"); {
		if time.Now().After(deadline) {
			t.Fatalf("A's word pool %q lacks 話 (今の話どう思う？)", wordsOf("guild:"+guildA))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if w := wordsOf("guild:" + guildB); slices.Contains(w, "話") {
		t.Errorf("B's word pool %q has A's word 話", w)
	}

	// The turns' model calls are tagged with their space.
	for _, sp := range []string{"guild:" + guildA, "guild:" + guildB, "dm:" + dmUser} {
		var n int
		if err := h.pool.QueryRow(context.Background(), "SELECT count(*) FROM api_logs WHERE space = $1", sp).Scan(&n); err != nil || n == 0 {
			t.Errorf("%d model calls tagged %s (%v); want the turns there", n, sp, err)
		}
	}
	// So are the background calls: what A's search taught is A's.
	var learnt, untagged int
	if err := h.pool.QueryRow(context.Background(), `SELECT count(*) FILTER (WHERE kind = 'knowledge' AND space = $1),
count(*) FILTER (WHERE space = '') FROM api_logs`, "guild:"+guildA).Scan(&learnt, &untagged); err != nil {
		t.Fatal(err)
	}
	if learnt != 1 || untagged != 0 {
		t.Errorf("%d knowledge calls tagged with A's space (want 1), %d calls with no space (want 0)", learnt, untagged)
	}
}
