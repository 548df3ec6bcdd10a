package scheduler

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
)

// bulkReminders inserts n reminders with their jobs straight into the
// database, due at due(i), in channels ch(i).
func bulkReminders(b *testing.B, s *Scheduler, n int, ch func(int) string, due func(int) time.Time) {
	b.Helper()
	ctx := context.Background()
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var params []river.InsertManyParams
		for i := range n {
			var id int64
			d := due(i)
			if err := tx.QueryRow(ctx, `INSERT INTO reminders (channel_id, user_id, content, due_at) VALUES ($1, $2, $3, $4) RETURNING id`,
				ch(i), fmt.Sprintf("u%d", i%500), fmt.Sprintf("bulk %d", i), d).Scan(&id); err != nil {
				return err
			}
			params = append(params, river.InsertManyParams{Args: reminderArgs{ReminderID: id}, InsertOpts: &river.InsertOpts{ScheduledAt: d}})
		}
		_, err := s.client.InsertManyFastTx(ctx, tx, params)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
}

func percentile(ds []time.Duration, p float64) time.Duration {
	slices.Sort(ds)
	return ds[min(len(ds)-1, int(float64(len(ds))*p))]
}

// BenchmarkLatenessWith10kPending measures how late reminders made 10 s
// ahead go out while 10,000 others are pending. Target: p99 ≤ 1 s.
// Run with -benchtime=1x.
func BenchmarkLatenessWith10kPending(b *testing.B) {
	pool := newPool(b)
	fd := newFakeDiscord(b)
	fd.AddChannel("c1")
	s := newScheduler(b, pool, fd.session, Options{MaxPending: 1 << 20})
	base := time.Now().Add(24 * time.Hour)
	bulkReminders(b, s, 10_000, func(int) string { return "far" }, func(i int) time.Time { return base.Add(time.Duration(i) * time.Second) })
	start(b, s)

	const n = 100
	var late []time.Duration
	b.ResetTimer()
	for range b.N {
		before := len(fd.posts("c1"))
		dues := map[string]time.Time{}
		t0 := time.Now()
		for i := range n {
			due := t0.Add(10*time.Second + time.Duration(i)*50*time.Millisecond)
			r := create(b, s.Reminders(), fmt.Sprintf("u%d", i), "c1", "x", due)
			dues[fmt.Sprint(r.ID)] = due
		}
		fd.waitFor(b, 60*time.Second, "deliveries", func() bool { return len(fd.posts("c1")) >= before+n })
		for _, c := range fd.posts("c1")[before:] {
			late = append(late, c.Time.Sub(dues[decodeBody(b, c).Nonce]))
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(percentile(late, 0.5).Milliseconds()), "p50-late-ms")
	b.ReportMetric(float64(percentile(late, 0.99).Milliseconds()), "p99-late-ms")
	b.ReportMetric(float64(percentile(late, 1).Milliseconds()), "max-late-ms")
}

// BenchmarkBurst1000SameSecond measures how long 1,000 reminders due in the
// same second take to reach an instant fake Discord. Target: ≤ 5 s.
// Run with -benchtime=1x.
func BenchmarkBurst1000SameSecond(b *testing.B) {
	const n = 1000
	pool := newPool(b)
	fd := newFakeDiscord(b)
	channels := make([]string, 50)
	for i := range channels {
		channels[i] = fmt.Sprintf("c%d", i)
		fd.AddChannel(channels[i])
	}
	s := newScheduler(b, pool, fd.session, Options{ReminderWorkers: 50})
	start(b, s)
	count := func() int {
		k := 0
		for _, c := range fd.Calls() {
			if c.Method == http.MethodPost && strings.HasSuffix(c.Path, "/messages") {
				k++
			}
		}
		return k
	}
	var took time.Duration
	b.ResetTimer()
	for range b.N {
		before := count()
		due := time.Now().Add(8 * time.Second).Truncate(time.Second)
		bulkReminders(b, s, n, func(i int) string { return channels[i%len(channels)] }, func(int) time.Time { return due })
		fd.waitFor(b, 60*time.Second, "deliveries", func() bool { return count() >= before+n })
		calls := fd.Calls()
		took = max(took, calls[len(calls)-1].Time.Sub(due))
	}
	b.StopTimer()
	b.ReportMetric(took.Seconds(), "s-for-1000")
}
