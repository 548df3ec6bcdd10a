package main

import (
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/internal/logtest"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// A digest (話題のまとめ) posts once per occurrence whatever happens to
// the processes around its time: stopped over it, stopped while posting
// it, two of them at once. And where the channel's log is on, it reads
// the log.

// digestHead is how the test channel's digest begins.
const digestHead = "**<#" + channelID + "> のまとめ**"

// digestRequests counts the model's digest requests and keeps what each
// was given to read; other turns get an ordinary answer.
type digestRequests struct {
	mu    sync.Mutex
	asked []string
}

func (d *digestRequests) handle(h *harness, answer string) {
	h.handle(func(req api.ChatRequest) ollamatest.Reply {
		if strings.Contains(req.Messages[0].Content, "チャンネルの会話を要約します") {
			d.mu.Lock()
			defer d.mu.Unlock()
			d.asked = append(d.asked, req.Messages[len(req.Messages)-1].Content)
			return ollamatest.Text(answer)
		}
		return ollamatest.Text("普通の返事です。")
	})
}

func (d *digestRequests) read() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.asked)
}

// addDigest makes the test channel's daily digest at 22:00 and returns
// the confirmation.
func (h *harness) addDigest(t *testing.T) string {
	t.Helper()
	got := h.slash(t, member(alice, discordgo.PermissionManageChannels), "schedule", "add",
		stringOpt("when", "毎日22時"), stringOpt("prompt", "今日の話題をまとめて"), stringOpt("kind", "digest"))
	if !strings.Contains(got, "話題のまとめの定期投稿 #1 を登録しました") {
		t.Fatalf("/schedule add kind:digest = %q", got)
	}
	return got
}

// talkOn has members say three things in the test channel on day, from
// 21:00.
func (h *harness) talkOn(day time.Time) []*discordgo.Message {
	at := time.Date(day.Year(), day.Month(), day.Day(), 21, 0, 0, 0, tokyo)
	return []*discordgo.Message{
		h.sayAt(alice, "忘年会いつにする？", at),
		h.sayAt(bob, "金曜19時に駅前はどう？", at.Add(5*time.Minute)),
		h.sayAt(alice, "いいね、予算はあとで決めよう", at.Add(10*time.Minute)),
	}
}

// restart stops the yorozu process and starts another on the same
// database, fakes and environment.
func (h *harness) restart(t *testing.T) {
	t.Helper()
	if err := h.stop(); err != nil {
		t.Fatalf("stop: %v\n%s", err, h.stderr.String())
	}
	h.startRun(t, h.env)
}

// deliveries are the occurrences of reminder 1 handled, as "due message_id".
func (h *harness) deliveries(t *testing.T) []string {
	t.Helper()
	rows, err := h.pool.Query(context.Background(),
		"SELECT occurrence, message_id FROM reminder_deliveries WHERE reminder_id = 1 ORDER BY occurrence")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for rows.Next() {
		var at time.Time
		var id string
		if err := rows.Scan(&at, &id); err != nil {
			t.Fatal(err)
		}
		out = append(out, at.In(tokyo).Format("01/02 15:04")+" "+id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDigestOnceAcrossRestarts: a daily digest whose time passes while
// yorozu is stopped posts once when it starts again; one whose post is
// made on Discord while the process is stopped, before it learns of it
// (the answer never comes back, and Discord has forgotten the nonce by
// the time the next process tries again), is found by the next process
// and not posted again, nor written again. Each occurrence is recorded
// once, with the message that was posted, and the schedule goes on.
func TestDigestOnceAcrossRestarts(t *testing.T) {
	c := useClock(t, time.Date(2026, 12, 7, 20, 0, 0, 0, tokyo))
	h := start(t, map[string]string{"DIGEST_MIN_MESSAGES": "3"})
	h.discord.SetClock(c.Now) // Discord's clock and yorozu's agree
	var model digestRequests
	model.handle(h, "**忘年会**\n- ✅ 決定: 金曜19時に駅前 [2]\n- ❓ 未解決: 予算 [3]")
	h.addDigest(t)

	// Day 1: stopped over 22:00, started at 22:05.
	day1 := h.talkOn(time.Date(2026, 12, 7, 0, 0, 0, 0, tokyo))
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	h.jump(t, c, time.Date(2026, 12, 7, 22, 5, 0, 0, tokyo))
	h.startRun(t, h.env)
	first := h.waitPosts(t, digestHead, 1)[0]
	if link := "https://discord.com/channels/" + guildID + "/" + channelID + "/" + day1[1].ID; !strings.Contains(first.Content, link) {
		t.Errorf("the digest after the restart %q lacks the link %s", first.Content, link)
	}

	// Day 2: the post is made, its answer lost; the process stops while
	// waiting for it; Discord forgets the nonce; another process starts.
	h.waitCount(t, "SELECT count(*) FROM reminders WHERE id = 1 AND due_at = '2026-12-08T22:00:00+09:00'", 1)
	h.talkOn(time.Date(2026, 12, 8, 0, 0, 0, 0, tokyo))
	h.discord.LoseCreateResponses(channelID, 1, discordtest.LossTimeout)
	h.jump(t, c, time.Date(2026, 12, 8, 22, 0, 0, 0, tokyo))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.discord.WaitFor(ctx, func() bool { return len(h.botPosts(digestHead)) == 2 }); err != nil {
		t.Fatalf("day 2's digest was not posted: %v\n%s", err, h.stderr.String())
	}
	h.restart(t)
	h.discord.ForgetNonces()
	h.waitCount(t, "SELECT count(*) FROM reminders WHERE id = 1 AND due_at = '2026-12-09T22:00:00+09:00' AND failed_at IS NULL", 1)
	posts := h.waitPosts(t, digestHead, 2)
	if !strings.Contains(h.stderr.String(), "already posted by an earlier attempt; not posting again") {
		t.Errorf("the process after the restart did not find the post it was to make:\n%s", h.stderr.String())
	}

	if n := len(model.read()); n != 2 {
		t.Errorf("the model wrote %d digests for two occurrences, want 2 (none again after the restart)", n)
	}
	want := []string{"12/07 22:00 " + posts[0].ID, "12/08 22:00 " + posts[1].ID}
	if got := h.deliveries(t); !slices.Equal(got, want) {
		t.Errorf("occurrences recorded %q, want %q", got, want)
	}
}

// TestDigestOnceWithTwoProcesses: with two yorozu processes on one
// database (one holds the gateway, both run jobs), a digest posts once,
// written by the model once.
func TestDigestOnceWithTwoProcesses(t *testing.T) {
	c := useClock(t, time.Date(2026, 12, 7, 20, 0, 0, 0, tokyo))
	h := start(t, map[string]string{"DIGEST_MIN_MESSAGES": "3"})
	h.discord.SetClock(c.Now)
	second := &harness{discord: h.discord, ollama: h.ollama, dbURL: h.dbURL, pool: h.pool, stderr: &logtest.Buffer{}, env: h.env}
	second.startRun(t, h.env)
	var model digestRequests
	model.handle(h, "**忘年会**\n- ✅ 決定: 金曜19時に駅前 [2]")
	h.addDigest(t)
	h.talkOn(time.Date(2026, 12, 7, 0, 0, 0, 0, tokyo))

	h.jump(t, c, time.Date(2026, 12, 7, 22, 0, 0, 0, tokyo))
	post := h.waitPosts(t, digestHead, 1)[0]
	h.waitCount(t, "SELECT count(*) FROM reminders WHERE id = 1 AND due_at = '2026-12-08T22:00:00+09:00'", 1)
	if n := len(model.read()); n != 1 {
		t.Errorf("the model wrote %d digests, want 1", n)
	}
	if got, want := h.deliveries(t), []string{"12/07 22:00 " + post.ID}; !slices.Equal(got, want) {
		t.Errorf("occurrences recorded %q, want %q", got, want)
	}
	var jobs int
	if err := h.pool.QueryRow(context.Background(),
		"SELECT count(*) FROM river_job WHERE kind = 'reminder' AND (args->>'occurrence')::bigint = $1",
		time.Date(2026, 12, 7, 22, 0, 0, 0, tokyo).Unix()).Scan(&jobs); err != nil || jobs != 1 {
		t.Errorf("%d jobs for the occurrence (%v), want 1", jobs, err)
	}
}

// TestDigestFromTheLog: in a channel whose log is on, the digest reads
// the log: what members said there and in its thread without mentioning
// yorozu (Discord's history is unreadable by then), each message with its
// speaker and time in the model's request, and the post links each point
// to the message it cites, a thread's in its thread, as /summary does.
func TestDigestFromTheLog(t *testing.T) {
	c := useClock(t, time.Date(2026, 12, 7, 20, 0, 0, 0, tokyo))
	h := start(t, map[string]string{"DIGEST_MIN_MESSAGES": "3"})
	h.discord.SetClock(c.Now)
	const thread = "200000000000000077"
	h.discord.AddThread(thread, channelID)
	before := len(h.discord.InteractionResponses())
	h.discord.SendInteraction(&discordgo.Interaction{Type: discordgo.InteractionApplicationCommand, Token: "tok", ChannelID: channelID,
		GuildID: guildID, Member: member("400000000000000009", discordgo.PermissionManageChannels),
		Data: discordgo.ApplicationCommandInteractionData{Name: "channel", Options: []*discordgo.ApplicationCommandInteractionDataOption{{
			Name: "log", Type: discordgo.ApplicationCommandOptionSubCommand,
			Options: []*discordgo.ApplicationCommandInteractionDataOption{stringOpt("value", "on")},
		}}}})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.discord.WaitFor(ctx, func() bool { return len(h.discord.InteractionResponses()) > before }); err != nil {
		t.Fatal("/channel log on was not answered")
	}
	h.waitCount(t, "SELECT count(*) FROM channel_settings WHERE log", 1)
	if got := h.addDigest(t); !strings.Contains(got, "このチャンネルの記録（/channel log）から読みます") {
		t.Errorf("the confirmation %q does not say the digest reads the log", got)
	}
	var model digestRequests
	model.handle(h, "**忘年会**\n- ✅ 決定: 金曜19時に駅前 [2][3]\n- ❓ 未解決: 予算 [4]")

	at := time.Date(2026, 12, 7, 21, 0, 0, 0, tokyo)
	said := []*discordgo.Message{
		h.sayAt(alice, "忘年会いつにする？", at),
		h.sayAt(bob, "金曜19時に駅前はどう？", at.Add(5*time.Minute)),
		h.discord.SendMessage(&discordgo.Message{ID: strconv.FormatInt(db.SnowflakeAt(at.Add(7*time.Minute))+1, 10),
			Timestamp: at.Add(7 * time.Minute), ChannelID: thread, GuildID: guildID, Content: "スレッドでも賛成です",
			Author: &discordgo.User{ID: "400000000000000003", Username: "carol"}}),
		h.sayAt(alice, "いいね、予算はあとで決めよう", at.Add(10*time.Minute)),
	}
	h.waitCount(t, "SELECT count(*) FROM channel_messages WHERE author_kind = 'member'", 4)
	h.discord.DenyBot(channelID, discordgo.PermissionReadMessageHistory)

	h.jump(t, c, time.Date(2026, 12, 7, 22, 0, 0, 0, tokyo))
	post := h.waitPosts(t, digestHead, 1)[0]
	read := model.read()
	if len(read) != 1 {
		t.Fatalf("%d digest requests, want 1:\n%s", len(read), h.stderr.String())
	}
	for _, line := range []string{
		"[1] 12/07 21:00 user1: 忘年会いつにする？",
		"[2] 12/07 21:05 user2: 金曜19時に駅前はどう？",
		"[3] 12/07 21:07 carol: スレッドでも賛成です",
		"[4] 12/07 21:10 user1: いいね、予算はあとで決めよう",
	} {
		if !strings.Contains(read[0], line) {
			t.Errorf("the model's request lacks %q:\n%s", line, read[0])
		}
	}
	links := regexp.MustCompile(`\(https://discord\.com/channels/`+guildID+`/(\d+)/(\d+)\)`).FindAllStringSubmatch(post.Content, -1)
	var got []string
	for _, l := range links {
		got = append(got, l[1]+"/"+l[2])
	}
	want := []string{channelID + "/" + said[1].ID, thread + "/" + said[2].ID, channelID + "/" + said[3].ID}
	if !slices.Equal(got, want) {
		t.Errorf("the digest links to %q, want %q:\n%s", got, want, post.Content)
	}
	if !strings.Contains(post.Content, "4件") {
		t.Errorf("the digest does not say it read 4 messages:\n%s", post.Content)
	}
}
