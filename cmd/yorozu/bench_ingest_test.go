package main

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// BenchmarkTurnDuringIngest is BenchmarkTurn (a mention to its reply, the
// model instant) while another channel of the server, whose log is on, is
// sent members' messages through the gateway at 1,000 a second, and, to
// compare, while it is quiet. Target: the busy median within noise of the
// quiet one, as the log takes messages in through its bounded queue and
// batched writes, off the turn's path. logged/s is what the log stored a
// second while the turns ran; drops are gateway messages it let go.
func BenchmarkTurnDuringIngest(b *testing.B) {
	const busy = "600000000000000031"
	for _, rate := range []int{0, 1000} {
		b.Run("ingest="+strconv.Itoa(rate)+"/s", func(b *testing.B) {
			h := startHarness(b, map[string]string{"USER_RATE_LIMIT": "0"}, func(h *harness) {
				h.discord.AddChannel(busy)
				h.discord.PutChannelInGuild(busy, guildID)
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				pool, err := db.Open(ctx, h.dbURL)
				if err != nil {
					b.Fatal(err)
				}
				defer pool.Close()
				on := true
				if err := db.SetChannelLog(ctx, pool, guildID, busy, "", &on, aliceID); err != nil {
					b.Fatal(err)
				}
			})
			h.handle(func(req api.ChatRequest) ollamatest.Reply { return ollamatest.Text("了解です。") })

			stop := make(chan struct{})
			var wg sync.WaitGroup
			var sent int
			start := time.Now()
			if rate > 0 {
				wg.Go(func() {
					tick := time.NewTicker(100 * time.Millisecond)
					defer tick.Stop()
					for {
						select {
						case <-stop:
							return
						case <-tick.C:
						}
						for range rate / 10 {
							sent++
							h.discord.SendMessage(&discordgo.Message{ChannelID: busy, GuildID: guildID,
								Content: "土曜のBBQは駅前に集合でお願いします。遅れる人は連絡してね " + strconv.Itoa(sent),
								Author:  &discordgo.User{ID: bobID, Username: "bob"}})
						}
					}
				})
			}
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := range b.N {
				t0 := time.Now()
				h.mention(aliceID, "ベンチマークの質問です")
				h.waitReply(b, i+1, equals("了解です。"))
				lat = append(lat, time.Since(t0))
				b.StopTimer()
				h.settle(b, 2*(i+1))
				b.StartTimer()
			}
			b.StopTimer()
			close(stop)
			wg.Wait()
			elapsed := time.Since(start)
			var logged int
			if err := h.pool.QueryRow(context.Background(), "SELECT count(*) FROM channel_messages WHERE channel_id = $1", busy).Scan(&logged); err != nil {
				b.Fatal(err)
			}
			reportTurns(b, h, lat)
			b.ReportMetric(float64(logged)/elapsed.Seconds(), "logged/s")
			b.ReportMetric(float64(sent-logged), "unlogged")
		})
	}
}
