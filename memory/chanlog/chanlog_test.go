package chanlog_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/memory/chanlog"
)

func TestMain(m *testing.M) { dbtest.Main(m) }

func message(id int64, text string) db.ChannelMessage {
	return db.ChannelMessage{MessageID: id, Space: "guild:1", GuildID: "1", ChannelID: "10", AuthorID: "u1",
		CreatedAt: db.SnowflakeTime(id), Content: text}
}

// TestFullQueueDrops: while the writer cannot keep up, entries past the
// queue's size are dropped and counted, and Add never waits; what was
// queued is written once the writer runs, in order (an edit after its
// message applies).
func TestFullQueueDrops(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	l := chanlog.New(pool, chanlog.Options{QueueSize: 4})
	base := db.SnowflakeAt(time.Now())
	done := make(chan struct{})
	go func() { // the writer is not running: Add must still return
		for i := range int64(6) {
			l.Add(message(base+i, "こんにちは"))
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Add waited on a full queue")
	}
	if got := l.Dropped(); got != 2 {
		t.Errorf("dropped %d, want 2", got)
	}
	if err := l.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer l.Stop()
	// The queue is still full until the writer has taken it in: an edit
	// put now could be dropped as well.
	if err := l.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	l.Edit(db.ChannelMessageEdit{MessageID: base, Content: "こんばんは", EditedAt: time.Now()})
	if err := l.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	ms, err := db.SearchChannelLog(ctx, pool, db.ChannelLogQuery{Space: "guild:1", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 4 || ms[3].Content != "こんばんは" {
		t.Errorf("stored %+v; want 4 messages, the first edited", ms)
	}
}

// TestWriterYieldsThenWrites: while the rest of the process keeps taking
// connections from the pool (a stream of turns), the writer, which waits
// for a quiet moment before a batch, still writes every batch: its wait is
// bounded.
func TestWriterYieldsThenWrites(t *testing.T) {
	ctx := context.Background()
	pool := dbtest.New(t)
	busy, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		for busy.Err() == nil {
			if c, err := pool.Acquire(busy); err == nil {
				c.Release()
			}
			time.Sleep(time.Millisecond)
		}
	}()
	l := chanlog.New(pool, chanlog.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err := l.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer l.Stop()
	base := db.SnowflakeAt(time.Now())
	for i := range int64(3) {
		l.Add(message(base+i, "混んでいても書く"))
		fctx, fcancel := context.WithTimeout(ctx, 30*time.Second)
		err := l.Flush(fctx)
		fcancel()
		if err != nil {
			t.Fatalf("batch %d not written while the pool is busy: %v", i, err)
		}
	}
	if got := l.Written(); got != 3 {
		t.Errorf("written %d, want 3", got)
	}
}

// BenchmarkIngest: 60,000 messages into Postgres through the queue,
// offered at 1,000/s in tenths of a second as a busy gateway delivers them
// (paced_1000/s: a minute a run), five times as fast, and all at once (a
// burst past the queue's 10,000). Reports messages stored per second of
// the run and the messages dropped.
func BenchmarkIngest(b *testing.B) {
	for _, bc := range []struct {
		name string
		rate int // messages a second; 0: all at once
	}{{"paced_1000/s", 1000}, {"paced_5000/s", 5000}, {"burst", 0}} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			pool := dbtest.New(b)
			const n = 60_000
			quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
			for i := 0; i < b.N; i++ {
				if _, err := pool.Exec(ctx, "TRUNCATE channel_messages"); err != nil {
					b.Fatal(err)
				}
				l := chanlog.New(pool, chanlog.Options{Logger: quiet})
				if err := l.Start(ctx); err != nil {
					b.Fatal(err)
				}
				base := db.SnowflakeAt(time.Now())
				start := time.Now()
				step := n
				var tick *time.Ticker
				if bc.rate > 0 {
					step = bc.rate / 10
					tick = time.NewTicker(100 * time.Millisecond)
				}
				for j := int64(0); j < n; j++ {
					if tick != nil && j > 0 && j%int64(step) == 0 {
						<-tick.C
					}
					l.Add(message(base+j, "土曜のBBQは駅前に集合でお願いします。遅れる人は連絡してね"))
				}
				if tick != nil {
					tick.Stop()
				}
				if err := l.Flush(ctx); err != nil {
					b.Fatal(err)
				}
				elapsed := time.Since(start)
				l.Stop()
				b.ReportMetric(float64(l.Written())/elapsed.Seconds(), "msgs/s")
				b.ReportMetric(float64(l.Dropped()), "drops")
			}
		})
	}
}
