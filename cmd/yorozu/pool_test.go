package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// startTwoServers starts yorozu with two model servers: the harness's
// Ollama as gpu1 and a second fake as gpu2, both with the models.
func startTwoServers(t testing.TB, extraEnv map[string]string) (*harness, *ollamatest.Server) {
	t.Helper()
	gpu2 := ollamatest.New(t)
	gpu2.AddModel(model, "completion", "tools")
	gpu2.AddModel(embedModel, "embedding")
	h := startHarness(t, extraEnv, func(h *harness) {
		h.env["MODEL_SERVERS"] = fmt.Sprintf("ollama %s name=gpu1; ollama %s name=gpu2", h.ollama.URL(), gpu2.URL())
	})
	return h, gpu2
}

// handleOn answers the users' turns on srv with f, housekeeping with its
// fixed answers.
func handleOn(srv *ollamatest.Server, f func(req api.ChatRequest) ollamatest.Reply) {
	srv.Handle(func(req api.ChatRequest) ollamatest.Reply {
		if !isTurn(req) {
			return housekeeping(req)
		}
		return f(req)
	})
}

// mentionIn sends a mention of the bot from user in channel.
func (h *harness) mentionIn(channel, user, text string) {
	h.discord.SendMessage(&discordgo.Message{
		ChannelID: channel, GuildID: guildID,
		Content:  "<@" + h.discord.BotID() + "> " + text,
		Author:   &discordgo.User{ID: user, Username: "user" + user[len(user)-1:]},
		Mentions: []*discordgo.User{{ID: h.discord.BotID(), Bot: true}},
	})
}

// waitChannel waits until the bot's messages in channel are exactly want.
func (h *harness) waitChannel(t testing.TB, channel string, want ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := h.discord.WaitFor(ctx, func() bool {
		msgs := h.discord.BotMessages(channel)
		if len(msgs) != len(want) {
			return false
		}
		for i, m := range msgs {
			if m.Content != want[i] {
				return false
			}
		}
		return true
	})
	if err != nil {
		t.Fatalf("bot messages in %s = %+v, want %q", channel, h.discord.BotMessages(channel), want)
	}
}

// Two GPUs answer Alice and Bob at the same time: both questions reach a
// model before either answer is written, and nobody is told to wait.
func TestTwoModelServersAnswerTwoUsersAtOnce(t *testing.T) {
	h, gpu2 := startTwoServers(t, nil)
	const otherChannel = "200000000000000002"
	h.discord.AddChannel(otherChannel)
	gate := make(chan struct{})
	arrived := make(chan string, 2)
	for _, srv := range []*ollamatest.Server{h.ollama, gpu2} {
		handleOn(srv, func(req api.ChatRequest) ollamatest.Reply {
			q := req.Messages[len(req.Messages)-1].Content
			arrived <- q
			return ollamatest.Reply{Gate: gate, Chunks: []ollamatest.Chunk{{Content: "answer to " + q}}}
		})
	}
	h.mention(aliceID, "alice")
	h.mentionIn(otherChannel, bobID, "bob")
	// The first turn of a test binary waits for the dictionary, which
	// takes long under -race on a busy machine.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for range 2 {
		select {
		case <-arrived:
		case <-ctx.Done():
			t.Fatalf("both questions did not reach a model at once (gpu1 %d requests, gpu2 %d); bot messages: %+v %+v\nstderr:\n%s",
				len(h.ollama.Requests()), len(gpu2.Requests()), h.discord.BotMessages(channelID), h.discord.BotMessages(otherChannel), h.stderr.String())
		}
	}
	if h.ollama.InFlight() == 0 || gpu2.InFlight() == 0 {
		t.Errorf("in flight: gpu1 %d, gpu2 %d; want one on each", h.ollama.InFlight(), gpu2.InFlight())
	}
	close(gate)
	h.waitChannel(t, channelID, "answer to alice")
	h.waitChannel(t, otherChannel, "answer to bob")
}

// One GPU goes away mid-run: the next question is answered by the other,
// once, and the admin page's list of servers says which one is out.
func TestModelServerDownMidRun(t *testing.T) {
	h, gpu2 := startTwoServers(t, map[string]string{"ADMIN_PASSWORD": adminPassword})
	h.script()
	handleOn(gpu2, ollamatest.Echo)
	h.mention(aliceID, "一つ目")
	h.waitReply(t, 1, equals("一つ目"))

	h.ollama.Down()
	h.mention(aliceID, "二つ目")
	h.waitReply(t, 2, equals("二つ目"))
	h.mention(aliceID, "三つ目")
	h.waitReply(t, 3, equals("三つ目"))
	if msgs := h.discord.BotMessages(channelID); len(msgs) != 3 {
		t.Errorf("bot messages = %+v, want three answers, each once", msgs)
	}
	answered := 0
	for _, r := range gpu2.Requests() {
		if isTurn(r) {
			answered++
		}
	}
	if answered < 2 {
		t.Errorf("gpu2 answered %d turns, want the two after gpu1 went away", answered)
	}

	c := h.adminClient(t)
	var st struct {
		Servers []struct {
			Name string `json:"name"`
			Up   bool   `json:"up"`
		} `json:"servers"`
	}
	c.call(t, "GET", "/api/model-servers", &st)
	if len(st.Servers) != 2 || st.Servers[0].Name != "gpu1" || st.Servers[0].Up || !st.Servers[1].Up {
		t.Errorf("model servers = %+v, want gpu1 out, gpu2 up", st.Servers)
	}
}

// A wrong MODEL_SERVERS entry stops start-up with an error naming it.
func TestWrongModelServersEntryIsRefused(t *testing.T) {
	for _, tc := range []struct{ value, want string }{
		{"ollama http://gpu1:11434; llama http://gpu2:8080", `MODEL_SERVERS entry 2 ("llama http://gpu2:8080"): unknown kind "llama"`},
		{"openai http://gpu2:8080/v1 key=GPU2_KEY", "MODEL_SERVERS entry 1 (\"openai http://gpu2:8080/v1 key=GPU2_KEY\"): names key variable GPU2_KEY, which is unset"},
		{"ollama http://gpu1:11434 slots=0", `slots must be a whole number from 1 to 64, got "0"`},
	} {
		t.Run(tc.value, func(t *testing.T) {
			env := map[string]string{"MODEL_SERVERS": tc.value, "DATA_DIR": t.TempDir(), "HTTP_ADDR": "127.0.0.1:0"}
			var stderr strings.Builder
			err := run(context.Background(), nil, func(k string) string { return env[k] }, io.Discard, &stderr)
			if err == nil || !strings.Contains(err.Error()+stderr.String(), tc.want) {
				t.Errorf("run = %v (stderr %q), want an error saying %q", err, stderr.String(), tc.want)
			}
		})
	}
}

// BenchmarkFourUsersOnModelServers: four people in four channels ask at
// once; each answer takes the model 100 ms. ms-four-answers is the median
// time until all four are posted: about 400 ms on one one-slot server,
// about half that on two.
func BenchmarkFourUsersOnModelServers(b *testing.B) {
	channels := []string{channelID, "200000000000000002", "200000000000000003", "200000000000000004"}
	users := []string{aliceID, bobID, "400000000000000003", "400000000000000004"}
	for _, servers := range []int{1, 2} {
		b.Run(fmt.Sprintf("servers=%d", servers), func(b *testing.B) {
			env := map[string]string{"USER_RATE_LIMIT": "0"}
			var h *harness
			all := []*ollamatest.Server{}
			if servers == 1 {
				h = start(b, env)
				all = append(all, h.ollama)
			} else {
				var gpu2 *ollamatest.Server
				h, gpu2 = startTwoServers(b, env)
				all = append(all, h.ollama, gpu2)
			}
			for _, c := range channels[1:] {
				h.discord.AddChannel(c)
			}
			for _, srv := range all {
				handleOn(srv, func(req api.ChatRequest) ollamatest.Reply {
					r := ollamatest.Text("了解です。")
					r.Delay = 100 * time.Millisecond
					return r
				})
			}
			var lat []time.Duration
			b.ResetTimer()
			for i := range b.N {
				t0 := time.Now()
				var wg sync.WaitGroup
				for j, c := range channels {
					wg.Go(func() { h.mentionIn(c, users[j], fmt.Sprintf("質問 %d", i)) })
				}
				wg.Wait()
				for _, c := range channels {
					h.waitAnswersIn(b, c, i+1, "了解です。")
				}
				lat = append(lat, time.Since(t0))
				b.StopTimer()
				h.settleTagged(b, 8*(i+1))
				b.StartTimer()
			}
			b.StopTimer()
			b.ReportMetric(ms(median(lat)), "ms-four-answers")
		})
	}
}

// settleTagged waits until the database holds messages messages, all
// tagged: the housekeeping of the last round is done.
func (h *harness) settleTagged(b *testing.B, messages int) {
	b.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var total, untagged int
		err := h.pool.QueryRow(context.Background(), `
SELECT count(*), count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM message_tags t WHERE t.message_id = m.id))
FROM messages m`).Scan(&total, &untagged)
		if err != nil {
			b.Fatal(err)
		}
		if total == messages && untagged == 0 {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("not settled: %d messages (want %d), %d untagged", total, messages, untagged)
		}
		time.Sleep(time.Millisecond)
	}
}

// waitAnswersIn waits until n of the bot's messages in channel read text.
func (h *harness) waitAnswersIn(b *testing.B, channel string, n int, text string) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := h.discord.WaitFor(ctx, func() bool {
		got := 0
		for _, m := range h.discord.BotMessages(channel) {
			if m.Content == text {
				got++
			}
		}
		return got >= n
	})
	if err != nil {
		b.Fatalf("answer #%d in %s not posted: %v", n, channel, err)
	}
}
