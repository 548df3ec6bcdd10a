package main

import (
	"bytes"
	"context"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/internal/logtest"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
	"github.com/yorozu-bot/yorozu/tools/reminder"
)

// scriptReminder makes the model create a reminder of content due three
// seconds after it is asked (due_at written in zone), then confirm with
// confirm. It returns when the reminder falls due.
func scriptReminder(h *harness, content, confirm string, zone *time.Location) (due func() time.Time) {
	var mu sync.Mutex
	var at time.Time
	h.handle(func(req api.ChatRequest) ollamatest.Reply {
		if last := req.Messages[len(req.Messages)-1]; last.Role == "tool" {
			return ollamatest.Text(confirm)
		}
		mu.Lock()
		defer mu.Unlock()
		at = time.Now().Add(3 * time.Second).Truncate(time.Second)
		return ollamatest.ToolCalls(ollamatest.Call("create_reminder", map[string]any{
			"content": content, "due_at": at.In(zone).Format(time.RFC3339),
		}))
	})
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return at
	}
}

// TestReminderEndToEnd: a mention routed to the reminder handler, the model
// calls create_reminder, and the reminder is delivered in the channel at its
// time, mentioning only the user.
func TestReminderEndToEnd(t *testing.T) {
	h := start(t, nil)
	scriptReminder(h, "ゴミ出し @everyone", "リマインダーを登録しました。", time.FixedZone("JST", 9*3600))
	h.mention(aliceID, "リマインドして、ゴミ出し")
	h.waitReply(t, 1, equals("リマインダーを登録しました。"))

	// The tools offered were the reminder tools only.
	if tl := h.turns()[0].Tools; len(tl) != len(reminder.Names) {
		t.Errorf("reminder handler offered %d tools, want the %d reminder tools", len(tl), len(reminder.Names))
	}
	delivered := h.waitReply(t, 2, func(c string) bool { return strings.Contains(c, "ゴミ出し") })
	if !strings.Contains(delivered.Content, "<@"+aliceID+">") {
		t.Errorf("reminder does not mention the user: %q", delivered.Content)
	}
	if am := delivered.AllowedMentions; am == nil || len(am.Parse) != 0 || len(am.Users) != 1 || am.Users[0] != aliceID {
		t.Errorf("allowed_mentions = %+v, want only the user", am)
	}
	h.waitCount(t, `SELECT count(*) FROM reminders WHERE notified_at IS NOT NULL AND message_id <> ''`, 1)
}

// TestReminderDueWhileDownIsDeliveredOnceAfterStart: yorozu stops between
// creating a reminder and its time; nothing is sent while it is down, and
// the next start delivers it, once.
func TestReminderDueWhileDownIsDeliveredOnceAfterStart(t *testing.T) {
	h := start(t, nil)
	due := scriptReminder(h, "会議の準備", "登録しました。", time.UTC)
	h.mention(aliceID, "リマインドして、会議の準備")
	h.waitReply(t, 1, equals("登録しました。"))
	if err := h.stop(); err != nil {
		t.Fatal(err)
	}

	// Let the reminder fall due while yorozu is down.
	time.Sleep(time.Until(due()) + time.Second)
	if n := len(h.discord.BotMessages(channelID)); n != 1 {
		t.Fatalf("%d bot messages while yorozu was down, want only the confirmation", n)
	}

	h.startRun(t, h.env)
	h.waitReply(t, 2, func(c string) bool { return strings.Contains(c, "会議の準備") })
	h.waitCount(t, `SELECT count(*) FROM reminders WHERE notified_at IS NOT NULL`, 1)
	var posts int
	for _, c := range h.discord.Calls() {
		if c.Method == http.MethodPost && strings.Contains(c.Content, "⏰ リマインド: 会議の準備") {
			posts++
		}
	}
	if posts != 1 {
		t.Errorf("the reminder was posted %d times, want once", posts)
	}
}

// TestWeatherJobRunsOnceNow: "yorozu jobs run weather" fetches the JMA
// forecast and posts it through the webhook, with the model's comment.
func TestWeatherJobRunsOnceNow(t *testing.T) {
	h := start(t, map[string]string{"DISCORD_TOKEN": ""}) // only for its fakes and database
	jmaURL := fakeJMA(t)
	h.discord.AddWebhook("500000000000000001", "hook-token", channelID)
	h.script(ollamatest.Text("洗濯日和ですね！"))

	var stdout, stderr bytes.Buffer
	env := map[string]string{
		"DATABASE_URL":        h.dbURL,
		"OLLAMA_HOST":         h.ollama.URL(),
		"JMA_BASE_URL":        jmaURL,
		"WEATHER_WEBHOOK_URL": h.discord.URL() + "api/v10/webhooks/500000000000000001/hook-token",
		"TIMEZONE":            "Asia/Tokyo",
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := run(ctx, []string{"jobs", "run", "weather"}, func(k string) string { return env[k] }, &stdout, &stderr); err != nil {
		t.Fatalf("jobs run weather: %v\n%s", err, stderr.String())
	}
	msgs := h.discord.Messages(channelID)
	if len(msgs) != 1 || !strings.Contains(msgs[0].Content, "洗濯指数") || !strings.Contains(msgs[0].Content, "出典：気象庁") || !strings.Contains(msgs[0].Content, "洗濯日和ですね！") {
		t.Fatalf("weather post = %+v", msgs)
	}
	if a := msgs[0].Attachments; len(a) != 1 || a[0].ContentType != "image/png" {
		t.Errorf("weather post attachments %+v, want the PNG chart", a)
	}

	// A job that is not configured says which variable turns it on.
	err := run(ctx, []string{"jobs", "run", "tips"}, func(k string) string { return env[k] }, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "TIPS_WEBHOOK_URL") {
		t.Errorf("jobs run tips without a destination: %v", err)
	}
}

// TestWeatherQuestionGetsTheChart: a weather question in Discord is
// answered from the JMA forecast, with the chart of the same forecast as a
// PNG: in the answer's message when it was drawn by the time the answer was
// complete (always so for a forecast charted before), else in a reply right
// after it.
func TestWeatherQuestionGetsTheChart(t *testing.T) {
	jmaURL := fakeJMA(t)
	h := start(t, map[string]string{"JMA_BASE_URL": jmaURL})
	const answer = "明日は午後から雨の予報です。"
	h.script(ollamatest.Text(answer), ollamatest.Text(answer))

	for i, again := range []bool{false, true} {
		q := h.mention(aliceID, "明日の天気は？")
		var replies []discordtest.Message
		var charts []discordtest.Attachment
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := h.discord.WaitFor(ctx, func() bool {
			replies, charts = nil, nil
			for _, m := range h.discord.BotMessages(channelID) {
				if m.Reference != nil && m.Reference.MessageID == q.ID {
					replies = append(replies, m)
					charts = append(charts, m.Attachments...)
				}
			}
			return len(replies) > 0 && replies[0].Content == answer && len(charts) > 0
		})
		cancel()
		if err != nil {
			t.Fatalf("question %d: replies %+v, want the answer and the chart", i+1, replies)
		}
		a := charts[0]
		cfg, err := png.DecodeConfig(bytes.NewReader(a.Data))
		if len(charts) != 1 || err != nil || a.Filename != "forecast.png" || cfg.Width != 960 || cfg.Height != 480 {
			t.Fatalf("question %d: %d attachments, %q: %dx%d, %v; want one forecast.png 960x480", i+1, len(charts), a.Filename, cfg.Width, cfg.Height, err)
		}
		if again && (len(replies) != 1 || len(replies[0].Attachments) != 1) {
			t.Errorf("the second question's chart (drawn before) did not come with the answer: %+v", replies)
		}
	}
	if n := len(h.turns()); n != 2 {
		t.Errorf("two answers and their charts cost %d LLM calls, want 2", n)
	}
}

// TestWebToolsAreGuarded: the model searches (SearXNG), then asks to read a
// page on this machine's loopback; the guarded fetcher refuses it and the
// refusal goes back to the model, which answers.
func TestWebToolsAreGuarded(t *testing.T) {
	searx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"query":"yorozu","results":[{"title":"よろず屋","url":"https://example.org/yorozu","content":"何でも屋のこと"}]}`))
	}))
	defer searx.Close()
	h := start(t, map[string]string{"SEARCH_BACKEND": "searxng", "SEARXNG_URL": searx.URL})
	h.script(
		ollamatest.ToolCalls(ollamatest.Call("web_search", map[string]any{"query": "よろず屋"})),
		ollamatest.ToolCalls(ollamatest.Call("scrape_url", map[string]any{"url": searx.URL + "/admin"})),
		ollamatest.Text("調べました。"),
	)
	h.mention(aliceID, "よろず屋って何？")
	h.waitReply(t, 1, equals("調べました。"))
	reqs := h.turns()
	if len(reqs) != 3 {
		t.Fatalf("%d LLM calls, want 3", len(reqs))
	}
	var names []string
	for _, tl := range reqs[0].Tools {
		names = append(names, tl.Function.Name)
	}
	for _, want := range []string{"web_search", "scrape_url", "pdf_to_text", "search_and_fetch", "create_reminder"} {
		if !strings.Contains(strings.Join(names, ","), want) {
			t.Errorf("tool %s not offered: %v", want, names)
		}
	}
	if strings.Contains(reqs[0].Tools.String(), "session_id") {
		t.Error("the hidden session_id is shown to the model")
	}
	search := lastTool(reqs[1])
	if !strings.Contains(search, "よろず屋") || !strings.Contains(search, "https://example.org/yorozu") {
		t.Errorf("search result sent back = %q", search)
	}
	if scraped := lastTool(reqs[2]); !strings.HasPrefix(scraped, "Blocked URL: ") {
		t.Errorf("loopback fetch result = %q, want Blocked URL", scraped)
	}
}

// shiftedForecast reads a JMA fixture reported on reportDay and moves every
// date in it so that the report is from today in Japan: run cannot be given
// a clock, so the forecast must be current.
// fakeJMA serves Tokyo's 05:00 forecast, moved to today, and returns the
// base URL for JMA_BASE_URL.
func fakeJMA(t testing.TB) string {
	t.Helper()
	forecast := shiftedForecast(t, "../../weather/testdata/forecast_130000_05.json", "2025-06-10")
	jma := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/forecast/data/forecast/130000.json") {
			w.Write(forecast)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(jma.Close)
	return jma.URL + "/bosai/"
}

func shiftedForecast(t testing.TB, path, reportDay string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	jst := time.FixedZone("JST", 9*3600)
	from, _ := time.ParseInLocation(time.DateOnly, reportDay, jst)
	y, m, d := time.Now().In(jst).Date()
	days := int(time.Date(y, m, d, 0, 0, 0, 0, jst).Sub(from).Hours() / 24)
	return regexp.MustCompile(`\d{4}-\d{2}-\d{2}`).ReplaceAllFunc(b, func(date []byte) []byte {
		day, err := time.ParseInLocation(time.DateOnly, string(date), jst)
		if err != nil {
			return date
		}
		return []byte(day.AddDate(0, 0, days).Format(time.DateOnly))
	})
}

func lastTool(req api.ChatRequest) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "tool" {
			return req.Messages[i].Content
		}
	}
	return ""
}

// TestOneGatewayPerToken: a second process with the same token stands by
// instead of answering every mention twice, and takes over when the first
// stops.
func TestOneGatewayPerToken(t *testing.T) {
	h := start(t, map[string]string{"USER_RATE_LIMIT": "0"})
	second := &harness{discord: h.discord, ollama: h.ollama, dbURL: h.dbURL, pool: h.pool, stderr: &logtest.Buffer{}, env: h.env}
	second.startRun(t, h.env)
	if !strings.Contains(second.stderr.String(), "standing by") {
		t.Errorf("second process did not stand by:\n%s", second.stderr.String())
	}
	resp, err := http.Get(second.httpURL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("standby /readyz = %d, want 200", resp.StatusCode)
	}

	h.script(ollamatest.Text("一度だけ答えます。"), ollamatest.Text("引き継ぎました。"))
	h.mention(aliceID, "聞こえる？")
	h.waitReply(t, 1, equals("一度だけ答えます。"))
	h.waitCount(t, `SELECT count(*) FROM messages`, 2)
	if n := h.discord.Sessions(); n != 1 {
		t.Errorf("%d gateway sessions with two processes, want 1", n)
	}

	if err := h.stop(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := h.discord.WaitFor(ctx, func() bool { return h.discord.Sessions() == 2 }); err != nil {
		t.Fatalf("the standby did not take over: %v\n%s", err, second.stderr.String())
	}
	h.mention(aliceID, "まだいる？")
	h.waitReply(t, 2, equals("引き継ぎました。"))
	if n := len(h.turns()); n != 2 {
		t.Errorf("%d LLM turns for two mentions, want 2", n)
	}
}

// TestGatewayLockLostStandsByAndTakesItBack: when the database ends the
// connection that holds the gateway lock (a restart, a failover), the
// process does not exit: it leaves the gateway, stands by, and takes the
// gateway back once the lock can be had, then answers again.
func TestGatewayLockLostStandsByAndTakesItBack(t *testing.T) {
	h := start(t, map[string]string{"USER_RATE_LIMIT": "0"})
	h.script(ollamatest.Text("まだいます。"))
	var killed bool
	err := h.pool.QueryRow(context.Background(), `
SELECT pg_terminate_backend(pid) FROM pg_locks
WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`).Scan(&killed)
	if err != nil || !killed {
		t.Fatalf("end the lock's connection: %v, %v", killed, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := h.discord.WaitFor(ctx, func() bool { return h.discord.Sessions() == 2 }); err != nil {
		t.Fatalf("the gateway was not taken back: %v\n%s", err, h.stderr.String())
	}
	h.mention(aliceID, "聞こえる？")
	h.waitReply(t, 1, equals("まだいます。"))
	logs := h.stderr.String()
	if n := strings.Count(logs, "lost the Discord gateway lock"); n != 1 {
		t.Errorf("%d log lines about the lost lock, want 1:\n%s", n, logs)
	}
	if !strings.Contains(logs, "taking over the Discord gateway") {
		t.Errorf("no take-over in the log:\n%s", logs)
	}
}

// TestJobWithMissingModelNamesThePull: a scheduled job whose model is not
// pulled fails with the model's name and the command that pulls it, also
// for a name without a tag.
func TestJobWithMissingModelNamesThePull(t *testing.T) {
	h := start(t, map[string]string{"DISCORD_TOKEN": ""}) // only for its fakes and database
	h.discord.AddWebhook("500000000000000001", "hook-token", channelID)
	env := map[string]string{
		"DATABASE_URL":     h.dbURL,
		"OLLAMA_HOST":      h.ollama.URL(),
		"DEFAULT_MODEL":    "llama3",
		"TIPS_WEBHOOK_URL": h.discord.URL() + "api/v10/webhooks/500000000000000001/hook-token",
		"TIPS_CRON":        "0 12 * * *",
		"TIMEZONE":         "UTC",
	}
	if time.Now().UTC().Hour() == 3 { // no tips in the 03:00 hour
		env["TIMEZONE"] = "Asia/Tokyo"
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	err := run(ctx, []string{"jobs", "run", "tips"}, func(k string) string { return env[k] }, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), `model "llama3" not found (run: ollama pull llama3)`) {
		t.Fatalf("jobs run tips with llama3 missing: err = %v", err)
	}
	if msgs := h.discord.Messages(channelID); len(msgs) != 0 {
		t.Errorf("posted %+v without a model", msgs)
	}
}
