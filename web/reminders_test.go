package web

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

var _ Reminders = reminderStore{}

// AdminPause pauses in the database, as scheduler.Reminders does without
// its River job.
func (s reminderStore) AdminPause(ctx context.Context, id int64) (db.Reminder, error) {
	if err := db.PauseReminder(ctx, s.q, id, time.Now()); err != nil {
		return db.Reminder{}, err
	}
	return db.ReminderByID(ctx, s.q, id)
}

// AdminResume resumes at the reminder's due time.
func (s reminderStore) AdminResume(ctx context.Context, id int64) (db.Reminder, error) {
	rem, err := db.ReminderByID(ctx, s.q, id)
	if err != nil {
		return db.Reminder{}, err
	}
	if err := db.MoveReminder(ctx, s.q, id, rem.DueAt); err != nil {
		return db.Reminder{}, err
	}
	return db.ReminderByID(ctx, s.q, id)
}

// Upcoming reads every rule as daily from the due time.
func (s reminderStore) Upcoming(rem db.Reminder, n int) []time.Time {
	if !rem.Pending() {
		return nil
	}
	if !rem.Repeats() {
		return []time.Time{rem.DueAt}
	}
	out := make([]time.Time, n)
	for i := range out {
		out[i] = rem.DueAt.AddDate(0, 0, i)
	}
	return out
}

func (s reminderStore) RuleText(rem db.Reminder) string {
	if rem.Repeats() {
		return "毎日 7:00"
	}
	return ""
}

// racingReminders finds each reminder paused by someone else just before
// it locks it, and refuses as the scheduler does, with an error the web
// package cannot name.
type racingReminders struct{ reminderStore }

func (s racingReminders) AdminPause(ctx context.Context, id int64) (db.Reminder, error) {
	if err := db.PauseReminder(ctx, s.q, id, time.Now()); err != nil {
		return db.Reminder{}, err
	}
	return db.Reminder{}, errors.New("the reminder is paused")
}

const dailyRule = "DTSTART;TZID=Asia/Tokyo:20260105T070000\nRRULE:FREQ=DAILY"

// TestSchedulesAPI: the list shows each reminder and scheduled post with
// its rule in words, its next five occurrences and its last ten deliveries
// (late by how much, or skipped); the page's buttons pause and resume.
func TestSchedulesAPI(t *testing.T) {
	a := newAPI(t)
	c, ctx := a.c, context.Background()
	due := time.Now().Add(time.Hour).Truncate(time.Second)
	// Twelve days of the post gone by, each recorded as the scheduler
	// records an occurrence and moves on to the next; the last skipped.
	post, err := db.CreateReminder(ctx, a.pool, db.ReminderParams{GuildID: "g1", ChannelID: "c", UserID: "u1", Content: "今日の天気",
		DueAt: due.AddDate(0, 0, -12), Kind: db.KindPost, RRule: dailyRule, TimeZone: "Asia/Tokyo"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 12 {
		d := db.Delivery{ReminderID: post.ID, Occurrence: due.AddDate(0, 0, i-12), MessageID: "m" + itoa(int64(i))}
		d.HandledAt = d.Occurrence.Add(time.Duration(i) * time.Second)
		if i == 11 {
			d.MessageID, d.Error = "", "skipped"
		}
		if err := db.RecordOutcome(ctx, a.pool, db.Outcome{Delivery: d, Next: due.AddDate(0, 0, i-11), Occurrences: i + 1}); err != nil {
			t.Fatal(err)
		}
	}
	once, _ := db.CreateReminder(ctx, a.pool, db.ReminderParams{ChannelID: "c", UserID: "u2", Content: "会議", DueAt: due.Add(-2 * time.Hour)})
	if err := db.RecordOutcome(ctx, a.pool, db.Outcome{Delivery: db.Delivery{ReminderID: once.ID, Occurrence: once.DueAt,
		HandledAt: once.DueAt.Add(90 * time.Second), MessageID: "m9"}, Occurrences: 1, Attempts: 1}); err != nil {
		t.Fatal(err)
	}
	// Delivered before deliveries were recorded (before migration 0015):
	// the row says when. No code writes such a row any more.
	old, _ := db.CreateReminder(ctx, a.pool, db.ReminderParams{ChannelID: "c", UserID: "u2", Content: "昔の", DueAt: due.Add(-3 * time.Hour)})
	if _, err := a.pool.Exec(ctx, "UPDATE reminders SET notified_at = $2, message_id = 'm0', attempts = 1 WHERE id = $1",
		old.ID, due.Add(-3*time.Hour+time.Second)); err != nil {
		t.Fatal(err)
	}

	byID := func() map[int64]reminderJSON {
		t.Helper()
		var list []reminderJSON
		if code := c.call("GET", "/api/reminders", nil, &list); code != http.StatusOK || len(list) != 3 {
			t.Fatalf("list = %d %+v", code, list)
		}
		m := map[int64]reminderJSON{}
		for _, r := range list {
			m[r.ID] = r
		}
		return m
	}
	list := byID()
	p := list[post.ID]
	if p.Status != "pending" || p.Kind != "post" || p.Rule != "毎日 7:00" || p.RRule != dailyRule || p.TimeZone != "Asia/Tokyo" {
		t.Errorf("the scheduled post reads %+v", p)
	}
	if len(p.NextOccurrences) != upcomingShown || !p.NextOccurrences[0].Equal(due) || !p.NextOccurrences[4].Equal(due.AddDate(0, 0, 4)) {
		t.Errorf("its next occurrences are %v, want five from %v", p.NextOccurrences, due)
	}
	if len(p.Deliveries) != deliveriesShown {
		t.Fatalf("%d deliveries shown, want the last %d", len(p.Deliveries), deliveriesShown)
	}
	if d := p.Deliveries[0]; d.Error != "skipped" || !d.Occurrence.Equal(due.AddDate(0, 0, -1)) || d.MessageID != "" {
		t.Errorf("the newest delivery is %+v, want the skipped one of yesterday", d)
	}
	if d := p.Deliveries[1]; d.LateMS != 10_000 || d.MessageID != "m10" || d.Covers != 1 {
		t.Errorf("the one before is %+v, want m10, 10 s late", d)
	}
	o := list[once.ID]
	if o.Status != "delivered" || o.Rule != "" || len(o.NextOccurrences) != 0 || len(o.Deliveries) != 1 || o.Deliveries[0].LateMS != 90_000 {
		t.Errorf("the delivered one-shot reads %+v", o)
	}
	if d := list[old.ID].Deliveries; len(d) != 1 || d[0].LateMS != 1000 || d[0].MessageID != "m0" {
		t.Errorf("the one delivered before deliveries were recorded shows %+v", d)
	}

	// The wire format: RFC 3339 strings, and [] rather than null.
	var raw []map[string]any
	c.call("GET", "/api/reminders", nil, &raw)
	for _, r := range raw {
		next, ok := r["next_occurrences"].([]any)
		if !ok {
			t.Fatalf("next_occurrences of %v is %T", r["id"], r["next_occurrences"])
		}
		for _, n := range next {
			if _, err := time.Parse(time.RFC3339, n.(string)); err != nil {
				t.Errorf("next occurrence %v: %v", n, err)
			}
		}
		if _, ok := r["deliveries"].([]any); !ok {
			t.Errorf("deliveries of %v is %T", r["id"], r["deliveries"])
		}
	}

	path := func(id int64, action string) string { return "/api/reminders/" + itoa(id) + "/" + action }
	var r reminderJSON
	if code := c.call("POST", path(post.ID, "pause"), nil, &r); code != http.StatusOK || r.Status != "paused" || r.PausedAt == nil ||
		len(r.Deliveries) != deliveriesShown || r.Rule == "" {
		t.Fatalf("pause = %d %+v", code, r)
	}
	if got := byID()[post.ID].Status; got != "paused" {
		t.Errorf("after the pause the list says %q", got)
	}
	tests := []struct {
		name   string
		path   string
		status int
		msg    string
	}{
		{"pause a paused one", path(post.ID, "pause"), http.StatusConflict, "その予定はもう一時停止中です。"},
		{"pause a delivered one", path(once.ID, "pause"), http.StatusConflict, scheduleOver},
		{"resume a delivered one", path(once.ID, "resume"), http.StatusConflict, scheduleOver},
		{"pause none", path(9999, "pause"), http.StatusNotFound, "その予定はありません。"},
		{"resume none", path(9999, "resume"), http.StatusNotFound, "その予定はありません。"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if code, e := c.callErr("POST", tc.path, nil); code != tc.status || e.Error != tc.msg {
				t.Errorf("= %d %q, want %d %q", code, e.Error, tc.status, tc.msg)
			}
		})
	}
	if code := c.call("POST", path(post.ID, "resume"), nil, &r); code != http.StatusOK || r.Status != "pending" || r.PausedAt != nil {
		t.Fatalf("resume = %d %+v", code, r)
	}
	if code, e := c.callErr("POST", path(post.ID, "resume"), nil); code != http.StatusConflict || e.Error != "その予定は一時停止していません。" {
		t.Errorf("resume a running one = %d %q", code, e.Error)
	}
	if code := c.call("POST", path(post.ID, "cancel"), nil, &r); code != http.StatusOK || r.Status != "cancelled" || len(r.NextOccurrences) != 0 {
		t.Errorf("cancel = %d %+v", code, r)
	}
}

// TestPauseRacingAnotherPause: a reminder paused by someone else between
// the page's read and the scheduler's lock is 409, as if it had been
// paused all along.
func TestPauseRacingAnotherPause(t *testing.T) {
	pool := dbtest.New(t)
	ts := newTestServer(t, Options{Pool: pool, Deps: Deps{Reminders: racingReminders{reminderStore{pool}}}})
	c := ts.quickSession(t)
	rem, err := db.CreateReminder(context.Background(), ts.pool, db.ReminderParams{ChannelID: "c", UserID: "u1", Content: "x",
		DueAt: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if code, e := c.callErr("POST", "/api/reminders/"+itoa(rem.ID)+"/pause", nil); code != http.StatusConflict || e.Error != "その予定はもう一時停止中です。" {
		t.Errorf("pause = %d %q, want 409", code, e.Error)
	}
}
