package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	promodel "github.com/prometheus/common/model"

	"github.com/yorozu-bot/yorozu/llm/ollamatest"
)

// scrape fetches /metrics and parses it.
func scrape(t testing.TB, base string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
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

// TestMetricsAfterATurnAReminderAndAJob: a mention whose model calls
// create_reminder, the reminder's delivery and the knowledge-base job run at
// start all show on /metrics with the expected labels and counts.
func TestMetricsAfterATurnAReminderAndAJob(t *testing.T) {
	h := start(t, map[string]string{"LOG_FORMAT": "json", "METRICS_PUBLIC": "true"})
	stats := api.Metrics{PromptEvalCount: 120, EvalCount: 30, EvalDuration: time.Second}
	var mu sync.Mutex
	h.handle(func(req api.ChatRequest) ollamatest.Reply {
		mu.Lock()
		defer mu.Unlock()
		if last := req.Messages[len(req.Messages)-1]; last.Role == "tool" {
			r := ollamatest.Text("登録しました。")
			r.Metrics = stats
			return r
		}
		r := ollamatest.ToolCalls(ollamatest.Call("create_reminder", map[string]any{
			"content": "水やり", "due_at": time.Now().Add(2 * time.Second).Truncate(time.Second).Format(time.RFC3339),
		}))
		r.Metrics = stats
		return r
	})
	// Discord answers the first message with a 429 once; discordgo waits
	// and retries.
	h.discord.RateLimitNext(http.MethodPost, "/channels/"+channelID+"/messages", 1, 10*time.Millisecond)
	h.mention(aliceID, "リマインドして、水やり")
	h.waitReply(t, 1, equals("登録しました。"))
	h.waitReply(t, 2, func(c string) bool { return strings.Contains(c, "⏰ リマインド: 水やり") })

	wants := []want{
		w("yorozu_turns_total", L{"adapter": "discord", "handler": "reminder", "outcome": "ok"}, eq, 1),
		w("yorozu_turn_first_text_seconds", L{"adapter": "discord"}, eq, 1),
		w("yorozu_turn_duration_seconds", L{"adapter": "discord"}, eq, 1),
		w("yorozu_llm_requests_total", L{"model": model, "kind": "reply", "outcome": "ok"}, eq, 2),
		w("yorozu_llm_time_to_first_token_seconds", L{"model": model}, atLeast, 2),
		w("yorozu_llm_tokens_total", L{"model": model, "direction": "prompt"}, atLeast, 240),
		w("yorozu_llm_tokens_total", L{"model": model, "direction": "completion"}, atLeast, 60),
		w("yorozu_llm_queue_length", nil, eq, 0),
		w("yorozu_llm_queue_wait_seconds", nil, atLeast, 2),
		w("yorozu_tool_calls_total", L{"tool": "create_reminder", "outcome": "ok"}, eq, 1),
		w("yorozu_tool_duration_seconds", L{"tool": "create_reminder"}, eq, 1),
		w("yorozu_reminders_delivered_total", L{"outcome": "delivered"}, eq, 1),
		w("yorozu_reminder_lateness_seconds", nil, eq, 1),
		w("yorozu_jobs_total", L{"kind": "kb_sync", "outcome": "ok"}, atLeast, 1),
		w("yorozu_discord_requests_total", L{"route_group": "messages", "status_class": "2xx"}, atLeast, 2),
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
	// start-up job in the background: poll until everything is in.
	deadline := time.Now().Add(20 * time.Second)
	for {
		fams := scrape(t, h.httpURL)
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
	fams := scrape(t, h.httpURL)
	for name, f := range fams {
		for _, m := range f.Metric {
			for _, l := range m.Label {
				if regexp.MustCompile(`\d{15,}`).MatchString(l.GetValue()) {
					t.Errorf("%s has an id in label %s=%q", name, l.GetName(), l.GetValue())
				}
			}
		}
	}

	// Both calls of the turn carry one turn id in api_logs, and every JSON
	// log line that names a turn names that one.
	var ids []string
	rows, err := h.pool.Query(context.Background(), `SELECT DISTINCT turn_id FROM api_logs WHERE kind = 'reply'`)
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
	if len(ids) != 1 || len(ids[0]) != 16 {
		t.Fatalf("turn ids of the reply calls in api_logs = %q, want one", ids)
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
