package db_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/db/dbtest"
)

// BenchmarkSearchAtMillion searches a database of a million messages
// (dbtest.History) for common, rare and absent words in Japanese and
// English, and reports each search's p50 and p95. Target: under 100 ms.
func BenchmarkSearchAtMillion(b *testing.B) {
	pool := dbtest.NewHistory(b, dbtest.History{})
	ctx := context.Background()
	// The fixture is loaded with triggers off: index it as the trigger
	// would have, message by message as they came.
	for _, q := range []string{
		`INSERT INTO message_search (message_id, terms)
		 SELECT id, array_to_tsvector(yorozu_search_terms(content)) FROM messages ON CONFLICT DO NOTHING`,
		`VACUUM (ANALYZE) message_search`,
	} {
		if _, err := pool.Exec(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	for _, q := range []string{"天気", "ラーメン 猫", "python", "設定を見直す", "東京タワー", "富士山"} {
		b.Run(q, func(b *testing.B) {
			var ds []time.Duration
			var n int
			for b.Loop() {
				start := time.Now()
				hits, err := db.SearchMessages(ctx, pool, q, 50)
				if err != nil {
					b.Fatal(err)
				}
				ds = append(ds, time.Since(start))
				n = len(hits)
			}
			sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
			b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(ds[len(ds)*95/100].Microseconds())/1000, "p95-ms")
			b.ReportMetric(float64(n), "hits")
		})
	}
}
