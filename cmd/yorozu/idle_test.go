package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// BenchmarkOutsideIdle is the outside driver's idle reading over a minute:
// the real binary, after one answered mention and its housekeeping, with
// no Discord traffic; it reports the transactions a second of yorozu's
// database (pg_stat_database) and logs which statements made them, sampled
// from pg_stat_activity meanwhile. Target: ≤ 2 a second. PostgreSQL 15
// counts a backend's transactions that touch no table (a ping) only when
// it later touches one or exits, so one minute's reading moves by a few
// tenths either way (docs/performance.md); the server's own log
// (log_min_duration_statement = 0 on that database) counts exactly.
//
//	go test -run '^$' -bench OutsideIdle -benchtime 1x -timeout 20m ./cmd/yorozu/
func BenchmarkOutsideIdle(b *testing.B) {
	bin := buildYorozu(b)
	for range b.N {
		h := newHarness(b, map[string]string{"USER_RATE_LIMIT": "0", "JMA_BASE_URL": fakeJMA(b)})
		h.startBinary(b, bin)
		h.openPool(b)
		q := footprintText(0)
		h.script(ollamatest.Text(footprintReply(q)))
		h.mention(aliceID, q)
		h.waitReply(b, 1, equals(footprintReply(q)))
		h.settleTest(b, 2)
		perSecond, made := h.idleSampled(b, time.Minute)
		b.ReportMetric(perSecond, "idle-tx/s")
		// Printed, not logged: a benchmark's log is cut after a few lines.
		fmt.Printf("idle %.2f transactions/s; statements seen in pg_stat_activity over the minute:\n%s", perSecond, made)
	}
}

// idleSampled is idleTransactions with a record of what made them: while
// it counts, it reads pg_stat_activity every few milliseconds and counts
// each statement a backend of yorozu's database started (a new
// query_start), by its first words. Two statements of one backend within
// a sample are seen as one, so the record explains the count, it is not
// the count.
func (h *harness) idleSampled(t testing.TB, d time.Duration) (float64, string) {
	t.Helper()
	stats := h.openStats(t, d)
	defer stats.close()
	ctx, conn, name := stats.ctx, stats.conn, stats.name
	type start struct {
		pid int32
		at  time.Time
	}
	seen := map[start]bool{}
	counts := map[string]int{}
	sample := func() {
		rows, err := conn.Query(ctx, `
SELECT pid, query_start, backend_type, left(regexp_replace(query, '\s+', ' ', 'g'), 90)
FROM pg_stat_activity WHERE datname = $1 AND query_start IS NOT NULL`, name)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var s start
			var kind, query string
			if err := rows.Scan(&s.pid, &s.at, &kind, &query); err != nil {
				t.Fatal(err)
			}
			if !seen[s] {
				seen[s] = true
				counts[kind+": "+query]++
			}
		}
	}
	// As idleTransactions: the window starts ten seconds into the quiet.
	time.Sleep(10 * time.Second)
	sample()
	clear(counts)
	a := stats.transactions()
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		sample()
		time.Sleep(3 * time.Millisecond)
	}
	n := stats.transactions() - a
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y string) int { return counts[y] - counts[x] })
	var out strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&out, "%5d  %s\n", counts[k], k)
	}
	return float64(n) / d.Seconds(), out.String()
}
