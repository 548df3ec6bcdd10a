package main

import (
	"context"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/db/dbtest"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// BenchmarkTurnAtHistory is BenchmarkTurn in a database holding years of
// history (dbtest.History: 1,000 conversations, all but their newest
// messages archived under summaries, three tags each, the bot's channel
// being one of them): 100, 100k and 1M messages, and 10M with
// YOROZU_BENCH_10M=1 (its fixture takes five minutes and 8 GB the first
// time). Besides the wait (ms-median, ms-p90) it reports what the
// database costs each turn, timed as yorozu waits for it by a proxy in
// front of PostgreSQL: db-ms/turn (every statement the turn causes, its
// background work included, River's polling left out), stmts/turn, and
// slowest-ms, the slowest single statement of all turns (logged with its
// SQL). ms-to-model is the median time from the mention to the model's
// request arriving at the fake Ollama: the work before the model call.
func BenchmarkTurnAtHistory(b *testing.B) {
	sizes := []struct {
		name string
		n    int
	}{{"100", 100}, {"100k", 100_000}, {"1M", 1_000_000}}
	if os.Getenv("YOROZU_BENCH_10M") != "" {
		sizes = append(sizes, struct {
			name string
			n    int
		}{"10M", 10_000_000})
	}
	for _, sz := range sizes {
		b.Run(sz.name, func(b *testing.B) {
			hist := dbtest.History{Messages: sz.n, Sessions: min(1000, max(1, sz.n/100))}
			dbURL := dbtest.HistoryURL(b, hist)
			var timer *dbTimer
			h := startHarness(b, map[string]string{"USER_RATE_LIMIT": "0"}, func(h *harness) {
				timer = newDBTimer(b, dbURL)
				h.dbURL = dbURL
				h.env["DATABASE_URL"] = timer.url(dbURL)
			})
			var mu sync.Mutex
			var asked time.Time
			h.ollama.HandleTimed(func(req api.ChatRequest, arrived time.Time) ollamatest.Reply {
				if !isTurn(req) {
					return housekeeping(req)
				}
				mu.Lock()
				if asked.IsZero() {
					asked = arrived
				}
				mu.Unlock()
				return ollamatest.Text("了解です。")
			})
			key, _, _ := hist.Session(0)
			var sessionID int64
			if err := h.pool.QueryRow(context.Background(), "SELECT id FROM sessions WHERE key = $1", key).Scan(&sessionID); err != nil {
				b.Fatal(err)
			}
			lastID := maxMessageID(b, h)

			b.ReportAllocs()
			lat := make([]time.Duration, 0, b.N)
			toModel := make([]time.Duration, 0, b.N)
			dbTime := make([]time.Duration, 0, b.N)
			var stmts int
			var slowest timedStatement
			b.ResetTimer()
			for i := range b.N {
				timer.start()
				mu.Lock()
				asked = time.Time{}
				mu.Unlock()
				t0 := time.Now()
				h.mention(aliceID, "ベンチマークの質問です")
				h.waitReply(b, i+1, equals("了解です。"))
				lat = append(lat, time.Since(t0))
				b.StopTimer()
				mu.Lock()
				toModel = append(toModel, asked.Sub(t0))
				mu.Unlock()
				h.settleSession(b, sessionID, lastID, 2*(i+1))
				var sum time.Duration
				for _, s := range timer.stop() {
					if strings.Contains(s.sql, "river_") {
						continue
					}
					stmts++
					sum += s.took
					if s.took > slowest.took {
						slowest = s
					}
				}
				dbTime = append(dbTime, sum)
				b.StartTimer()
			}
			b.StopTimer()
			reportTurns(b, h, lat)
			b.ReportMetric(ms(median(toModel)), "ms-to-model")
			b.ReportMetric(ms(median(dbTime)), "db-ms/turn")
			b.ReportMetric(float64(stmts)/float64(b.N), "stmts/turn")
			b.ReportMetric(ms(slowest.took), "slowest-ms")
			b.Logf("%s messages: slowest statement %v: %s", sz.name, slowest.took.Round(10*time.Microsecond), oneLine(slowest.sql, 300))
		})
	}
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

func maxMessageID(b *testing.B, h *harness) int64 {
	b.Helper()
	var id int64
	if err := h.pool.QueryRow(context.Background(), "SELECT COALESCE(max(id), 0) FROM messages").Scan(&id); err != nil {
		b.Fatal(err)
	}
	return id
}

// settleSession is settle for one conversation of a big history: it waits,
// untimed, until the last turn's messages are tagged and the conversation
// summarised when due, reading only that conversation's rows.
func (h *harness) settleSession(b *testing.B, sessionID, after int64, want int) {
	b.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var unsummarised, fresh, untagged int
		err := h.pool.QueryRow(context.Background(), `
SELECT count(*) FILTER (WHERE archived_at IS NULL),
       count(*) FILTER (WHERE id > $2),
       count(*) FILTER (WHERE id > $2 AND NOT EXISTS (SELECT 1 FROM message_tags t WHERE t.message_id = m.id))
FROM messages m WHERE session_id = $1`, sessionID, after).Scan(&unsummarised, &fresh, &untagged)
		if err != nil {
			b.Fatal(err)
		}
		if fresh == want && unsummarised < 30 && untagged == 0 {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("not settled: %d new messages (want %d), %d unsummarised, %d untagged", fresh, want, unsummarised, untagged)
		}
		time.Sleep(time.Millisecond)
	}
}
