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
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
	"github.com/yorozu-bot/yorozu/scheduler"
)

// Schedules end to end: slash commands and button presses through the real
// discordgo client, River on Postgres, delivery to the fake Discord.
//
// The scheduler's clock (clock) is the test's: it starts at a chosen time
// and moves on with the wall clock, and jump moves it ahead. River keeps
// the wall clock, so jump also makes the jobs that fell due on the
// scheduler's clock available now, as River would once that time came.

var tokyo = func() *time.Location {
	loc, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		panic(err)
	}
	return loc
}()

// testClock runs from a chosen time at the wall clock's pace.
type testClock struct {
	mu     sync.Mutex
	offset time.Duration
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

// useClock makes yorozu's clock read at from now on, for the test.
func useClock(t *testing.T, at time.Time) *testClock {
	c := &testClock{offset: time.Until(at)}
	clock = c.Now
	t.Cleanup(func() { clock = time.Now })
	return c
}

// jump moves the clock to at and releases the jobs of the reminders due by
// then (a job River ran early waits, snoozed, for its time on the clock),
// and tells the reminders queue, as River's scheduler does when it makes
// jobs available: the queue's poll is only a fallback, seconds apart.
func (h *harness) jump(t *testing.T, c *testClock, at time.Time) {
	t.Helper()
	// First let the jobs River ran early (its clock is ahead of the
	// test's) go back to wait, so none reads the new time half-way.
	deadline := time.Now().Add(30 * time.Second)
	for {
		var busy int
		if err := h.pool.QueryRow(context.Background(),
			"SELECT count(*) FROM river_job WHERE kind = 'reminder' AND state IN ('available', 'running')").Scan(&busy); err != nil {
			t.Fatal(err)
		}
		if busy == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d reminder jobs still running", busy)
		}
		time.Sleep(20 * time.Millisecond)
	}
	c.mu.Lock()
	c.offset = time.Until(at)
	c.mu.Unlock()
	// The planner runs on River's minute, not the test's: plan now, as a
	// second process would.
	planner, err := scheduler.New(h.pool, scheduler.Options{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := planner.PlanUpcoming(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, err = h.pool.Exec(context.Background(), `
UPDATE river_job j SET scheduled_at = now(), state = 'available'
FROM reminders r
WHERE j.kind = 'reminder' AND j.state IN ('scheduled', 'retryable')
  AND r.id = (j.args->>'reminder_id')::bigint AND r.due_at <= $1`, at)
	if err != nil {
		t.Fatal(err)
	}
	if err := riverpgxv5.New(h.pool).GetExecutor().NotifyMany(context.Background(), &riverdriver.NotifyManyParams{
		Topic: "river_insert", Payload: []string{`{"queue": "` + scheduler.QueueReminders + `"}`},
	}); err != nil {
		t.Fatal(err)
	}
}

func stringOpt(name, v string) *discordgo.ApplicationCommandInteractionDataOption {
	return &discordgo.ApplicationCommandInteractionDataOption{Name: name, Type: discordgo.ApplicationCommandOptionString, Value: v}
}

func idOpt(id int64) *discordgo.ApplicationCommandInteractionDataOption {
	return &discordgo.ApplicationCommandInteractionDataOption{Name: "id", Type: discordgo.ApplicationCommandOptionInteger, Value: float64(id)}
}

// slash runs /name sub with opts as m in the test channel and returns the
// (ephemeral) answer.
func (h *harness) slash(t *testing.T, m *discordgo.Member, name, sub string, opts ...*discordgo.ApplicationCommandInteractionDataOption) string {
	t.Helper()
	return h.command(t, &discordgo.Interaction{ChannelID: channelID, GuildID: guildID, Member: m,
		Data: discordgo.ApplicationCommandInteractionData{Name: name, Options: []*discordgo.ApplicationCommandInteractionDataOption{
			{Name: sub, Type: discordgo.ApplicationCommandOptionSubCommand, Options: opts}}}})
}

// botPosts are the bot's messages in the test channel that start with
// prefix.
func (h *harness) botPosts(prefix string) []discordtest.Message {
	var out []discordtest.Message
	for _, m := range h.discord.BotMessages(channelID) {
		if strings.HasPrefix(m.Content, prefix) {
			out = append(out, m)
		}
	}
	return out
}

func (h *harness) waitPosts(t *testing.T, prefix string, n int) []discordtest.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.discord.WaitFor(ctx, func() bool { return len(h.botPosts(prefix)) >= n }); err != nil {
		t.Fatalf("%d posts starting %q, want %d; bot messages %+v\nstderr:\n%s", len(h.botPosts(prefix)), prefix, n,
			h.discord.BotMessages(channelID), h.stderr.String())
	}
	// Nothing more comes: one post per occurrence.
	time.Sleep(500 * time.Millisecond)
	posts := h.botPosts(prefix)
	if len(posts) != n {
		t.Fatalf("%d posts starting %q, want exactly %d", len(posts), prefix, n)
	}
	return posts
}

// press presses the button labelled label on m as user and returns the
// bot's answer.
func (h *harness) press(t *testing.T, m discordtest.Message, label, user string, perms int64) discordgo.InteractionResponse {
	t.Helper()
	var custom string
	for _, b := range m.Buttons() {
		if b.Label == label {
			custom = b.CustomID
		}
	}
	if custom == "" {
		t.Fatalf("no button %q on %+v", label, m)
	}
	before := len(h.discord.InteractionResponses())
	h.discord.PressButton(channelID, m.ID, custom, &discordgo.User{ID: user}, perms)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.discord.WaitFor(ctx, func() bool { return len(h.discord.InteractionResponses()) > before }); err != nil {
		t.Fatalf("press of %q not answered", label)
	}
	return h.discord.InteractionResponses()[before].Response
}

func (h *harness) dueAt(t *testing.T, id int64) time.Time {
	t.Helper()
	var due time.Time
	if err := h.pool.QueryRow(context.Background(), "SELECT due_at FROM reminders WHERE id = $1", id).Scan(&due); err != nil {
		t.Fatal(err)
	}
	return due.In(tokyo)
}

func stampOf(t time.Time) string { return fmt.Sprintf("<t:%d:F>", t.Unix()) }

const (
	alice = "400000000000000001"
	bob   = "400000000000000002"
)

// TestDailyReminderEndToEnd: /remind add 毎日7時 a minute before 7:00; it is
// delivered once at 7:00 with its buttons, then listed with tomorrow's
// occurrence; 10分後 delivers it again ten minutes later, and only its
// owner may press the buttons.
func TestDailyReminderEndToEnd(t *testing.T) {
	c := useClock(t, time.Date(2026, 12, 2, 6, 59, 0, 0, tokyo))
	h := start(t, nil)
	h.discord.PutChannelInGuild(channelID, guildID)
	me := member(alice, 0)

	got := h.slash(t, me, "remind", "add", stringOpt("when", "毎日7時"), stringOpt("what", "薬を飲む"))
	day := func(d int) time.Time { return time.Date(2026, 12, d, 7, 0, 0, 0, tokyo) }
	for _, want := range []string{"リマインダー #1 を登録しました: 薬を飲む", "繰り返し: 毎日 7:00", stampOf(day(2)), stampOf(day(3)), stampOf(day(4))} {
		if !strings.Contains(got, want) {
			t.Errorf("confirmation %q lacks %q", got, want)
		}
	}

	h.jump(t, c, day(2))
	head := "<@" + alice + "> ⏰ リマインド: 薬を飲む"
	delivered := h.waitPosts(t, head, 1)[0]
	var labels []string
	for _, b := range delivered.Buttons() {
		labels = append(labels, b.Label)
	}
	if fmt.Sprint(labels) != "[10分後 1時間後 完了 次回をスキップ 一時停止]" {
		t.Errorf("buttons %v", labels)
	}
	h.waitCount(t, "SELECT count(*) FROM reminder_deliveries WHERE reminder_id = 1 AND message_id <> ''", 1)
	if due := h.dueAt(t, 1); !due.Equal(day(3)) {
		t.Errorf("next occurrence %s, want %s", due, day(3))
	}
	if list := h.slash(t, me, "remind", "list"); !strings.Contains(list, "#1 "+stampOf(day(3))) || !strings.Contains(list, "毎日 7:00") {
		t.Errorf("list %q, want tomorrow's occurrence", list)
	}

	if r := h.press(t, delivered, "10分後", bob, 0); r.Data == nil || !strings.Contains(r.Data.Content, "設定した人") || r.Data.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Errorf("someone else's press: %+v", r.Data)
	}
	pressed := c.Now()
	r := h.press(t, delivered, "10分後", alice, 0)
	if r.Data == nil || !strings.Contains(r.Data.Content, "もう一度お知らせします") || r.Data.Flags&discordgo.MessageFlagsEphemeral == 0 {
		t.Fatalf("snooze answer %+v", r.Data)
	}
	// The snooze is a one-shot copy, due ten minutes after the press.
	snoozed := h.dueAt(t, 2)
	if early, late := pressed.Add(10*time.Minute).Truncate(time.Second), c.Now().Add(10*time.Minute); snoozed.Before(early) || snoozed.After(late) {
		t.Errorf("snoozed to %s, want ten minutes after the press (%s–%s)", snoozed, early, late)
	}
	h.jump(t, c, snoozed)
	again := h.waitPosts(t, head, 2)[1]
	if again.ID == delivered.ID {
		t.Fatal("the snooze did not post a new message")
	}

	// 完了 marks the message done and takes its buttons away.
	r = h.press(t, again, "完了", alice, 0)
	if r.Type != discordgo.InteractionResponseUpdateMessage || r.Data == nil || !strings.HasSuffix(r.Data.Content, "✅ 完了（<@"+alice+">）") {
		t.Errorf("done answer %+v", r)
	}
}

// TestPauseAndResumeEndToEnd: a paused reminder is not delivered when its
// time comes; resumed, it is delivered at the next occurrence.
func TestPauseAndResumeEndToEnd(t *testing.T) {
	c := useClock(t, time.Date(2026, 12, 2, 6, 0, 0, 0, tokyo))
	h := start(t, nil)
	me := member(alice, 0)
	h.slash(t, me, "remind", "add", stringOpt("when", "毎日7時"), stringOpt("what", "ストレッチ"))
	if got := h.slash(t, me, "remind", "pause", idOpt(1)); !strings.Contains(got, "一時停止しました") {
		t.Fatalf("pause: %q", got)
	}
	h.jump(t, c, time.Date(2026, 12, 2, 7, 0, 30, 0, tokyo))
	time.Sleep(1500 * time.Millisecond)
	head := "<@" + alice + "> ⏰ リマインド: ストレッチ"
	if n := len(h.botPosts(head)); n != 0 {
		t.Fatalf("paused reminder posted %d times", n)
	}
	got := h.slash(t, me, "remind", "resume", idOpt(1))
	if next := time.Date(2026, 12, 3, 7, 0, 0, 0, tokyo); !strings.Contains(got, "再開しました。次回は "+stampOf(next)) {
		t.Fatalf("resume: %q", got)
	}
	h.jump(t, c, time.Date(2026, 12, 3, 7, 0, 0, 0, tokyo))
	h.waitPosts(t, head, 1)
}

// TestMonthlySkipsNewYearsDayEndToEnd: 毎月1日 with 祝日は除く passes over
// 2027-01-01 (元日): the confirmation shows February first, and that is
// when it is delivered.
func TestMonthlySkipsNewYearsDayEndToEnd(t *testing.T) {
	c := useClock(t, time.Date(2026, 12, 15, 12, 0, 0, 0, tokyo))
	h := start(t, nil)
	me := member(alice, 0)
	got := h.slash(t, me, "remind", "add", stringOpt("when", "毎月1日 祝日は除く"), stringOpt("what", "家賃"))
	first := time.Date(2027, 2, 1, 9, 0, 0, 0, tokyo)
	if !strings.Contains(got, "祝日は除く") || !strings.Contains(got, "次の3回: "+stampOf(first)) ||
		strings.Contains(got, stampOf(time.Date(2027, 1, 1, 9, 0, 0, 0, tokyo))) {
		t.Fatalf("confirmation %q, want February 1 first", got)
	}
	h.jump(t, c, time.Date(2027, 1, 1, 9, 0, 30, 0, tokyo))
	time.Sleep(time.Second)
	head := "<@" + alice + "> ⏰ リマインド: 家賃"
	if n := len(h.botPosts(head)); n != 0 {
		t.Fatalf("delivered on 元日 (%d posts)", n)
	}
	h.jump(t, c, first)
	h.waitPosts(t, head, 1)
	if due := h.dueAt(t, 1); !due.Equal(time.Date(2027, 3, 1, 9, 0, 0, 0, tokyo)) {
		t.Errorf("next occurrence %s, want March 1", due)
	}
}

// TestScheduledPostEndToEnd: /schedule add needs Manage Channels; each
// occurrence runs the chat pipeline with the prompt in the channel and
// posts the answer once, mentioning nobody.
func TestScheduledPostEndToEnd(t *testing.T) {
	c := useClock(t, time.Date(2026, 12, 4, 16, 0, 0, 0, tokyo)) // a Friday
	h := start(t, nil)
	var prompts []string
	var mu sync.Mutex
	h.handle(func(req api.ChatRequest) ollamatest.Reply {
		mu.Lock()
		defer mu.Unlock()
		last := req.Messages[len(req.Messages)-1].Content
		prompts = append(prompts, last)
		return ollamatest.Text(fmt.Sprintf("今週の話題（%d回目）: @everyone 忘年会の日程", len(prompts)))
	})

	if got := h.slash(t, member(bob, 0), "schedule", "add", stringOpt("when", "毎週金曜17時"), stringOpt("prompt", "今週の話題をまとめて")); !strings.Contains(got, "チャンネルの管理権限が必要") {
		t.Errorf("without Manage Channels: %q", got)
	}
	got := h.slash(t, member(alice, discordgo.PermissionManageChannels), "schedule", "add",
		stringOpt("when", "毎週金曜17時"), stringOpt("prompt", "今週の話題をまとめて"))
	if !strings.Contains(got, "定期投稿 #1 を登録しました") || !strings.Contains(got, "毎週 金 17:00") {
		t.Fatalf("add: %q", got)
	}

	h.jump(t, c, time.Date(2026, 12, 4, 17, 0, 0, 0, tokyo))
	post := h.waitPosts(t, "今週の話題", 1)[0]
	if post.Content != "今週の話題（1回目）: @everyone 忘年会の日程" {
		t.Errorf("post %q", post.Content)
	}
	if am := post.AllowedMentions; am == nil || len(am.Parse) != 0 || len(am.Users) != 0 {
		t.Errorf("allowed mentions %+v, want none", am)
	}
	mu.Lock()
	if len(prompts) != 1 || !strings.Contains(prompts[0], "今週の話題をまとめて") {
		t.Errorf("prompts %q", prompts)
	}
	mu.Unlock()

	h.waitCount(t, "SELECT count(*) FROM reminders WHERE id = 1 AND due_at = '2026-12-11T17:00:00+09:00'", 1)
	h.jump(t, c, time.Date(2026, 12, 11, 17, 0, 0, 0, tokyo))
	h.waitPosts(t, "今週の話題", 2)
	if list := h.slash(t, member(bob, 0), "schedule", "list"); !strings.Contains(list, "今週の話題をまとめて") {
		t.Errorf("list %q", list)
	}
}
