package reminder

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/recur"
	"github.com/yorozu-bot/yorozu/tools"
)

// fakeService keeps reminders in memory.
type fakeService struct {
	now     time.Time
	rs      []db.Reminder
	created []db.ReminderParams
	rules   []recur.Rule              // as Repeat got them, beside created
	zones   map[string]*time.Location // users' own time zones; else JST
}

var _ Service = (*fakeService)(nil)

// DigestNote says a channel named "logged" is read from its log.
func (s *fakeService) DigestNote(_ context.Context, _, channelID string) string {
	if channelID == "logged" {
		return "このチャンネルの記録（/channel log）から読みます。"
	}
	return "Discord のメッセージ履歴から読みます。"
}

func (f *fakeService) Create(_ context.Context, p db.ReminderParams) (db.Reminder, error) {
	f.created = append(f.created, p)
	r := db.Reminder{ID: int64(len(f.rs) + 1), ChannelID: p.ChannelID, UserID: p.UserID, Content: p.Content, DueAt: p.DueAt.UTC()}
	f.rs = append(f.rs, r)
	return r, nil
}

// Repeat stores the rule as the scheduler does: RRULE text, the first
// occurrence as the due time.
func (f *fakeService) Repeat(_ context.Context, p db.ReminderParams, rule recur.Rule, loc *time.Location) (db.Reminder, error) {
	if _, err := time.LoadLocation(loc.String()); err != nil {
		return db.Reminder{}, fmt.Errorf("time zone %q has no name to store", loc)
	}
	rule = rule.Anchor(f.now, loc)
	if err := rule.Validate(f.now, loc); err != nil {
		return db.Reminder{}, err
	}
	f.created, f.rules = append(f.created, p), append(f.rules, rule)
	r := db.Reminder{
		ID: int64(len(f.rs) + 1), GuildID: p.GuildID, ChannelID: p.ChannelID, UserID: p.UserID, Content: p.Content, Kind: p.Kind,
		DueAt: rule.Next(f.now, loc, 1)[0], RRule: rule.RRULE(loc), TimeZone: loc.String(), SkipHolidays: rule.SkipHolidays,
	}
	f.rs = append(f.rs, r)
	return r, nil
}

func (f *fakeService) LocationFor(_ context.Context, user string) *time.Location {
	if loc, ok := f.zones[user]; ok {
		return loc
	}
	return tokyo
}

// tokyo is TIMEZONE for the fake: a named zone, as a stored rule needs.
var tokyo = func() *time.Location {
	loc, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		panic(err)
	}
	return loc
}()

func (f *fakeService) Upcoming(r db.Reminder, n int) []time.Time {
	if !r.Repeats() {
		return []time.Time{r.DueAt}
	}
	rule, loc, err := recur.FromRRULE(r.RRule, r.SkipHolidays)
	if err != nil {
		return []time.Time{r.DueAt}
	}
	return append([]time.Time{r.DueAt}, rule.Next(r.DueAt, loc, n-1)...)
}

func (f *fakeService) RuleText(r db.Reminder) string {
	rule, _, err := recur.FromRRULE(r.RRule, r.SkipHolidays)
	if err != nil {
		return ""
	}
	return rule.Describe()
}

func (f *fakeService) List(_ context.Context, user, channel string) ([]db.Reminder, error) {
	var out []db.Reminder
	for _, r := range f.rs {
		if r.UserID == user && (channel == "" || r.ChannelID == channel) && r.Pending() {
			out = append(out, r)
		}
	}
	return out, nil
}

func (f *fakeService) Cancel(_ context.Context, user string, id int64) (db.Reminder, error) {
	for i, r := range f.rs {
		if r.ID == id && r.UserID == user {
			if !r.Pending() {
				return r, db.ErrReminderNotPending
			}
			f.rs[i].CancelledAt = &f.now
			return f.rs[i], nil
		}
	}
	return db.Reminder{}, db.ErrNotFound
}

func (f *fakeService) Now() time.Time          { return f.now }
func (f *fakeService) MaxAhead() time.Duration { return 365 * 24 * time.Hour }
func (f *fakeService) MaxPending() int         { return 3 }

func registry(t *testing.T, svc Service) *tools.Registry {
	t.Helper()
	r := tools.NewRegistry()
	r.MustRegister(Tools(svc)...)
	return r
}

func TestCreateReminder(t *testing.T) {
	now := time.Date(2026, 12, 1, 14, 20, 0, 0, jst) // Tuesday
	tests := []struct {
		name    string
		text    string // the user's words
		args    string
		want    string // substring of the result
		wantErr string // substring of the refusal
	}{
		{name: "agrees with the words", text: "明日の朝9時に燃えるゴミって教えて",
			args: `{"content":"燃えるゴミを出す","due_at":"2026-12-02T09:00:00+09:00"}`,
			want: "Reminder #1 created for 2026-12-02 (水) 09:00 JST: 燃えるゴミを出す\nIn your reply, confirm it in the user's language and write the time exactly as <t:1796169600:F> (<t:1796169600:R>)"},
		{name: "other offset, same instant", text: "明日の朝9時に",
			args: `{"content":"x","due_at":"2026-12-02T00:00:00Z"}`, want: "created for 2026-12-02 (水) 09:00 JST"},
		{name: "relative, model counted from earlier", text: "30分後にリマインドして",
			args: `{"content":"x","due_at":"2026-12-01T14:48:00+09:00"}`, want: "created"},
		{name: "no time in the words", text: "リマインドして",
			args: `{"content":"x","due_at":"2026-12-05T10:00:00+09:00"}`, want: "created"},
		{name: "disagrees with the words", text: "明日の朝9時に燃えるゴミって教えて",
			args:    `{"content":"x","due_at":"2026-12-02T21:00:00+09:00"}`,
			wantErr: `read as 2026-12-02 (水) 09:00 JST, but due_at is 2026-12-02 (水) 21:00 JST. Do not create the reminder yet: ask the user`},
		{name: "wrong day", text: "明日リマインドして",
			args: `{"content":"x","due_at":"2026-12-03T09:00:00+09:00"}`, wantErr: "ask the user which time they mean"},
		{name: "bare 9時 is the next 09:00", text: "9時にリマインド",
			args: `{"content":"x","due_at":"2026-12-01T21:00:00+09:00"}`, wantErr: "read as 2026-12-02 (水) 09:00 JST"},
		{name: "the words name a time gone by", text: "昨日の9時にリマインドして",
			args:    `{"content":"x","due_at":"2026-12-02T09:00:00+09:00"}`,
			wantErr: "name 2026-11-30 (月) 09:00 JST, which has already passed. Do not create the reminder: tell the user"},
		{name: "missing offset", text: "",
			args: `{"content":"x","due_at":"2026-12-02T09:00:00"}`, wantErr: `has no UTC offset: add it (the user's offset is +09:00)`},
		{name: "unparsable", text: "",
			args: `{"content":"x","due_at":"tomorrow 9am"}`, wantErr: "is not an RFC 3339 time: use the form 2026-12-01T15:20:00+09:00"},
		{name: "in the past", text: "",
			args: `{"content":"x","due_at":"2026-12-01T14:18:00+09:00"}`, wantErr: "is in the past (now is 2026-12-01 (火) 14:20 JST)"},
		{name: "a few seconds ago is fine", text: "",
			args: `{"content":"x","due_at":"2026-12-01T14:19:30+09:00"}`, want: "created"},
		{name: "too far ahead", text: "",
			args: `{"content":"x","due_at":"2028-01-01T09:00:00+09:00"}`, wantErr: "at most 365 days ahead"},
		{name: "empty content", text: "",
			args: `{"content":"  ","due_at":"2026-12-02T09:00:00+09:00"}`, wantErr: "content is empty"},
		{name: "missing content", text: "",
			args: `{"due_at":"2026-12-02T09:00:00+09:00"}`, wantErr: `invalid argument "content"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			svc := &fakeService{now: now}
			ctx := tools.WithCaller(context.Background(), tools.Caller{
				Session: "discord:channel:c1", Source: "discord", ChannelID: "c1", UserID: "u1", MessageID: "m1", Text: tc.text,
			})
			got, err := registry(t, svc).Call(ctx, CreateName, json.RawMessage(tc.args))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				if len(svc.created) != 0 {
					t.Fatalf("a refused reminder was created: %+v", svc.created)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(got, tc.want) {
				t.Fatalf("result %q does not contain %q", got, tc.want)
			}
			p := svc.created[0]
			if p.ChannelID != "c1" || p.UserID != "u1" || p.SessionKey != "discord:channel:c1" || p.SourceMessageID != "m1" {
				t.Errorf("params = %+v, want the caller's", p)
			}
		})
	}
}

func TestCreateReminderLimits(t *testing.T) {
	now := time.Date(2026, 12, 1, 14, 20, 0, 0, jst)
	svc := &fakeService{now: now}
	reg := registry(t, svc)
	args := json.RawMessage(`{"content":"x","due_at":"2026-12-02T09:00:00+09:00"}`)

	if _, err := reg.Call(tools.WithCaller(context.Background(), tools.Caller{Source: "web"}), CreateName, args); err == nil ||
		!strings.Contains(err.Error(), "no Discord user and channel") {
		t.Errorf("web caller: %v", err)
	}
	ctx := tools.WithCaller(context.Background(), tools.Caller{ChannelID: "c1", UserID: "u1"})
	for range svc.MaxPending() {
		if _, err := reg.Call(ctx, CreateName, args); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := reg.Call(ctx, CreateName, args); err == nil || !strings.Contains(err.Error(), "already has 3 pending reminders") {
		t.Errorf("over the cap: %v", err)
	}
}

func TestListAndCancel(t *testing.T) {
	now := time.Date(2026, 12, 1, 14, 20, 0, 0, jst)
	due := time.Date(2026, 12, 2, 9, 0, 0, 0, jst)
	svc := &fakeService{now: now, rs: []db.Reminder{
		{ID: 1, ChannelID: "c1", UserID: "u1", Content: "燃えるゴミ", DueAt: due},
		{ID: 2, ChannelID: "c2", UserID: "u1", Content: "elsewhere", DueAt: due},
		{ID: 3, ChannelID: "c1", UserID: "u2", Content: "someone else's", DueAt: due},
		{ID: 4, ChannelID: "c1", UserID: "u1", Content: "done", DueAt: due, NotifiedAt: &now},
	}}
	reg := registry(t, svc)
	ctx := tools.WithCaller(context.Background(), tools.Caller{ChannelID: "c1", UserID: "u1"})

	got, err := reg.Call(ctx, ListName, nil)
	want := "The user's pending reminders in this channel (1):\n#1 2026-12-02 (水) 09:00 JST <t:1796169600:R> — 燃えるゴミ"
	if err != nil || got != want {
		t.Fatalf("list = %q, %v; want %q", got, err, want)
	}

	tests := []struct {
		name, args, want, wantErr string
	}{
		{"someone else's", `{"reminder_id":3}`, "", "the user has no reminder #3; call list_reminders"},
		{"delivered", `{"reminder_id":4}`, "", "reminder #4 is already delivered"},
		{"own", `{"reminder_id":1}`, "Cancelled reminder #1 (2026-12-02 (水) 09:00 JST — 燃えるゴミ).", ""},
		{"twice", `{"reminder_id":1}`, "", "reminder #1 is already cancelled"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := reg.Call(ctx, CancelName, json.RawMessage(tc.args))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
	if got, _ := reg.Call(ctx, ListName, nil); got != "The user has no pending reminders in this channel." {
		t.Errorf("list after cancel = %q", got)
	}
}
