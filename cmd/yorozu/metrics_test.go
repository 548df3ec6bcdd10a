package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	promodel "github.com/prometheus/common/model"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
	"github.com/yorozu-bot/yorozu/memory"
	"github.com/yorozu-bot/yorozu/scheduler"
)

// scrape fetches /metrics with c (logged in, unless METRICS_PUBLIC) and
// parses it.
func scrape(t testing.TB, c *http.Client, base string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := c.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/metrics = %d", resp.StatusCode)
	}
	p := expfmt.NewTextParser(promodel.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return fams
}

// sample is the value of the series name{labels} (a counter, a gauge, or a
// histogram's count), and whether it exists.
func sample(fams map[string]*dto.MetricFamily, name string, labels map[string]string) (float64, bool) {
	f := fams[name]
	if f == nil {
		return 0, false
	}
next:
	for _, m := range f.Metric {
		got := map[string]string{}
		for _, l := range m.Label {
			got[l.GetName()] = l.GetValue()
		}
		for k, v := range labels {
			if got[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}

type want struct {
	name   string
	labels map[string]string
	ok     func(float64) bool
	desc   string
}

func eq(n float64) (func(float64) bool, string) {
	return func(v float64) bool { return v == n }, fmt.Sprintf("= %g", n)
}

func atLeast(n float64) (func(float64) bool, string) {
	return func(v float64) bool { return v >= n }, fmt.Sprintf(">= %g", n)
}

func w(name string, labels map[string]string, f func(float64) (func(float64) bool, string), n float64) want {
	ok, desc := f(n)
	return want{name, labels, ok, desc}
}

type L = map[string]string

// weatherPostedBefore records, as the weather job does, that its post went
// out two minutes ago: yorozu starting now is a restart, which catches up.
func weatherPostedBefore(t *testing.T, dbURL string) {
	t.Helper()
	ctx := context.Background()
	pool, err := db.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := db.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	slot := time.Now().Truncate(time.Minute).Add(-2 * time.Minute)
	if ok, err := db.ClaimJobSlot(ctx, pool, scheduler.JobWeather, slot, time.Minute); err != nil || !ok {
		t.Fatalf("claim the weather slot: %v %v", ok, err)
	}
	if err := db.MarkJobSlotPosted(ctx, pool, scheduler.JobWeather, slot); err != nil {
		t.Fatal(err)
	}
}

// TestMetricsAfterATurnAReminderAndAJob: a Discord turn whose model calls
// four tools (one fails, one times out), a turn on the admin page, the
// reminder the first created, the knowledge-base sync and the weather post
// run at start all show on /metrics — behind the admin login — with the
// expected labels and counts.
func TestMetricsAfterATurnAReminderAndAJob(t *testing.T) {
	// A SearXNG that answers one query and hangs on the other.
	searxng := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("q") == "hang" {
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"results":[{"url":"https://example.org/yorozu","title":"よろず","content":"よろずは Discord のボットです。"}]}`)
	}))
	t.Cleanup(searxng.Close)
	dataDir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dataDir, "knowledge_base"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dataDir, "knowledge_base", "garden.md"), []byte("# 庭\n\n水やりは朝に。\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const weatherChannel = "200000000000000009"
	h := startHarness(t, map[string]string{
		"LOG_FORMAT":     "json",
		"ADMIN_PASSWORD": adminPassword,
		"SEARCH_BACKEND": "searxng",
		"SEARXNG_URL":    searxng.URL,
		"TOOL_TIMEOUT":   "2s",
		"DATA_DIR":       dataDir,
		"EMBED_MODEL":    model,
		"JMA_BASE_URL":   fakeJMA(t),
		// The slot of the minute just passed is posted at start (catch-up):
		// a restart, the post having run before.
		"WEATHER_CRON":       "* * * * *",
		"WEATHER_CHANNEL_ID": weatherChannel,
	}, func(h *harness) {
		h.discord.AddChannel(weatherChannel)
		weatherPostedBefore(t, h.dbURL)
	})

	stats := api.Metrics{PromptEvalCount: 120, EvalCount: 30, EvalDuration: time.Second}
	due := time.Now().Add(6 * time.Second).Truncate(time.Second).Format(time.RFC3339)
	h.handle(func(req api.ChatRequest) ollamatest.Reply {
		last := req.Messages[len(req.Messages)-1]
		var r ollamatest.Reply
		switch {
		case len(req.Tools) == 0: // the weather post's comment
			r = ollamatest.Text("洗濯日和です。")
		case last.Role == "tool":
			r = ollamatest.Text("登録しました。")
		case strings.Contains(last.Content, "管理画面"):
			r = ollamatest.Text("管理画面からこんにちは。")
		default:
			r = ollamatest.ToolCalls(
				ollamatest.Call("create_reminder", map[string]any{"content": "水やり", "due_at": due}),
				ollamatest.Call("web_search", map[string]any{"query": "よろず"}),
				ollamatest.Call("cancel_reminder", map[string]any{"reminder_id": 999999}),
				ollamatest.Call("web_search", map[string]any{"query": "hang"}),
			)
		}
		r.Metrics = stats
		return r
	})
	// Discord answers the first message with a 429 once; discordgo waits
	// and retries.
	h.discord.RateLimitNext(http.MethodPost, "/channels/"+channelID+"/messages", 1, 10*time.Millisecond)
	h.mention(aliceID, "水やりのこと、よろしく")
	h.waitReply(t, 1, equals("登録しました。"))
	h.waitReply(t, 2, func(c string) bool { return strings.Contains(c, "⏰ リマインド: 水やり") })
	admin := h.adminClient(t)
	if got := admin.stream(t, "管理画面から話しかけます"); !strings.Contains(got, "管理画面からこんにちは。") {
		t.Fatalf("web chat stream:\n%s", got)
	}

	// Logged out, /metrics is refused (METRICS_PUBLIC is unset).
	resp, err := http.Get(h.httpURL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("/metrics logged out = %d, want 401", resp.StatusCode)
	}

	wants := []want{
		w("yorozu_turns_total", L{"adapter": "discord", "handler": "chat", "outcome": "ok"}, eq, 1),
		w("yorozu_turns_total", L{"adapter": "web", "handler": "chat", "outcome": "ok"}, eq, 1),
		w("yorozu_turn_first_text_seconds", L{"adapter": "discord"}, eq, 1),
		w("yorozu_turn_first_text_seconds", L{"adapter": "web"}, eq, 1),
		w("yorozu_turn_duration_seconds", L{"adapter": "discord"}, eq, 1),
		w("yorozu_turn_duration_seconds", L{"adapter": "web"}, eq, 1),
		w("yorozu_llm_requests_total", L{"model": model, "kind": "reply", "outcome": "ok"}, eq, 3),
		w("yorozu_llm_requests_total", L{"model": model, "kind": "knowledge", "outcome": "ok"}, eq, 1),
		w("yorozu_llm_requests_total", L{"model": model, "kind": "embed", "outcome": "ok"}, atLeast, 1),
		w("yorozu_llm_requests_total", L{"model": model, "kind": "job", "outcome": "ok"}, atLeast, 1),
		w("yorozu_llm_time_to_first_token_seconds", L{"model": model}, atLeast, 3),
		w("yorozu_llm_tokens_total", L{"model": model, "direction": "prompt"}, atLeast, 360),
		w("yorozu_llm_tokens_total", L{"model": model, "direction": "completion"}, atLeast, 90),
		w("yorozu_llm_queue_length", nil, eq, 0),
		w("yorozu_llm_queue_wait_seconds", nil, atLeast, 3),
		w("yorozu_tool_calls_total", L{"tool": "create_reminder", "outcome": "ok"}, eq, 1),
		w("yorozu_tool_calls_total", L{"tool": "web_search", "outcome": "ok"}, eq, 1),
		w("yorozu_tool_calls_total", L{"tool": "web_search", "outcome": "timeout"}, eq, 1),
		w("yorozu_tool_calls_total", L{"tool": "cancel_reminder", "outcome": "error"}, eq, 1),
		w("yorozu_tool_duration_seconds", L{"tool": "create_reminder"}, eq, 1),
		w("yorozu_tool_duration_seconds", L{"tool": "web_search"}, eq, 2),
		w("yorozu_tool_duration_seconds", L{"tool": "cancel_reminder"}, eq, 1),
		w("yorozu_reminders_delivered_total", L{"outcome": "delivered"}, eq, 1),
		w("yorozu_reminder_lateness_seconds", nil, eq, 1),
		w("yorozu_jobs_total", L{"kind": "kb_sync", "outcome": "ok"}, atLeast, 1),
		w("yorozu_jobs_total", L{"kind": "weather", "outcome": "ok"}, atLeast, 1),
		w("yorozu_discord_requests_total", L{"route_group": "messages", "status_class": "2xx"}, atLeast, 3),
		w("yorozu_discord_requests_total", L{"route_group": "messages", "status_class": "4xx"}, eq, 1),
		w("yorozu_discord_requests_total", L{"route_group": "commands", "status_class": "2xx"}, atLeast, 1),
		w("yorozu_discord_rate_limited_total", nil, eq, 1),
		w("yorozu_discord_gateway", nil, eq, 1),
		w("yorozu_discord_reconnects_total", nil, eq, 0),
		w("yorozu_build_info", L{"version": "dev", "go_version": runtime.Version()}, eq, 1),
		w("go_goroutines", nil, atLeast, 1),
		w("process_resident_memory_bytes", nil, atLeast, 1),
	}
	// The reminder's delivery is counted after the message is out, the
	// start-up jobs and the knowledge in the background: poll until
	// everything is in.
	deadline := time.Now().Add(30 * time.Second)
	var fams map[string]*dto.MetricFamily
	for {
		fams = scrape(t, admin.http, h.httpURL)
		var bad []string
		for _, wt := range wants {
			v, ok := sample(fams, wt.name, wt.labels)
			if !ok || !wt.ok(v) {
				bad = append(bad, fmt.Sprintf("%s%v = %g (present %v), want %s", wt.name, wt.labels, v, ok, wt.desc))
			}
		}
		if len(bad) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("metrics not as expected:\n%s", strings.Join(bad, "\n"))
		}
		time.Sleep(20 * time.Millisecond)
	}

	// Label values stay bounded: no user, channel or message ids anywhere.
	for name, f := range fams {
		for _, m := range f.Metric {
			for _, l := range m.Label {
				if regexp.MustCompile(`\d{15,}`).MatchString(l.GetValue()) {
					t.Errorf("%s has an id in label %s=%q", name, l.GetName(), l.GetValue())
				}
			}
		}
	}

	// Both calls of the Discord turn carry one turn id in api_logs, and
	// every JSON log line that names a turn names one of the two turns.
	turnIDs := func(query string, args ...any) []string {
		var ids []string
		rows, err := h.pool.Query(context.Background(), query, args...)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		if rows.Err() != nil {
			t.Fatal(rows.Err())
		}
		return ids
	}
	discordTurn := turnIDs(`SELECT DISTINCT turn_id FROM api_logs WHERE kind = 'reply' AND session_key = $1`, string(memory.DiscordChannel(channelID)))
	if len(discordTurn) != 1 || len(discordTurn[0]) != 16 {
		t.Fatalf("turn ids of the Discord turn's calls in api_logs = %q, want one", discordTurn)
	}
	ids := turnIDs(`SELECT DISTINCT turn_id FROM api_logs WHERE kind = 'reply'`)
	if len(ids) != 2 {
		t.Fatalf("turn ids of the reply calls = %q, want two (Discord and the admin page)", ids)
	}
	for _, line := range strings.Split(strings.TrimSpace(h.stderr.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("LOG_FORMAT=json wrote a non-JSON line: %q", line)
		}
		if id, ok := rec["turn_id"]; ok && !slices.Contains(ids, id.(string)) {
			t.Errorf("log line with a foreign turn id: %s", line)
		}
	}
}

// stream sends message to the admin page's chat as a new conversation and
// returns the whole SSE answer.
func (c *adminClient) stream(t *testing.T, message string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"message": message})
	resp := c.send(t, http.MethodPost, "/chat/stream", bytes.NewReader(body))
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /chat/stream = %d, %v:\n%s", resp.StatusCode, err, out)
	}
	return string(out)
}
