package scheduler

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/yorozu-bot/yorozu/bot/discordtest"
	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/llm/ollamatest"
	"github.com/yorozu-bot/yorozu/weather"
)

const testModel = "qwen3:4b"

// fakeJMA serves the weather package's fixtures as JMA does.
type fakeJMA struct {
	*httptest.Server
	hits atomic.Int32
	down atomic.Bool
}

func newFakeJMA(t testing.TB, fixture string) *fakeJMA {
	t.Helper()
	j := &fakeJMA{}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /forecast/data/forecast/130000.json", func(w http.ResponseWriter, r *http.Request) {
		j.hits.Add(1)
		if j.down.Load() {
			http.Error(w, "maintenance", http.StatusServiceUnavailable)
			return
		}
		http.ServeFile(w, r, "../weather/testdata/"+fixture)
	})
	mux.HandleFunc("GET /forecast/data/overview_forecast/130000.json", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, "../weather/testdata/overview_130000.json")
	})
	j.Server = httptest.NewServer(mux)
	t.Cleanup(j.Close)
	return j
}

func fixedNow(s string) func() time.Time {
	t, err := time.ParseInLocation("2006-01-02 15:04", s, jst)
	if err != nil {
		panic(err)
	}
	return func() time.Time { return t }
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func newLLM(t testing.TB) (*ollamatest.Server, *llm.Pipeline) {
	srv := ollamatest.New(t)
	srv.AddModel(testModel, "completion")
	return srv, llm.New(llm.Options{Client: srv.Client()})
}

type weatherEnv struct {
	pool    *pgxpool.Pool
	jma     *fakeJMA
	ollama  *ollamatest.Server
	discord *discordtest.Server
	opts    WeatherOptions
}

// newWeatherEnv posts through a webhook of the fake Discord into channel 555.
func newWeatherEnv(t *testing.T, now string) *weatherEnv {
	t.Helper()
	e := &weatherEnv{pool: newPool(t), jma: newFakeJMA(t, "forecast_130000_05.json"), discord: discordtest.New(t)}
	var pipe *llm.Pipeline
	e.ollama, pipe = newLLM(t)
	e.discord.AddWebhook("900", "secret-token", "555")
	e.opts = WeatherOptions{
		Forecasts:  weather.NewClient(weather.ClientOptions{BaseURL: e.jma.URL, HTTPClient: e.jma.Client(), Now: fixedNow(now), FailureTTL: -1}),
		Office:     "130000",
		Dest:       Destination{WebhookURL: e.discord.URL() + "api/v10/webhooks/900/secret-token"},
		DB:         e.pool,
		Pipeline:   pipe,
		Model:      testModel,
		Cron:       "30 6 * * *",
		Location:   jst,
		RetryDelay: time.Millisecond,
		Now:        fixedNow(now),
		Logger:     quiet(),
	}
	return e
}

func expectedPost(t *testing.T, fixture, now, comment string) string {
	t.Helper()
	b, err := os.ReadFile("../weather/testdata/" + fixture)
	if err != nil {
		t.Fatal(err)
	}
	f, err := weather.Parse(b, "")
	if err != nil {
		t.Fatal(err)
	}
	d, _ := f.Target(fixedNow(now)())
	return weather.FormatPost(f, d, comment)
}

func TestWeatherPostsThroughWebhookWithComment(t *testing.T) {
	e := newWeatherEnv(t, "2025-06-10 06:30")
	e.ollama.Script(ollamatest.Text("おはようございます！", "今日は洗濯日和です。"))
	w := NewWeather(e.opts)
	slot := fixedNow("2025-06-10 06:30")()
	if err := w.Run(context.Background(), slot); err != nil {
		t.Fatal(err)
	}
	msgs := e.discord.Messages("555")
	if len(msgs) != 1 {
		t.Fatalf("%d messages, want 1", len(msgs))
	}
	m := msgs[0]
	if want := expectedPost(t, "forecast_130000_05.json", "2025-06-10 06:30", "おはようございます！今日は洗濯日和です。"); m.Content != want {
		t.Errorf("post\n%s\nwant\n%s", m.Content, want)
	}
	for _, s := range []string{"洗濯指数：80（よく乾く）", "出典：気象庁", "6月10日(火)"} {
		if !strings.Contains(m.Content, s) {
			t.Errorf("post lacks %q", s)
		}
	}
	assertChart(t, m)
	if m.WebhookID != "900" || m.AllowedMentions == nil || m.AllowedMentions.Parse == nil || len(m.AllowedMentions.Parse) != 0 {
		t.Errorf("webhook %q allowed mentions %+v; want the webhook, parse []", m.WebhookID, m.AllowedMentions)
	}
	// The facts reach the model.
	reqs := e.ollama.Requests()
	if len(reqs) != 1 || !strings.Contains(reqs[0].Messages[1].Content, "洗濯指数：80") || reqs[0].Model != testModel {
		t.Errorf("model request %+v", reqs)
	}
	// The same slot again (a retry, another process): no second post.
	if err := w.Run(context.Background(), slot); err != nil {
		t.Fatal(err)
	}
	if n := len(e.discord.Messages("555")); n != 1 {
		t.Fatalf("%d messages after a second run of the slot, want 1", n)
	}
}

func TestWeatherChannelPostFactsAloneWhenLLMDown(t *testing.T) {
	e := newWeatherEnv(t, "2025-06-10 19:00")
	e.ollama.Down()
	fd := newFakeDiscord(t)
	fd.AddChannel("777")
	e.opts.Dest = Destination{ChannelID: "777", Discord: fd.bot}
	if err := NewWeather(e.opts).Run(context.Background(), fixedNow("2025-06-10 19:00")()); err != nil {
		t.Fatal(err)
	}
	msgs := fd.BotMessages("777")
	if len(msgs) != 1 {
		t.Fatalf("%d bot messages, want 1", len(msgs))
	}
	// Evening: tomorrow's forecast, facts only.
	if want := expectedPost(t, "forecast_130000_05.json", "2025-06-10 19:00", ""); msgs[0].Content != want {
		t.Errorf("post\n%s\nwant\n%s", msgs[0].Content, want)
	}
	assertChart(t, msgs[0])
	if !strings.HasPrefix(msgs[0].Content, "**6月11日(水)") {
		t.Errorf("evening post is not about tomorrow: %q", msgs[0].Content)
	}
	if am := msgs[0].AllowedMentions; am == nil || am.Parse == nil || len(am.Parse) != 0 {
		t.Errorf("allowed mentions %+v, want parse []", am)
	}
	if !msgs[0].EnforceNonce || msgs[0].Nonce == "" {
		t.Errorf("post nonce %q enforced %v, want a nonce Discord enforces", msgs[0].Nonce, msgs[0].EnforceNonce)
	}
}

func TestWeatherJMADownRetriesThenSaysUnavailable(t *testing.T) {
	e := newWeatherEnv(t, "2025-06-10 06:30")
	e.jma.down.Store(true)
	e.opts.FetchAttempts = 3
	if err := NewWeather(e.opts).Run(context.Background(), fixedNow("2025-06-10 06:30")()); err != nil {
		t.Fatal(err)
	}
	if n := e.jma.hits.Load(); n != 3 {
		t.Errorf("JMA asked %d times, want 3", n)
	}
	msgs := e.discord.Messages("555")
	if len(msgs) != 1 || msgs[0].Content != weather.UnavailablePost(fixedNow("2025-06-10 06:30")()) {
		t.Fatalf("messages %+v, want the unavailable notice", msgs)
	}
	if n := len(msgs[0].Attachments); n != 0 {
		t.Errorf("the unavailable notice carries %d attachments, want no chart", n)
	}
	if e.ollama.ChatCalls() != 0 {
		t.Error("the model was asked to comment on no forecast")
	}
}

func TestWeatherFailedPostIsRetriedBySlot(t *testing.T) {
	e := newWeatherEnv(t, "2025-06-10 06:30")
	e.opts.Pipeline = nil
	good := e.opts.Dest
	e.opts.Dest = Destination{WebhookURL: e.discord.URL() + "api/v10/webhooks/900/wrong-token"}
	slot := fixedNow("2025-06-10 06:30")()
	if err := NewWeather(e.opts).Run(context.Background(), slot); err == nil {
		t.Fatal("a rejected webhook should fail the run (River retries it)")
	}
	e.opts.Dest = good
	if err := NewWeather(e.opts).Run(context.Background(), slot); err != nil {
		t.Fatal(err)
	}
	if n := len(e.discord.Messages("555")); n != 1 {
		t.Fatalf("%d messages, want 1 after the retry", n)
	}
}

func TestWeatherTwoProcessesRacingOneSlot(t *testing.T) {
	e := newWeatherEnv(t, "2025-06-10 06:30")
	e.opts.Pipeline = nil
	a, b := NewWeather(e.opts), NewWeather(e.opts)
	slot := fixedNow("2025-06-10 06:30")()
	var wg sync.WaitGroup
	for _, w := range []*Weather{a, b, a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.Run(context.Background(), slot); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if n := len(e.discord.Messages("555")); n != 1 {
		t.Fatalf("%d posts for one slot, want 1", n)
	}
}

// postedBefore posts the slot at through the job, as a process that was up
// then did (no comment): what makes a later start a restart. It returns
// the posts in the channel after it.
func postedBefore(t *testing.T, e *weatherEnv, at string) int {
	t.Helper()
	o := e.opts
	o.Pipeline, o.Now = nil, fixedNow(at)
	if err := NewWeather(o).Run(context.Background(), fixedNow(at)()); err != nil {
		t.Fatal(err)
	}
	return len(e.discord.Messages("555"))
}

// TestWeatherCatchUpOnlyAfterARestart: a first start posts no slot it
// missed (an empty database at 08:44 with WEATHER_CRON 30 6 * * *); a
// restart after being down across 06:30 posts it within 3 hours, not
// later.
func TestWeatherCatchUpOnlyAfterARestart(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ranAt   string // a slot the job posted before; "" for an empty database
		started string
		want    int // posts at start
	}{
		{"first start at 08:44", "", "2025-06-10 08:44", 0},
		{"first start at 06:50", "", "2025-06-10 06:50", 0},
		{"restart at 06:50, down across 06:30", "2025-06-09 06:30", "2025-06-10 06:50", 1},
		{"restart at 09:30, three hours late", "2025-06-09 06:30", "2025-06-10 09:30", 1},
		{"restart at 11:00, too late", "2025-06-09 06:30", "2025-06-10 11:00", 0},
		{"restart after a week down", "2025-06-03 06:30", "2025-06-10 07:10", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newWeatherEnv(t, tc.started)
			e.opts.Pipeline = nil
			before := 0
			if tc.ranAt != "" {
				before = postedBefore(t, e, tc.ranAt)
			}
			if err := NewWeather(e.opts).CatchUp(context.Background()); err != nil {
				t.Fatal(err)
			}
			posts := e.discord.Messages("555")[before:]
			if len(posts) != tc.want {
				t.Fatalf("%d posts at start, want %d", len(posts), tc.want)
			}
			if tc.want == 1 && !strings.Contains(posts[0].Content, "6月10日(火) 東京地方の天気") {
				t.Errorf("the post is not today's weather:\n%s", posts[0].Content)
			}
		})
	}
}

func TestWeatherCatchUpWithinThreeHours(t *testing.T) {
	e := newWeatherEnv(t, "2025-06-10 08:00")
	e.opts.Pipeline = nil
	base := postedBefore(t, e, "2025-06-09 06:30")
	// Down at 06:30, started at 08:00: the slot is posted now, once.
	for range 2 {
		if err := NewWeather(e.opts).CatchUp(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(e.discord.Messages("555")) - base; n != 1 {
		t.Fatalf("%d posts after two catch-ups, want 1", n)
	}
	// Started at 09:31 the next day: 3 h 1 min late, too late.
	e.opts.Now = fixedNow("2025-06-11 09:31")
	if err := NewWeather(e.opts).CatchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Started at 06:29: the last slot is yesterday's, long gone.
	e.opts.Now = fixedNow("2025-06-11 06:29")
	if err := NewWeather(e.opts).CatchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(e.discord.Messages("555")) - base; n != 1 {
		t.Fatalf("%d posts, want still 1", n)
	}
}

func TestWeatherPeriodicOncePerSlotAcrossTwoProcesses(t *testing.T) {
	e := newWeatherEnv(t, "2025-06-10 06:30")
	e.opts.Pipeline = nil
	e.opts.Cron = "*/2 * * * * *" // a slot every two seconds
	var scheds []*Scheduler
	for range 2 {
		s := newScheduler(t, e.pool, nil, Options{Location: jst, PollInterval: 100 * time.Millisecond})
		if err := NewWeather(e.opts).Register(s); err != nil {
			t.Fatal(err)
		}
		start(t, s)
		scheds = append(scheds, s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := e.discord.WaitFor(ctx, func() bool { return len(e.discord.Messages("555")) >= 3 }); err != nil {
		t.Fatal(err)
	}
	for _, s := range scheds {
		if err := s.Stop(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var slots int
	if err := e.pool.QueryRow(ctx, "SELECT count(*) FROM job_slots WHERE job = 'weather' AND posted_at IS NOT NULL").Scan(&slots); err != nil {
		t.Fatal(err)
	}
	if posts := len(e.discord.Messages("555")); posts != slots {
		t.Fatalf("%d posts for %d slots; want one post per slot", posts, slots)
	}
	// Runnable by name, now.
	if err := scheds[0].RunNow(ctx, JobWeather); err != nil {
		t.Fatal(err)
	}
}

// assertChart checks that a post carries the forecast chart: one PNG of the
// chart's size.
func assertChart(t *testing.T, m discordtest.Message) {
	t.Helper()
	if len(m.Attachments) != 1 {
		t.Fatalf("post has %d attachments, want the chart", len(m.Attachments))
	}
	a := m.Attachments[0]
	if a.Filename != weather.ChartFilename || a.ContentType != "image/png" {
		t.Errorf("attachment %q (%s), want %s image/png", a.Filename, a.ContentType, weather.ChartFilename)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(a.Data))
	if err != nil {
		t.Fatalf("chart is not a PNG: %v", err)
	}
	if cfg.Width != weather.ChartWidth || cfg.Height != weather.ChartHeight {
		t.Errorf("chart is %dx%d, want %dx%d", cfg.Width, cfg.Height, weather.ChartWidth, weather.ChartHeight)
	}
}

// TestWeatherCatchUpIsARunOfTheJob: a missed slot posted at start is
// reported like a scheduled run (JobDone), and its comment is a job's
// model call, not a user's turn.
func TestWeatherCatchUpIsARunOfTheJob(t *testing.T) {
	e := newWeatherEnv(t, "2025-06-10 08:00")
	base := postedBefore(t, e, "2025-06-09 06:30")
	e.ollama.Script(ollamatest.Text("おはようございます！"))
	var mu sync.Mutex
	var heard []string
	s := newScheduler(t, e.pool, nil, Options{JobDone: func(name string, err error) {
		mu.Lock()
		defer mu.Unlock()
		heard = append(heard, fmt.Sprintf("%s %v", name, err))
	}})
	kinds := make(chan string, 1)
	e.opts.Pipeline = kindPipeline{Pipeline: e.opts.Pipeline, kinds: kinds}
	w := NewWeather(e.opts)
	if err := w.Register(s); err != nil {
		t.Fatal(err)
	}
	if err := w.CatchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := len(e.discord.Messages("555")) - base; n != 1 {
		t.Fatalf("%d posts, want the missed slot", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(heard, []string{"weather <nil>"}) {
		t.Errorf("JobDone heard %q, want one successful weather run", heard)
	}
	if k := <-kinds; k != llm.KindJob {
		t.Errorf("the comment was a %q call, want %q", k, llm.KindJob)
	}
}

// kindPipeline tells the kind of each model call it passes on.
type kindPipeline struct {
	Pipeline
	kinds chan string
}

func (p kindPipeline) Run(ctx context.Context, req llm.Request, emit func(llm.Event) error) (llm.Result, error) {
	select {
	case p.kinds <- llm.KindOf(ctx):
	default:
	}
	return p.Pipeline.Run(ctx, req, emit)
}
