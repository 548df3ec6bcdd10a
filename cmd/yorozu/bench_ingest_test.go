package main

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// ingestFor is how long BenchmarkTurnDuringIngest sends the busy channel's
// messages (issue 37: 1,000 a second for a minute), and how long it times
// turns in the quiet case too, so that the two compare like for like.
const ingestFor = time.Minute

// turnEvery paces the timed turns: each starts on an idle bot (the last
// one stored and settled), at most one per turnEvery.
const turnEvery = 250 * time.Millisecond

// BenchmarkTurnDuringIngest is BenchmarkTurn (a mention to its reply, the
// model instant) while another channel of the server, whose log is on, is
// sent members' messages through the gateway at 1,000 a second for a
// minute; to compare, while it is quiet for as long, and while it is as
// busy with its log off (the gateway's share of the cost without the
// log's). Messages come ten every 10 ms; the bursts case sends them 100
// every 100 ms, so a mention may arrive behind 100 others, which the
// gateway's one connection delivers, and the bot decodes, in order. Turns are timed all through the minute (b.N of them at least).
// Target: the busy median within noise of the quiet one, as the log takes
// messages in through its bounded queue and batched writes, off the
// turn's path. logged/s is what the log stored a second over the minute;
// unlogged are gateway messages it let go (none expected: the queue holds
// 10 s of them).
//
//	go test ./cmd/yorozu -run XXX -bench BenchmarkTurnDuringIngest -benchtime 1x -timeout 30m
func BenchmarkTurnDuringIngest(b *testing.B) {
	const busy = "600000000000000031"
	for _, bc := range []struct {
		name  string
		rate  int  // messages a second in the busy channel
		log   bool // its log on
		burst int  // messages sent at once (at rate/burst a second)
	}{
		{"quiet", 0, false, 0},
		{"ingest=1000/s/log=off", 1000, false, 10},
		{"ingest=1000/s", 1000, true, 10},
		{"ingest=1000/s/bursts=100", 1000, true, 100},
	} {
		rate := bc.rate
		b.Run(bc.name, func(b *testing.B) {
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
				on := bc.log
				if err := db.SetChannelLog(ctx, pool, guildID, busy, "", &on, aliceID); err != nil {
					b.Fatal(err)
				}
			})
			h.handle(func(req api.ChatRequest) ollamatest.Reply { return ollamatest.Text("了解です。") })

			stop := make(chan struct{})
			var wg sync.WaitGroup
			var sent atomic.Int64
			start := time.Now()
			if rate > 0 {
				wg.Go(func() {
					// Ten messages every 10 ms: members' messages come
					// one by one; the bursts case sends 100 every 100 ms.
					tick := time.NewTicker(time.Second * time.Duration(bc.burst) / time.Duration(rate))
					defer tick.Stop()
					for time.Since(start) < ingestFor {
						select {
						case <-stop:
							return
						case <-tick.C:
						}
						for range bc.burst {
							n := sent.Add(1)
							h.discord.SendMessage(&discordgo.Message{ChannelID: busy, GuildID: guildID,
								Content: "土曜のBBQは駅前に集合でお願いします。遅れる人は連絡してね " + strconv.FormatInt(n, 10),
								Author:  &discordgo.User{ID: bobID, Username: "bob"}})
						}
					}
				})
			}
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N || time.Since(start) < ingestFor; i++ {
				t0 := time.Now()
				h.mention(aliceID, "ベンチマークの質問です")
				h.waitReply(b, i+1, equals("了解です。"))
				lat = append(lat, time.Since(t0))
				b.StopTimer()
				h.settle(b, 2*(i+1))
				time.Sleep(time.Until(t0.Add(turnEvery)))
				b.StartTimer()
			}
			b.StopTimer()
			close(stop)
			wg.Wait()
			elapsed := time.Since(start)
			logged := 0
			if bc.log {
				logged = h.waitLogged(b, busy, int(sent.Load()))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ms-median")
			b.ReportMetric(float64(lat[len(lat)*9/10].Microseconds())/1000, "ms-p90")
			b.ReportMetric(float64(len(lat)), "turns")
			if bc.log {
				b.ReportMetric(float64(logged)/elapsed.Seconds(), "logged/s")
				b.ReportMetric(float64(int(sent.Load())-logged), "unlogged")
			}
		})
	}
}

// waitLogged waits until channel's log holds sent messages, or its count
// has stopped growing for two seconds (messages dropped), and returns it.
func (h *harness) waitLogged(b *testing.B, channel string, sent int) int {
	b.Helper()
	last, since := -1, time.Now()
	for {
		var n int
		if err := h.pool.QueryRow(context.Background(), "SELECT count(*) FROM channel_messages WHERE channel_id = $1", channel).Scan(&n); err != nil {
			b.Fatal(err)
		}
		if n >= sent {
			return n
		}
		if n != last {
			last, since = n, time.Now()
		} else if time.Since(since) > 2*time.Second {
			return n
		}
		time.Sleep(50 * time.Millisecond)
	}
}
