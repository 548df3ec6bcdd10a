package db_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

// channelLogAtMillion is the million-message fixture (dbtest.History)
// copied into the channel log, one server's channel per conversation, with
// snowflake ids made from each message's time.
func channelLogAtMillion(b *testing.B) *pgxpool.Pool {
	b.Helper()
	pool := dbtest.NewHistory(b, dbtest.History{})
	ctx := context.Background()
	for _, q := range []string{
		`INSERT INTO channel_messages (message_id, space, guild_id, channel_id, author_id, author_name, author_kind, created_at, content)
		 SELECT ((extract(epoch FROM m.created_at) * 1000)::bigint - 1420070400000) << 22 | (m.id & 4194303),
		        s.space, s.guild_id, s.channel_id, CASE WHEN m.role = 'user' THEN 'u' || (m.id % 50) ELSE 'bot' END,
		        CASE WHEN m.role = 'user' THEN 'user' || (m.id % 50) ELSE 'yorozu' END,
		        CASE WHEN m.role = 'user' THEN 'member' ELSE 'self' END, m.created_at, m.content
		 FROM messages m JOIN sessions s ON s.id = m.session_id
		 WHERE s.guild_id <> '' AND m.role IN ('user', 'assistant')`,
		`VACUUM (ANALYZE) channel_messages`,
	} {
		if _, err := pool.Exec(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	return pool
}

// BenchmarkChannelLogAtMillion searches a channel log of about a million
// messages (a server's hundred thousand) for common, rare and absent
// words, narrowed by channel and author too, and reports each search's p50
// and p95 (target: p95 under 100 ms); then deletes its oldest tenth the
// way the retention job does, 5,000 rows a DELETE, and reports the
// batches' p50 and longest (how long any one statement holds its locks).
func BenchmarkChannelLogAtMillion(b *testing.B) {
	pool := channelLogAtMillion(b)
	ctx := context.Background()
	var space, channel string
	var total int
	if err := pool.QueryRow(ctx, `SELECT space, channel_id FROM channel_messages ORDER BY message_id DESC LIMIT 1`).Scan(&space, &channel); err != nil {
		b.Fatal(err)
	}
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM channel_messages`).Scan(&total); err != nil {
		b.Fatal(err)
	}
	b.Logf("%d logged messages", total)
	for _, q := range []db.ChannelLogQuery{
		{Query: "天気"}, {Query: "ラーメン 猫"}, {Query: "python"}, {Query: "東京タワー"}, {Query: "富士山"},
		{Query: "天気", ChannelID: channel}, {Query: "天気", Author: "u7"}, {Query: "天気", Since: time.Now().Add(-30 * 24 * time.Hour)},
	} {
		q.Space, q.Limit = space, 10
		name := q.Query
		switch {
		case q.ChannelID != "":
			name += "/channel"
		case q.Author != "":
			name += "/author"
		case !q.Since.IsZero():
			name += "/30d"
		}
		b.Run(name, func(b *testing.B) {
			var ds []time.Duration
			var n int
			for b.Loop() {
				start := time.Now()
				hits, err := db.SearchChannelLog(ctx, pool, q)
				if err != nil {
					b.Fatal(err)
				}
				ds = append(ds, time.Since(start))
				n = len(hits)
			}
			reportQuantiles(b, ds)
			b.ReportMetric(float64(n), "hits")
		})
	}
	b.Run("retention", func(b *testing.B) {
		var oldest time.Time
		if err := pool.QueryRow(ctx, `SELECT min(created_at) FROM channel_messages`).Scan(&oldest); err != nil {
			b.Fatal(err)
		}
		cutoff := oldest.Add(time.Since(oldest) / 10)
		for b.Loop() {
			var ds []time.Duration
			var deleted int64
			for {
				start := time.Now()
				n, err := db.DeleteChannelMessagesBefore(ctx, pool, cutoff, 5000)
				if err != nil {
					b.Fatal(err)
				}
				ds = append(ds, time.Since(start))
				deleted += n
				if n < 5000 {
					break
				}
			}
			reportQuantiles(b, ds)
			b.ReportMetric(float64(deleted), "deleted")
			b.ReportMetric(float64(len(ds)), "batches")
			cutoff = cutoff.Add(time.Since(oldest) / 100) // the next run has rows to delete
		}
	})
}

func reportQuantiles(b *testing.B, ds []time.Duration) {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(ds[len(ds)*95/100].Microseconds())/1000, "p95-ms")
	b.ReportMetric(float64(ds[len(ds)-1].Microseconds())/1000, "max-ms")
}
