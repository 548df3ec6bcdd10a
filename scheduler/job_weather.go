package scheduler

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/weather"
)

// Job names of the scheduled posts.
const (
	JobWeather = "weather"
	JobTips    = "tips"
)

// slotLease is how long a claimed slot stays claimed by a run that neither
// posted nor released it (a crash); after it, another run may take it.
const slotLease = 15 * time.Minute

// Pipeline runs one LLM turn; *llm.Pipeline satisfies it.
type Pipeline interface {
	Run(ctx context.Context, req llm.Request, emit func(llm.Event) error) (llm.Result, error)
}

// Forecaster gives the forecast of a JMA office; *weather.Client satisfies it.
type Forecaster interface {
	Forecast(ctx context.Context, office string) (*weather.Forecast, error)
}

// WeatherOptions configure the weather job. Zero values get the documented
// defaults.
type WeatherOptions struct {
	Forecasts Forecaster  // required
	Office    string      // WEATHER_AREA_CODE; default 130000
	Dest      Destination // "" posts nothing until Apply sets one
	DB        db.Querier  // records posted slots; required
	// Pipeline and Model (WEATHER_NOTIFY_MODEL) write the short comment;
	// a nil Pipeline, or any failure, posts the facts alone.
	Pipeline Pipeline
	Model    string
	// Space gives the space of Dest's channel (WEATHER_SPACE for a
	// webhook), whose model calls the comment counts as. nil: "".
	Space func(ctx context.Context) (string, error)
	// Cron (WEATHER_CRON) and Location (TIMEZONE) give the slots CatchUp
	// looks at. Default "30 6 * * *" in time.Local.
	Cron     string
	Location *time.Location
	// CatchUpWithin is how late a missed slot is still posted at a
	// restart; default 3 h: a 06:30 post up to 09:30, while the morning it
	// is about is still ahead. A first start posts nothing missed.
	CatchUpWithin time.Duration
	// FetchAttempts is how often JMA is tried before the post says the
	// forecast is unavailable; default 3, RetryDelay apart (default 1 min,
	// doubling each time).
	FetchAttempts int
	RetryDelay    time.Duration
	// CommentTimeout bounds the model's comment; default 2 min.
	CommentTimeout time.Duration
	Now            func() time.Time // default time.Now
	Logger         *slog.Logger     // default slog.Default()
}

// Weather is the morning weather post.
type Weather struct {
	o    WeatherOptions
	live *livePost // Dest, Model and Cron in force
}

// NewWeather returns the weather job.
func NewWeather(o WeatherOptions) *Weather {
	if o.Office == "" {
		o.Office = "130000"
	}
	if o.Location == nil {
		o.Location = time.Local
	}
	if o.CatchUpWithin <= 0 {
		o.CatchUpWithin = 3 * time.Hour
	}
	if o.FetchAttempts <= 0 {
		o.FetchAttempts = 3
	}
	if o.RetryDelay <= 0 {
		o.RetryDelay = time.Minute
	}
	if o.CommentTimeout <= 0 {
		o.CommentTimeout = 2 * time.Minute
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	o.Logger = o.Logger.With(slog.String("job", JobWeather))
	return &Weather{o: o, live: newLivePost(JobWeather, "30 6 * * *", PostSettings{Dest: o.Dest, Model: o.Model, Cron: o.Cron})}
}

// Apply puts changed settings in force (the admin page): the next post
// goes to p.Dest, is commented by p.Model and, when p.Cron changed, runs on
// the new schedule. A bad schedule changes nothing.
func (w *Weather) Apply(p PostSettings) error { return w.live.apply(p) }

// Settings returns the settings in force.
func (w *Weather) Settings() PostSettings { return w.live.get() }

// Register adds the job to s: periodic on the Cron schedule and runnable
// by name (`yorozu jobs run weather`).
func (w *Weather) Register(s *Scheduler) error {
	return w.live.register(s, w.Run)
}

// Run posts the weather for the slot at, once across processes: a slot
// already posted (or being posted by another process) is skipped. It is a
// JobFunc.
func (w *Weather) Run(ctx context.Context, at time.Time) error {
	set := w.live.get()
	if !set.Dest.Enabled() {
		w.o.Logger.Info("no destination set: no weather post", "slot", at)
		return nil
	}
	var chart []*discordgo.File
	return runSlot(ctx, w.o.DB, JobWeather, at, w.o.Logger, func(ctx context.Context) (string, error) {
		var text string
		text, chart = w.content(ctx, set.Model)
		return text, nil
	}, func(ctx context.Context, text string) error {
		return set.Dest.PostFiles(ctx, text, chart...)
	})
}

// content is the post: the forecast with a comment and its chart, the
// facts alone when the model fails, or a notice (and no chart) when JMA
// stays down.
func (w *Weather) content(ctx context.Context, model string) (string, []*discordgo.File) {
	f, err := w.fetch(ctx)
	now := w.o.Now()
	if err != nil {
		w.o.Logger.Error("forecast unavailable", "office", w.o.Office, "attempts", w.o.FetchAttempts, "err", err)
		return weather.UnavailablePost(now), nil
	}
	day, ok := f.Target(now)
	if !ok {
		w.o.Logger.Error("forecast has no day to post", "office", w.o.Office, "report", f.ReportTime)
		return weather.UnavailablePost(now), nil
	}
	text := weather.FormatPost(f, day, w.comment(ctx, model, f, day))
	png, ok, err := weather.Chart(f, now)
	if err != nil || !ok {
		// The text stands on its own: post it without the chart.
		w.o.Logger.Warn("weather chart not drawn", "office", w.o.Office, "err", err)
		return text, nil
	}
	return text, []*discordgo.File{{Name: weather.ChartFilename, ContentType: "image/png", Reader: bytes.NewReader(png)}}
}

func (w *Weather) fetch(ctx context.Context) (*weather.Forecast, error) {
	delay := w.o.RetryDelay
	var err error
	for i := range w.o.FetchAttempts {
		if i > 0 {
			t := time.NewTimer(delay)
			select {
			case <-ctx.Done():
				t.Stop()
				return nil, errors.Join(err, ctx.Err())
			case <-t.C:
			}
			delay *= 2
		}
		var f *weather.Forecast
		if f, err = w.o.Forecasts.Forecast(ctx, w.o.Office); err == nil {
			return f, nil
		}
		w.o.Logger.Warn("fetch forecast", "office", w.o.Office, "attempt", i+1, "err", err)
	}
	return nil, err
}

const weatherCommentPrompt = `あなたはDiscordコミュニティの天気係です。次の天気予報の事実をもとに、` +
	`朝の投稿に添える親しみやすい一言コメントを日本語で1〜2文（60字程度）で書いてください。` +
	`数値や予報を変えたり付け足したりしないこと。前置き・見出し・絵文字の多用は不要です。`

// comment asks the model for a short comment; "" when it fails.
func (w *Weather) comment(ctx context.Context, model string, f *weather.Forecast, d weather.Day) string {
	if w.o.Pipeline == nil || model == "" {
		return ""
	}
	if w.o.Space != nil {
		space, err := w.o.Space(ctx)
		if err != nil {
			w.o.Logger.Warn("space of the weather channel unknown", "err", err)
		}
		ctx = llm.WithSpace(ctx, space)
	}
	ctx, cancel := context.WithTimeout(ctx, w.o.CommentTimeout)
	defer cancel()
	facts := weather.Title(f, d) + "\n" + weather.Describe(d)
	res, err := w.o.Pipeline.Run(ctx, llm.Request{Model: model, Messages: []api.Message{
		{Role: "system", Content: weatherCommentPrompt},
		{Role: "user", Content: facts},
	}}, func(llm.Event) error { return nil })
	if err != nil {
		w.o.Logger.Warn("weather comment failed; posting the facts alone", "model", model, "err", err)
		return ""
	}
	return strings.TrimSpace(res.Content)
}

// CatchUp posts the latest slot when it passed within CatchUpWithin and was
// not posted because yorozu was down then. Only a restart catches up: on a
// database where the post never ran before that slot (a first start, or
// the first with a destination), the slot was never due to anyone and is
// not posted late. Call it once after start; across processes the slot
// still posts once. It counts as a run of the job (Options.JobDone) once
// Register has been called.
func (w *Weather) CatchUp(ctx context.Context) error {
	set := w.live.get()
	if !set.Dest.Enabled() {
		return nil
	}
	sched, err := ParseCron(set.Cron, w.o.Location)
	if err != nil {
		return fmt.Errorf("weather catch-up: %w", err)
	}
	now := w.o.Now()
	var last time.Time
	for t := sched.Next(now.Add(-w.o.CatchUpWithin - time.Second)); !t.IsZero() && !t.After(now); t = sched.Next(t) {
		last = t
	}
	if last.IsZero() {
		return nil
	}
	posted, err := db.JobSlotPosted(ctx, w.o.DB, JobWeather, slotKey(last))
	if err != nil || posted {
		return err
	}
	ran, err := db.JobSlotBefore(ctx, w.o.DB, JobWeather, slotKey(last))
	if err != nil {
		return err
	}
	if !ran {
		w.o.Logger.Info("first start: a slot before it is not posted late", "slot", last)
		return nil
	}
	w.o.Logger.Info("posting a missed slot", "slot", last)
	return w.live.runOnce(ctx, w.Run, last)
}

// slotKey is the slot's identity: its second. Cron slots are whole
// seconds; the time River hands a run may carry a fraction.
func slotKey(at time.Time) time.Time { return at.Truncate(time.Second) }

// runSlot claims the slot, builds the content and posts it; a failure
// releases the claim so the job's retry can post.
func runSlot(ctx context.Context, q db.Querier, job string, at time.Time, log *slog.Logger,
	build func(ctx context.Context) (string, error), post func(ctx context.Context, content string) error) error {
	slot := slotKey(at)
	ok, err := db.ClaimJobSlot(ctx, q, job, slot, slotLease)
	if err != nil {
		return err
	}
	if !ok {
		log.Info("slot already posted or in progress", "slot", slot)
		return nil
	}
	release := func(cause error) error {
		if err := db.ReleaseJobSlot(context.WithoutCancel(ctx), q, job, slot); err != nil {
			return errors.Join(cause, err)
		}
		return cause
	}
	content, err := build(ctx)
	if err != nil {
		return release(err)
	}
	if content == "" {
		return release(nil)
	}
	if err := post(ctx, content); err != nil {
		return release(fmt.Errorf("%s slot %s: %w", job, slot.Format(time.RFC3339), err))
	}
	return db.MarkJobSlotPosted(context.WithoutCancel(ctx), q, job, slot)
}
