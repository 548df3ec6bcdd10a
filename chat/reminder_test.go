package chat

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
	"github.com/yorozu-bot/yorozu/memory"
	"github.com/yorozu-bot/yorozu/tools"
	"github.com/yorozu-bot/yorozu/tools/reminder"
)

// reminderStore keeps reminders in memory for the handler test.
type reminderStore struct {
	now     time.Time
	created []db.ReminderParams
}

var _ reminder.Service = (*reminderStore)(nil)

func (s *reminderStore) Create(_ context.Context, p db.ReminderParams) (db.Reminder, error) {
	s.created = append(s.created, p)
	return db.Reminder{ID: int64(len(s.created)), UserID: p.UserID, ChannelID: p.ChannelID, Content: p.Content, DueAt: p.DueAt}, nil
}
func (s *reminderStore) List(context.Context, string, string) ([]db.Reminder, error) { return nil, nil }
func (s *reminderStore) Cancel(context.Context, string, int64) (db.Reminder, error) {
	return db.Reminder{}, db.ErrNotFound
}
func (s *reminderStore) Location() *time.Location { return time.FixedZone("JST", 9*3600) }
func (s *reminderStore) Now() time.Time           { return s.now }
func (s *reminderStore) MaxAhead() time.Duration  { return 365 * 24 * time.Hour }
func (s *reminderStore) MaxPending() int          { return 50 }

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
	if len(reqs[0].Tools) != 3 {
		t.Errorf("%d tools offered, want the 3 reminder tools", len(reqs[0].Tools))
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
