package chat

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
	"github.com/yorozu-bot/yorozu/memory"
	"github.com/yorozu-bot/yorozu/recur"
	"github.com/yorozu-bot/yorozu/tools"
	"github.com/yorozu-bot/yorozu/tools/reminder"
)

// reminderStore keeps reminders in memory for the handler test.
type reminderStore struct {
	now     time.Time
	created []db.ReminderParams
	rules   []recur.Rule
	zone    *time.Location // every user's; nil: JST
}

var _ reminder.Service = (*reminderStore)(nil)

func (s *reminderStore) DigestNote(context.Context, string, string) string {
	return "Discord のメッセージ履歴から読みます。"
}

func (s *reminderStore) Create(_ context.Context, p db.ReminderParams) (db.Reminder, error) {
	s.created = append(s.created, p)
	return db.Reminder{ID: int64(len(s.created)), UserID: p.UserID, ChannelID: p.ChannelID, Content: p.Content, DueAt: p.DueAt}, nil
}
func (s *reminderStore) Repeat(_ context.Context, p db.ReminderParams, rule recur.Rule, loc *time.Location) (db.Reminder, error) {
	rule = rule.Anchor(s.now, loc)
	s.created, s.rules = append(s.created, p), append(s.rules, rule)
	return db.Reminder{ID: int64(len(s.created)), UserID: p.UserID, ChannelID: p.ChannelID, Content: p.Content,
		DueAt: rule.Next(s.now, loc, 1)[0], RRule: rule.RRULE(loc), TimeZone: loc.String()}, nil
}
func (s *reminderStore) LocationFor(context.Context, string) *time.Location {
	if s.zone != nil {
		return s.zone
	}
	return time.FixedZone("JST", 9*3600)
}
func (s *reminderStore) Upcoming(r db.Reminder, n int) []time.Time {
	rule, loc, err := recur.FromRRULE(r.RRule, r.SkipHolidays)
	if err != nil {
		return []time.Time{r.DueAt}
	}
	return append([]time.Time{r.DueAt}, rule.Next(r.DueAt, loc, n-1)...)
}
func (s *reminderStore) RuleText(r db.Reminder) string {
	rule, _, err := recur.FromRRULE(r.RRule, r.SkipHolidays)
	if err != nil {
		return ""
	}
	return rule.Describe()
}
func (s *reminderStore) List(context.Context, string, string) ([]db.Reminder, error) { return nil, nil }
func (s *reminderStore) Cancel(context.Context, string, int64) (db.Reminder, error) {
	return db.Reminder{}, db.ErrNotFound
}
func (s *reminderStore) Now() time.Time          { return s.now }
func (s *reminderStore) MaxAhead() time.Duration { return 365 * 24 * time.Hour }
func (s *reminderStore) MaxPending() int         { return 50 }

func TestReminderHandler(t *testing.T) {
	jst := time.FixedZone("JST", 9*3600)
	now := time.Date(2026, 12, 1, 14, 20, 0, 0, jst)
	srv := ollamatest.New(t)
	srv.AddModel("reminder-model", "completion", "tools")
	store := &reminderStore{now: now}
	reg := tools.NewRegistry()
	reg.MustRegister(reminder.Tools(store)...)

	h, err := NewReminderHandler(&Conversation{
		Store:    memory.New(dbtest.New(t), memory.Options{}),
		Pipeline: llm.New(llm.Options{Client: srv.Client()}),
		Model:    "reminder-model",
		Tools:    reg,
		Now:      func() time.Time { return now },
	}, jst)
	if err != nil {
		t.Fatal(err)
	}
	srv.Script(
		ollamatest.ToolCalls(ollamatest.Call(reminder.CreateName, map[string]any{"content": "燃えるゴミを出す", "due_at": "2026-12-02T09:00:00+09:00"})),
		ollamatest.Text("<t:1796169600:F>（<t:1796169600:R>）にお知らせします。"),
	)
	err = h.Handle(context.Background(), Request{
		Session: "discord:channel:c1", Source: "discord", ChannelID: "c1", AuthorID: "u1", MessageID: "m1",
		Text: "明日の朝9時に燃えるゴミってリマインドして",
	}, func(llm.Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}

	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Model != "reminder-model" {
		t.Fatalf("%d calls (model %q), want 2 with the reminder model", len(reqs), reqs[0].Model)
	}
	var system string
	for _, m := range reqs[0].Messages {
		if m.Role == "system" {
			system += m.Content
		}
	}
	for _, want := range []string{"2026年12月1日（火曜日）14:20", "UTC+09:00", "create_reminder", "<t:…:F>"} {
		if !strings.Contains(system, want) {
			t.Errorf("system text lacks %q:\n%s", want, system)
		}
	}
	if len(reqs[0].Tools) != len(reminder.Names) {
		t.Errorf("%d tools offered, want the %d reminder tools", len(reqs[0].Tools), len(reminder.Names))
	}
	if len(store.created) != 1 || store.created[0].UserID != "u1" || store.created[0].ChannelID != "c1" ||
		!store.created[0].DueAt.Equal(time.Date(2026, 12, 2, 9, 0, 0, 0, jst)) {
		t.Fatalf("created = %+v", store.created)
	}
	res := toolResults(reqs[1])
	if len(res) != 1 || !strings.Contains(res[0], "<t:1796169600:F> (<t:1796169600:R>)") {
		t.Errorf("tool result = %q, want the Discord timestamps", res)
	}
}

// A user who set their own time zone is told the time there, and a
// repeating reminder is read and shown there.
func TestReminderHandlerUserZone(t *testing.T) {
	newYork, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 1, 14, 20, 0, 0, time.FixedZone("JST", 9*3600)) // 00:20 in New York
	srv := ollamatest.New(t)
	srv.AddModel("reminder-model", "completion", "tools")
	store := &reminderStore{now: now, zone: newYork}
	reg := tools.NewRegistry()
	reg.MustRegister(reminder.Tools(store)...)
	var asked []string
	h, err := NewReminderHandler(&Conversation{
		Store:    memory.New(dbtest.New(t), memory.Options{}),
		Pipeline: llm.New(llm.Options{Client: srv.Client()}),
		Model:    "reminder-model",
		Tools:    reg,
		Now:      func() time.Time { return now },
	}, time.FixedZone("JST", 9*3600))
	if err != nil {
		t.Fatal(err)
	}
	h.ZoneOf = func(_ context.Context, userID string) *time.Location {
		asked = append(asked, userID)
		return newYork
	}
	srv.Script(
		ollamatest.ToolCalls(ollamatest.Call(reminder.CreateName, map[string]any{
			"content": "薬を飲む", "repeat": map[string]any{"frequency": "weekly", "weekdays": []string{"MO", "TH"}, "time": "07:00"},
		})),
		ollamatest.Text("毎週 月・木 7:00 にお知らせします。"),
	)
	err = h.Handle(context.Background(), Request{
		Session: "discord:channel:c1", Source: "discord", GuildID: "g1", ChannelID: "c1", AuthorID: "u1", MessageID: "m1",
		Text: "毎週月曜と木曜の朝7時に薬を飲むってリマインドして",
	}, func(llm.Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || asked[0] != "u1" {
		t.Errorf("zone looked up for %q, want the author u1", asked)
	}
	reqs := srv.Requests()
	var system string
	for _, m := range reqs[0].Messages {
		if m.Role == "system" {
			system += m.Content
		}
	}
	for _, want := range []string{"2026年12月1日（火曜日）00:20", "America/New_York（UTC-05:00）", `"weekdays":["MO","TH"]`, "create_scheduled_post"} {
		if !strings.Contains(system, want) {
			t.Errorf("system text lacks %q:\n%s", want, system)
		}
	}
	if len(store.created) != 1 || store.created[0].UserID != "u1" || store.created[0].Content != "薬を飲む" {
		t.Fatalf("created = %+v", store.created)
	}
	thu := time.Date(2026, 12, 3, 7, 0, 0, 0, newYork)
	res := toolResults(reqs[1])
	want := fmt.Sprintf("<t:%d:F>, <t:%d:F>, <t:%d:F>", thu.Unix(), thu.AddDate(0, 0, 4).Unix(), thu.AddDate(0, 0, 7).Unix())
	if len(res) != 1 || !strings.Contains(res[0], "「毎週 月・木 7:00」") || !strings.Contains(res[0], want) {
		t.Errorf("tool result = %q, want the rule and %s", res, want)
	}
}

// Repeating reminders and scheduled posts go to the reminder handler when
// they ask to be told or posted; a terse note with a repeat and no request
// goes to chat, whose tools include the reminder tools.
func TestReminderRoute(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"毎週月曜と木曜の朝7時に薬飲むのリマインドして", "reminder"},
		{"毎朝7時に起こして", "reminder"},
		{"毎月末に家計簿をつけるの知らせて", "reminder"},
		{"平日9時に日報を書くよう通知して", "reminder"},
		{"隔週土曜にシーツを洗うの教えて", "reminder"},
		{"毎週金曜17時にこのチャンネルで今週の話題をまとめて投稿して", "reminder"},
		{"毎朝の天気を教えて", "reminder"}, // a repeating request beats the weather
		{"リマインダーの一覧を見せて", "reminder"},
		{"2番のリマインダーを取り消して", "reminder"},
		{"毎日8時に水やり", "chat"},
		{"明日の天気は？", "weather"},
		{"Goのジェネリクスを教えて", "chat"},
	} {
		t.Run(tc.text, func(t *testing.T) {
			if got := Classify(tc.text, corpusNow); got != tc.want {
				t.Errorf("routed to %q, want %q", got, tc.want)
			}
		})
	}
}

func TestReminderSystemNamesHolidays(t *testing.T) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		now  time.Time
		want string
	}{
		{time.Date(2026, 12, 2, 15, 0, 0, 0, tokyo), "次の祝日は 1月1日（金）の元日です。"},
		{time.Date(2027, 1, 11, 8, 0, 0, 0, tokyo), "今日は成人の日です。次の祝日は 2月11日（木）の建国記念の日です。"},
	}
	for _, tc := range tests {
		if got := ReminderSystem(tc.now, tokyo); !strings.Contains(got, tc.want) {
			t.Errorf("%s: system text lacks %q:\n%s", tc.now.Format("2006-01-02"), tc.want, got)
		}
	}
}
