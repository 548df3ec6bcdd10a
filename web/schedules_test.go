package web

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/recur"
)

// scheduleStore stores in the database without River jobs, as
// scheduler.Reminders does with them, and keeps its test sends.
type scheduleStore struct {
	q     db.Querier
	mu    sync.Mutex
	tests []int64
}

var _ Schedules = (*scheduleStore)(nil)

func (s *scheduleStore) Create(ctx context.Context, p db.ReminderParams) (db.Reminder, error) {
	return db.CreateReminder(ctx, s.q, p)
}

func (s *scheduleStore) Repeat(ctx context.Context, p db.ReminderParams, rule recur.Rule, loc *time.Location) (db.Reminder, error) {
	now := time.Now().In(loc)
	rule = rule.Anchor(now, loc)
	p.DueAt, p.RRule, p.SkipHolidays = rule.Next(now, loc, 1)[0], rule.RRULE(loc), rule.SkipHolidays
	return db.CreateReminder(ctx, s.q, p)
}

func (s *scheduleStore) Edit(ctx context.Context, id int64, p db.ReminderParams, rule *recur.Rule, loc *time.Location) (db.Reminder, error) {
	if rule != nil {
		now := time.Now().In(loc)
		anchored := rule.Anchor(now, loc)
		p.DueAt, p.RRule, p.SkipHolidays = anchored.Next(now, loc, 1)[0], anchored.RRULE(loc), anchored.SkipHolidays
	}
	if err := db.EditReminder(ctx, s.q, id, p); err != nil {
		return db.Reminder{}, err
	}
	return db.ReminderByID(ctx, s.q, id)
}

func (s *scheduleStore) SendTest(ctx context.Context, id int64) (string, error) {
	if _, err := db.ReminderByID(ctx, s.q, id); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tests = append(s.tests, id)
	return "m1", nil
}

func (s *scheduleStore) Location() *time.Location {
	loc, _ := time.LoadLocation("Asia/Tokyo")
	return loc
}

func (s *scheduleStore) MaxAhead() time.Duration { return 365 * 24 * time.Hour }

// TestScheduleForm: the 予定 form's words are read back as they are typed
// (the rule in words and the next five, or the one time); what cannot be
// read, and each missing field, is refused on its field in Japanese; a
// repeating reminder is created for a channel and listed with its rule; a
// test send leaves its next occurrence as it was.
func TestScheduleForm(t *testing.T) {
	a := newAPI(t)
	c := a.c

	var p previewJSON
	if code := c.call("POST", "/api/reminders/preview", scheduleRequest{When: "毎週月曜と木曜の7時"}, &p); code != http.StatusOK ||
		!p.Repeats || !strings.Contains(p.Rule, "月") || len(p.Next) != 5 || p.TimeZone != "Asia/Tokyo" {
		t.Fatalf("preview of a repeat = %d %+v", code, p)
	}
	for _, n := range p.Next {
		if wd := n.In(time.FixedZone("JST", 9*3600)).Weekday(); wd != time.Monday && wd != time.Thursday {
			t.Errorf("an occurrence on %v", n)
		}
	}
	if code := c.call("POST", "/api/reminders/preview", scheduleRequest{When: "明日の18時"}, &p); code != http.StatusOK || p.Repeats || len(p.Next) != 1 {
		t.Fatalf("preview of one time = %d %+v", code, p)
	}

	for _, tc := range []struct {
		name  string
		req   scheduleRequest
		path  string
		field string
	}{
		{"words that are no time", scheduleRequest{When: "そのうち"}, "/api/reminders/preview", "when"},
		{"no words", scheduleRequest{When: "  "}, "/api/reminders/preview", "when"},
		{"no channel", scheduleRequest{Content: "ゴミ出し", When: "毎朝7時"}, "/api/reminders", "channel_id"},
		{"no content", scheduleRequest{GuildID: "77", ChannelID: "555", When: "毎朝7時"}, "/api/reminders", "content"},
		{"a kind that is none", scheduleRequest{Kind: "digest?", GuildID: "77", ChannelID: "555", Content: "x", When: "毎朝7時"}, "/api/reminders", "kind"},
		{"a time too far ahead", scheduleRequest{GuildID: "77", ChannelID: "555", Content: "x", When: "500日後"}, "/api/reminders", "when"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, e := c.callErr("POST", tc.path, tc.req)
			if code != http.StatusBadRequest || e.Field != tc.field {
				t.Fatalf("= %d %+v, want 400 on %s", code, e, tc.field)
			}
			msg := strings.TrimPrefix(e.Error, tc.field+": ")
			if strings.ContainsAny(msg, "<>`") || !containsJapanese(msg) {
				t.Errorf("the refusal reads %q: want plain Japanese", msg)
			}
		})
	}
	var none []reminderJSON
	if c.call("GET", "/api/reminders", nil, &none); len(none) != 0 {
		t.Fatalf("refused forms stored %+v", none)
	}

	var created reminderJSON
	if code := c.call("POST", "/api/reminders", scheduleRequest{GuildID: "77", ChannelID: "555", UserID: "41",
		Content: "燃えるゴミの日", When: "毎週月曜と木曜の7時"}, &created); code != http.StatusCreated ||
		created.Status != "pending" || created.Rule == "" || len(created.NextOccurrences) != 5 || created.UserID != "41" || created.ChannelID != "555" {
		t.Fatalf("create = %d %+v", code, created)
	}
	var sent map[string]string
	if code := c.call("POST", "/api/reminders/"+itoa(created.ID)+"/test", nil, &sent); code != http.StatusOK || sent["message_id"] != "m1" {
		t.Fatalf("test send = %d %v", code, sent)
	}
	after, err := db.ReminderByID(context.Background(), a.pool, created.ID)
	if err != nil || !after.DueAt.Equal(created.DueAt) || after.Occurrences != 0 {
		t.Errorf("after the test send the reminder is %+v (%v), due %v before", after, err, created.DueAt)
	}
	if code, _ := c.callErr("POST", "/api/reminders/99999/test", nil); code != http.StatusNotFound {
		t.Errorf("test send of no reminder = %d, want 404", code)
	}

	// An edit of the text alone keeps the timing; one with words takes them.
	var edited reminderJSON
	if code := c.call("PUT", "/api/reminders/"+itoa(created.ID), scheduleRequest{GuildID: "77", ChannelID: "556", UserID: "41",
		Content: "資源ゴミの日"}, &edited); code != http.StatusOK || edited.Content != "資源ゴミの日" || edited.ChannelID != "556" ||
		edited.RRule != created.RRule || !edited.DueAt.Equal(created.DueAt) {
		t.Fatalf("edit of the text = %d %+v", code, edited)
	}
	if code := c.call("PUT", "/api/reminders/"+itoa(created.ID), scheduleRequest{GuildID: "77", ChannelID: "556", UserID: "41",
		Content: "資源ゴミの日", When: "毎朝8時"}, &edited); code != http.StatusOK || edited.RRule == created.RRule || len(edited.NextOccurrences) != 5 {
		t.Fatalf("edit of the rule = %d %+v", code, edited)
	}
	if code, e := c.callErr("PUT", "/api/reminders/"+itoa(created.ID), scheduleRequest{GuildID: "77", ChannelID: "556", Content: "x", When: "そのうち"}); code != http.StatusBadRequest || e.Field != "when" {
		t.Errorf("an edit to words that are no time = %d %+v", code, e)
	}
	if code, _ := c.callErr("PUT", "/api/reminders/99999", scheduleRequest{GuildID: "77", ChannelID: "556", Content: "x"}); code != http.StatusNotFound {
		t.Errorf("edit of no reminder = %d, want 404", code)
	}
}

// containsJapanese reports whether s has kana or kanji.
func containsJapanese(s string) bool {
	for _, r := range s {
		if r >= 0x3040 && r <= 0x9fff {
			return true
		}
	}
	return false
}
