package scheduler

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// noPoll is a poll interval no test outlives: a reminder that goes out went
// because its queue was woken at its due time.
const noPoll = time.Hour

// A reminder goes out at its time with the queue's poll out of the
// picture: the scheduler wakes the queue when the reminder is due, for one
// made in this process and for one another process made (read from
// River's table), whether River made it available early or not.
func TestRemindersWakeTheQueueWhenDue(t *testing.T) {
	pool := newPool(t)
	fd := newFakeDiscord(t)
	fd.AddChannel("c1")
	// Another process, without Discord, makes reminders before this one
	// starts: only the table tells of them.
	other := newScheduler(t, pool, nil, Options{})
	s := newScheduler(t, pool, fd.session, Options{PollInterval: noPoll})
	now := time.Now()
	cases := []struct {
		name string
		by   *Scheduler
		in   time.Duration
	}{
		{"made here, due beyond River's look-ahead", s, riverSchedulerLookahead + 2*time.Second},
		{"made here, due soon", s, 2 * time.Second},
		{"made by another process", other, 3 * time.Second},
	}
	want := map[string]string{}
	for i, tc := range cases {
		r := create(t, tc.by.Reminders(), fmt.Sprintf("u%d", i), "c1", tc.name, now.Add(tc.in))
		want[fmt.Sprint(r.ID)] = tc.name
	}
	start(t, s)
	fd.waitFor(t, 30*time.Second, "the reminders", func() bool { return len(fd.posts("c1")) >= len(cases) })
	for _, c := range fd.posts("c1") {
		delete(want, decodeBody(t, c).Nonce)
	}
	if len(want) > 0 {
		t.Errorf("not delivered: %v", want)
	}
}

// A delivery River puts back for a few seconds — a retry after a failed
// post, a snooze while the scheduler's clock has not reached the due time
// (River's clock is ahead of it) — leaves the job available with a later
// scheduled_at, which no pass of River's scheduler notifies: the queue is
// woken at that time, with the poll out of the picture.
func TestShortRetryAndSnoozeWakeTheQueue(t *testing.T) {
	cases := []struct {
		name   string
		behind time.Duration // the scheduler's clock behind River's
		fail   int           // posts the fake Discord fails first
		due    time.Duration // from now on the scheduler's clock
	}{
		{name: "retried 2 s after a failed post", fail: 1, due: time.Second},
		{name: "snoozed until due on the scheduler's clock", behind: 3 * time.Second, due: 2 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pool := newPool(t)
			fd := newFakeDiscord(t)
			fd.AddChannel("c1")
			fd.rt.failPosts.Store(int32(tc.fail))
			clock := func() time.Time { return time.Now().Add(-tc.behind) }
			s := newScheduler(t, pool, fd.session, Options{PollInterval: noPoll, Now: clock})
			start(t, s)
			due := clock().Add(tc.due)
			rem := create(t, s.Reminders(), "u1", "c1", tc.name, due)
			fd.waitFor(t, 30*time.Second, "the delivery", func() bool { return len(fd.posts("c1")) >= 1 })
			pollDB(t, 5*time.Second, "delivery recorded", func() bool { return reminder(t, s, rem.ID).NotifiedAt != nil })
			got := reminder(t, s, rem.ID)
			if got.Attempts != tc.fail+1 || got.NotifiedAt.Before(due) {
				t.Errorf("delivered on attempt %d at %s, want attempt %d at or after %s", got.Attempts, got.NotifiedAt, tc.fail+1, due)
			}
		})
	}
}

// A bad due time list does no harm: the waker keeps each time once, in
// order, and forgets those past.
func TestWakerKeepsDueTimesInOrder(t *testing.T) {
	w := newWaker("q", nil, nil, nil)
	base := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	w.add(base.Add(3*time.Second), base.Add(time.Second), base.Add(3*time.Second), base.Add(2*time.Second))
	if got, _ := w.next(); !got.Equal(base.Add(time.Second)) {
		t.Fatalf("next = %v, want the earliest", got)
	}
	if !w.takeDue(base.Add(2 * time.Second)) {
		t.Fatal("nothing due at +2 s")
	}
	if got, ok := w.next(); !ok || !got.Equal(base.Add(3*time.Second)) || len(w.times) != 1 {
		t.Errorf("left %v, want +3 s once", w.times)
	}
	if w.takeDue(base) {
		t.Error("a time before every due time took something")
	}
}

// BenchmarkIdleTransactions counts the transactions a started scheduler
// with no due work makes a second over a minute (pg_stat_database of its
// database, read from the maintenance database so that reading does not
// count). Target: well under 2 a second, the whole process's budget. Run
// with -benchtime=1x.
func BenchmarkIdleTransactions(b *testing.B) {
	pool := newPool(b)
	fd := newFakeDiscord(b)
	s := newScheduler(b, pool, fd.session, Options{})
	start(b, s)
	ctx := context.Background()
	cfg := pool.Config().ConnConfig.Copy()
	name := cfg.Database
	cfg.Database = "postgres"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	count := func() int64 {
		var n int64
		if _, err := conn.Exec(ctx, `SELECT pg_stat_clear_snapshot()`); err != nil {
			b.Fatal(err)
		}
		if err := conn.QueryRow(ctx, `SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = $1`, name).Scan(&n); err != nil {
			b.Fatal(err)
		}
		return n
	}
	// Start-up's own transactions settle first.
	time.Sleep(10 * time.Second)
	const window = time.Minute
	b.ResetTimer()
	for range b.N {
		a := count()
		time.Sleep(window)
		b.ReportMetric(float64(count()-a)/window.Seconds(), "tx/s")
	}
}
