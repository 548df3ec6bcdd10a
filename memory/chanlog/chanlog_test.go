package chanlog_test

import (
	"context"
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

// BenchmarkIngest: 60,000 messages (1,000/s for a minute) through the
// queue into Postgres; reports messages stored per second and drops.
func BenchmarkIngest(b *testing.B) {
	ctx := context.Background()
	pool := dbtest.New(b)
	const n = 60_000
	for i := 0; i < b.N; i++ {
		if _, err := pool.Exec(ctx, "TRUNCATE channel_messages"); err != nil {
			b.Fatal(err)
		}
		l := chanlog.New(pool, chanlog.Options{})
		if err := l.Start(ctx); err != nil {
			b.Fatal(err)
		}
		base := db.SnowflakeAt(time.Now())
		start := time.Now()
		for j := int64(0); j < n; j++ {
			l.Add(message(base+j, "土曜のBBQは駅前に集合でお願いします。遅れる人は連絡してね"))
		}
		if err := l.Flush(ctx); err != nil {
			b.Fatal(err)
		}
		elapsed := time.Since(start)
		l.Stop()
		b.ReportMetric(float64(l.Written())/elapsed.Seconds(), "msgs/s")
		b.ReportMetric(float64(l.Dropped()), "drops")
	}
}
