package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

func TestReminderLifecycle(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	due := time.Date(2026, 12, 1, 9, 0, 0, 0, time.FixedZone("JST", 9*3600))

	mk := func(user, channel, content string, due time.Time) db.Reminder {
		t.Helper()
		r, err := db.CreateReminder(ctx, pool, db.ReminderParams{
			SessionKey: "discord:channel:" + channel, ChannelID: channel, UserID: user,
			Content: content, DueAt: due, SourceMessageID: "m1",
		})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a := mk("u1", "c1", "燃えるゴミ", due)
	b := mk("u1", "c1", "会議", due.Add(-time.Hour))
	c := mk("u1", "c2", "other channel", due)
	_ = mk("u2", "c1", "someone else", due)

	if !a.DueAt.Equal(due) || a.DueAt.Location() != time.UTC || !a.Pending() || a.Attempts != 0 {
		t.Fatalf("created %+v", a)
	}
	if err := db.SetReminderJob(ctx, pool, a.ID, 42); err != nil {
		t.Fatal(err)
	}

	list, err := db.PendingReminders(ctx, pool, "u1", "c1")
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != b.ID || list[1].ID != a.ID || *list[1].JobID != 42 {
		t.Fatalf("pending in c1 = %+v, want b then a", list)
	}
	if n, err := db.CountPendingReminders(ctx, pool, "u1"); err != nil || n != 3 {
		t.Fatalf("count = %d, %v; want 3", n, err)
	}

	// Only one's own, only pending.
	if _, err := db.CancelReminder(ctx, pool, a.ID, "u2", "", time.Now()); !errors.Is(err, db.ErrNotFound) {
		t.Fatalf("cancel someone else's: %v, want ErrNotFound", err)
	}
	if _, err := db.CancelReminder(ctx, pool, 999999, "u1", "", time.Now()); !errors.Is(err, db.ErrNotFound) {
		t.Fatalf("cancel missing: %v, want ErrNotFound", err)
	}
	got, err := db.CancelReminder(ctx, pool, c.ID, "u1", "", time.Now())
	if err != nil || got.CancelledAt == nil {
		t.Fatalf("cancel own: %+v, %v", got, err)
	}
	if _, err := db.CancelReminder(ctx, pool, c.ID, "u1", "", time.Now()); !errors.Is(err, db.ErrReminderNotPending) {
		t.Fatalf("cancel twice: %v, want ErrReminderNotPending", err)
	}

	// Delivery in a transaction holding the row lock.
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		r, err := db.LockReminderForDelivery(ctx, tx, a.ID)
		if err != nil {
			return err
		}
		if err := db.RecordReminderAttempt(ctx, tx, r.ID, 1, "discord 500"); err != nil {
			return err
		}
		return db.MarkReminderDelivered(ctx, tx, r.ID, "msg-1", due, 2)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.MarkReminderFailed(ctx, pool, b.ID, due, 1, "discord 404 (10003): Unknown Channel"); err != nil {
		t.Fatal(err)
	}
	a, _ = db.ReminderByID(ctx, pool, a.ID)
	b, _ = db.ReminderByID(ctx, pool, b.ID)
	if a.NotifiedAt == nil || a.MessageID != "msg-1" || a.Attempts != 2 || a.LastError != "" || a.Pending() {
		t.Errorf("delivered = %+v", a)
	}
	if b.FailedAt == nil || b.LastError == "" || b.Pending() {
		t.Errorf("failed = %+v", b)
	}
	if _, err := db.CancelReminder(ctx, pool, a.ID, "u1", "", time.Now()); !errors.Is(err, db.ErrReminderNotPending) {
		t.Errorf("cancel delivered: %v, want ErrReminderNotPending", err)
	}
	if n, _ := db.CountPendingReminders(ctx, pool, "u1"); n != 0 {
		t.Errorf("pending after all = %d, want 0", n)
	}
	if _, err := db.LockReminderForDelivery(ctx, pool, 999999); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("lock missing: %v, want ErrNotFound", err)
	}
	if err := db.MarkReminderDelivered(ctx, pool, 999999, "x", due, 1); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("mark missing: %v, want ErrNotFound", err)
	}
}

// TestCountRemindersSince: delivered and given-up reminders of the period
// count, late ones are those posted more than the allowance after their
// time; pending ones and earlier deliveries do not count.
func TestCountRemindersSince(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	since := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	mk := func(due time.Time) int64 {
		r, err := db.CreateReminder(ctx, pool, db.ReminderParams{ChannelID: "1", UserID: "2", Content: "x", DueAt: due})
		if err != nil {
			t.Fatal(err)
		}
		return r.ID
	}
	deliver := func(due, at time.Time) {
		if err := db.MarkReminderDelivered(ctx, pool, mk(due), "m", at, 1); err != nil {
			t.Fatal(err)
		}
	}
	at := since.Add(10 * time.Minute)
	deliver(at, at.Add(2*time.Second))                    // on time
	deliver(at, at.Add(59*time.Second))                   // within the allowance
	deliver(at.Add(-3*time.Hour), at)                     // late: due while the bot was down
	deliver(since.Add(-time.Hour), since.Add(-time.Hour)) // before the period
	if err := db.MarkReminderFailed(ctx, pool, mk(at), at, 5, "Missing Access"); err != nil {
		t.Fatal(err)
	}
	mk(at.Add(time.Hour)) // pending
	got, err := db.CountRemindersSince(ctx, pool, since, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if want := (db.ReminderCounts{Delivered: 3, Late: 1, Failed: 1}); got != want {
		t.Errorf("CountRemindersSince = %+v, want %+v", got, want)
	}
}
