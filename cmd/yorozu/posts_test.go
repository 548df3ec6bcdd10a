package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// runJobNow runs "yorozu jobs run name" against h's database and fakes with
// env added, and fails the test if it failed.
func (h *harness) runJobNow(t *testing.T, name string, env map[string]string) {
	t.Helper()
	full := map[string]string{
		"DATABASE_URL": h.dbURL,
		"OLLAMA_HOST":  h.ollama.URL(),
		"TIMEZONE":     "Asia/Tokyo",
		"DATA_DIR":     t.TempDir(),
	}
	if time.Now().In(jstZone(t)).Hour() == 3 { // no tips in the 03:00 hour
		full["TIMEZONE"] = "UTC"
	}
	for k, v := range env {
		full[k] = v
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	if err := run(ctx, []string{"jobs", "run", name}, func(k string) string { return full[k] }, &stdout, &stderr); err != nil {
		t.Fatalf("jobs run %s: %v\n%s", name, err, stderr.String())
	}
}

// spaceOfCalls is the space of every model call of the scheduled posts so
// far, "" when they disagree or there are none.
func (h *harness) spaceOfCalls(t *testing.T) (string, int) {
	t.Helper()
	var space string
	var n int
	if err := h.pool.QueryRow(context.Background(), `SELECT CASE WHEN count(DISTINCT space) = 1 THEN min(space) ELSE '' END, count(*)
FROM api_logs WHERE kind = 'job'`).Scan(&space, &n); err != nil {
		t.Fatal(err)
	}
	return space, n
}

// TestScheduledPostsBelongToTheirSpace: a post through a webhook belongs
// to the space named by TIPS_SPACE / WEATHER_SPACE (its tips history, its
// model calls); a bot message belongs to the server of its channel, even
// when a space is configured. A bot post whose answer Discord lost is
// shown once.
func TestScheduledPostsBelongToTheirSpace(t *testing.T) {
	jmaURL := fakeJMA(t)
	const guildA, guildB = "300000000000000021", "300000000000000022"

	t.Run("webhook", func(t *testing.T) {
		h := start(t, map[string]string{"DISCORD_TOKEN": ""}) // only for its fakes and database
		h.script(ollamatest.Text("猫は一日の大半を寝て過ごします。"), ollamatest.Text("洗濯日和ですね！"))
		h.discord.AddWebhook("500000000000000001", "hook-token", channelID)
		hook := h.discord.URL() + "api/v10/webhooks/500000000000000001/hook-token"
		h.runJobNow(t, "tips", map[string]string{"TIPS_WEBHOOK_URL": hook, "TIPS_SPACE": guildB})
		h.runJobNow(t, "weather", map[string]string{"WEATHER_WEBHOOK_URL": hook, "WEATHER_SPACE": guildB, "JMA_BASE_URL": jmaURL})
		var tipSpace string
		if err := h.pool.QueryRow(context.Background(), "SELECT space FROM tips").Scan(&tipSpace); err != nil || tipSpace != "guild:"+guildB {
			t.Errorf("the tip is in space %q (%v); want TIPS_SPACE's guild:%s", tipSpace, err, guildB)
		}
		if space, n := h.spaceOfCalls(t); space != "guild:"+guildB || n != 2 {
			t.Errorf("%d model calls of the posts, in space %q; want both in guild:%s", n, space, guildB)
		}
		if n := len(h.discord.Messages(channelID)); n != 2 {
			t.Errorf("%d posts through the webhook, want 2", n)
		}
	})

	t.Run("bot message", func(t *testing.T) {
		const tipsChan, weatherChan = "600000000000000021", "600000000000000022"
		h := start(t, map[string]string{"DISCORD_TOKEN": ""})
		h.script(ollamatest.Text("猫は一日の大半を寝て過ごします。"), ollamatest.Text("洗濯日和ですね！"))
		for _, c := range []string{tipsChan, weatherChan} {
			h.discord.AddChannel(c)
			h.discord.PutChannelInGuild(c, guildA)
		}
		// Discord makes each post, but its first answer is lost.
		h.discord.LoseCreateResponses(tipsChan, 1, discordtest.LossServerError)
		h.discord.LoseCreateResponses(weatherChan, 1, discordtest.LossGarbage)
		bot := map[string]string{"DISCORD_TOKEN": "test-token", "DISCORD_API_BASE": h.discord.URL()}
		tips, weather := map[string]string{"TIPS_CHANNEL_ID": tipsChan, "TIPS_SPACE": guildB},
			map[string]string{"WEATHER_CHANNEL_ID": weatherChan, "WEATHER_SPACE": guildB, "JMA_BASE_URL": jmaURL}
		for k, v := range bot {
			tips[k], weather[k] = v, v
		}
		h.runJobNow(t, "tips", tips)
		h.runJobNow(t, "weather", weather)
		var tipSpace string
		if err := h.pool.QueryRow(context.Background(), "SELECT space FROM tips").Scan(&tipSpace); err != nil || tipSpace != "guild:"+guildA {
			t.Errorf("the tip is in space %q (%v); want its channel's guild:%s", tipSpace, err, guildA)
		}
		if space, n := h.spaceOfCalls(t); space != "guild:"+guildA || n != 2 {
			t.Errorf("%d model calls of the posts, in space %q; want both in guild:%s", n, space, guildA)
		}
		for _, c := range []string{tipsChan, weatherChan} {
			msgs := h.discord.BotMessages(c)
			if len(msgs) != 1 || msgs[0].Nonce == "" || !msgs[0].EnforceNonce {
				t.Errorf("channel %s has %d bot posts %+v; want one, with an enforced nonce", c, len(msgs), msgs)
			}
		}
		if msgs := h.discord.BotMessages(weatherChan); len(msgs) == 1 && len(msgs[0].Attachments) != 1 {
			t.Errorf("the weather post lost its chart: %+v", msgs[0].Attachments)
		}
	})
}

// TestKnowledgeBaseSyncWithMissingEmbedModelNamesThePull: the knowledge
// base cannot be indexed while EMBED_MODEL is not pulled; the job says
// which model and the command that pulls it.
func TestKnowledgeBaseSyncWithMissingEmbedModelNamesThePull(t *testing.T) {
	h := start(t, map[string]string{"DISCORD_TOKEN": ""}) // only for its fakes and database
	h.ollama.RemoveModel(embedModel)
	dataDir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dataDir, "knowledge_base"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dataDir, "knowledge_base", "rules.md"), []byte("# ルール\n猫の話は金曜日に"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"DATABASE_URL": h.dbURL, "OLLAMA_HOST": h.ollama.URL(), "DATA_DIR": dataDir, "EMBED_MODEL": embedModel}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	err := run(ctx, []string{"jobs", "run", "kb_sync"}, func(k string) string { return env[k] }, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), `model "`+embedModel+`" not found (run: ollama pull `+embedModel+`)`) {
		t.Fatalf("kb_sync with %s missing: err = %v", embedModel, err)
	}
}
