package db_test

import (
	"context"
	"errors"
	"testing"
	"time"

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

	// Delivered on the second attempt, as the worker records it.
	if err := db.RecordReminderAttempt(ctx, pool, a.ID, 1, "discord 500"); err != nil {
		t.Fatal(err)
	}
	if err := db.RecordOutcome(ctx, pool, db.Outcome{
		Delivery: db.Delivery{ReminderID: a.ID, Occurrence: a.DueAt, HandledAt: due, MessageID: "msg-1"}, Occurrences: 1, Attempts: 2,
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.RecordOutcome(ctx, pool, db.Outcome{
		Delivery: db.Delivery{ReminderID: b.ID, Occurrence: b.DueAt, HandledAt: due, Error: "discord 404 (10003): Unknown Channel"},
		Failed:   true, Occurrences: 1, Attempts: 1,
	}); err != nil {
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
	if err := db.RecordReminderAttempt(ctx, pool, 999999, 1, "x"); !errors.Is(err, db.ErrNotFound) {
		t.Errorf("record attempt of missing: %v, want ErrNotFound", err)
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
		o := db.Outcome{Delivery: db.Delivery{ReminderID: mk(due), Occurrence: due, HandledAt: at, MessageID: "m"}, Occurrences: 1, Attempts: 1}
		if err := db.RecordOutcome(ctx, pool, o); err != nil {
			t.Fatal(err)
		}
	}
	at := since.Add(10 * time.Minute)
	deliver(at, at.Add(2*time.Second))                    // on time
	deliver(at, at.Add(59*time.Second))                   // within the allowance
	deliver(at.Add(-3*time.Hour), at)                     // late: due while the bot was down
	deliver(since.Add(-time.Hour), since.Add(-time.Hour)) // before the period
	if err := db.RecordOutcome(ctx, pool, db.Outcome{
		Delivery: db.Delivery{ReminderID: mk(at), Occurrence: at, HandledAt: at, Error: "Missing Access"}, Failed: true, Attempts: 5,
	}); err != nil {
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

// TestClaimReminder: an occurrence is claimed only when it is due, the one
// asked for, pending and not paused; while one attempt's lease runs, no
// other takes it; a released claim is taken over at once, the next attempt
// seeing the token it replaces; recording the outcome ends the claim.
func TestClaimReminder(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	due := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	r, err := db.CreateReminder(ctx, pool, db.ReminderParams{ChannelID: "1", UserID: "2", Content: "x", DueAt: due})
	if err != nil {
		t.Fatal(err)
	}
	claim := func(token string, occurrence int64, dueBy time.Time) (string, error) {
		t.Helper()
		got, prior, err := db.ClaimReminder(ctx, pool, db.Claim{ID: r.ID, Token: token, Lease: time.Hour, Occurrence: occurrence, DueBy: dueBy})
		if err == nil && (got.ClaimToken != token || got.ClaimedUntil == nil || time.Until(*got.ClaimedUntil) < 59*time.Minute) {
			t.Fatalf("claimed %+v; want token %s for an hour", got, token)
		}
		return prior, err
	}
	for _, tc := range []struct {
		name       string
		occurrence int64
		dueBy      time.Time
	}{
		{"not due yet", 0, due.Add(-time.Second)},
		{"another occurrence", due.Unix() + 60, due},
		{"unknown", -1, due},
	} {
		if tc.occurrence == -1 {
			if _, _, err := db.ClaimReminder(ctx, pool, db.Claim{ID: 999999, Token: "0.1", Lease: time.Hour, DueBy: due}); !errors.Is(err, db.ErrNotClaimed) {
				t.Errorf("%s: %v, want ErrNotClaimed", tc.name, err)
			}
			continue
		}
		if _, err := claim("0.1", tc.occurrence, tc.dueBy); !errors.Is(err, db.ErrNotClaimed) {
			t.Errorf("%s: %v, want ErrNotClaimed", tc.name, err)
		}
	}
	if prior, err := claim("1.1", due.Unix(), due); err != nil || prior != "" {
		t.Fatalf("first claim: prior %q, %v", prior, err)
	}
	if _, err := claim("2.1", 0, due); !errors.Is(err, db.ErrNotClaimed) {
		t.Fatalf("second claim during the lease: %v; want ErrNotClaimed", err)
	}
	if err := db.ReleaseReminderClaim(ctx, pool, r.ID, "2.1"); err != nil {
		t.Fatal(err)
	}
	if _, err := claim("2.1", 0, due); !errors.Is(err, db.ErrNotClaimed) {
		t.Fatal("a release by an attempt that holds no claim let the claim go")
	}
	if err := db.ReleaseReminderClaim(ctx, pool, r.ID, "1.1"); err != nil {
		t.Fatal(err)
	}
	if prior, err := claim("1.2", 0, due); err != nil || prior != "1.1" {
		t.Fatalf("claim after a release: prior %q, %v; want taken over from 1.1", prior, err)
	}
	if err := db.RecordOutcome(ctx, pool, db.Outcome{Delivery: db.Delivery{ReminderID: r.ID, Occurrence: due, MessageID: "m"}, Occurrences: 1, Attempts: 1}); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.ReminderByID(ctx, pool, r.ID); got.ClaimToken != "" || got.ClaimedUntil != nil || got.NotifiedAt == nil {
		t.Errorf("after the outcome: %+v; want delivered, unclaimed", got)
	}
	if _, err := claim("3.1", 0, due); !errors.Is(err, db.ErrNotClaimed) {
		t.Errorf("claim of a delivered reminder: %v; want ErrNotClaimed", err)
	}
	paused, _ := db.CreateReminder(ctx, pool, db.ReminderParams{ChannelID: "1", UserID: "2", Content: "y", DueAt: due})
	if err := db.PauseReminder(ctx, pool, paused.ID, due); err != nil {
		t.Fatal(err)
	}
	if _, _, err := db.ClaimReminder(ctx, pool, db.Claim{ID: paused.ID, Token: "4.1", Lease: time.Hour, DueBy: due}); !errors.Is(err, db.ErrNotClaimed) {
		t.Errorf("claim of a paused reminder: %v; want ErrNotClaimed", err)
	}
}
