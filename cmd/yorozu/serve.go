package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/ollama/ollama/api"

	"github.com/yorozu-bot/yorozu/bot"
	"github.com/yorozu-bot/yorozu/chat"
	"github.com/yorozu-bot/yorozu/config"
	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/llm"
	"github.com/yorozu-bot/yorozu/memory"
	"github.com/yorozu-bot/yorozu/tools"
	"github.com/yorozu-bot/yorozu/web"
)

// shutdownTimeout bounds a graceful stop: replies in flight get this long.
const shutdownTimeout = 20 * time.Second

// app is everything serve starts, so shutdown can stop it in reverse.
type app struct {
	cfg    *config.Config
	logger *slog.Logger
	db     *database
	llm    *llm.Pipeline
	tools  *tools.Registry
	memory *memory.Memory
	router *chat.Router
	bot    *bot.Bot // nil when DISCORD_TOKEN is unset
	web    *web.Server
}

func serve(ctx context.Context, getenv func(string) string, stdout, stderr io.Writer) error {
	started := time.Now()
	cfg, err := config.Parse(getenv)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	logger.Info("starting yorozu", "version", versionString(), "config", cfg)

	d, err := openDatabase(ctx, cfg, stderr, logger)
	if err != nil {
		return err
	}
	defer d.close()
	if err := db.Migrate(ctx, d.pool); err != nil {
		return err
	}

	a := &app{cfg: cfg, logger: logger, db: d}
	if err := a.build(); err != nil {
		return err
	}
	if err := a.start(ctx); err != nil {
		a.stop()
		return err
	}
	fmt.Fprintf(stdout, "yorozu ready: http://%s (started in %s)\n", a.web.Addr(), time.Since(started).Round(time.Millisecond))
	logger.Info("ready", "http", a.web.Addr(), "discord", a.bot != nil, "startup", time.Since(started))

	<-ctx.Done()
	logger.Info("shutting down")
	a.stop()
	return nil
}

// build wires the parts; nothing talks to the network yet.
func (a *app) build() error {
	cfg := a.cfg
	ollama := api.NewClient(cfg.OllamaHost, &http.Client{})
	a.llm = llm.New(llm.Options{
		Client:      ollama,
		Recorder:    apiLogRecorder{pool: a.db.pool},
		Concurrency: cfg.LLMConcurrency,
		Logger:      a.logger,
	})
	a.tools = tools.NewRegistry()
	a.memory = memory.New(a.db.pool, memory.Options{Location: cfg.Location})
	a.router = chat.NewRouter(&chat.Conversation{
		Store:    a.memory,
		Pipeline: a.llm,
		Model:    cfg.DefaultModel,
		Tools:    a.tools,
		Logger:   a.logger,
	})

	if cfg.DiscordToken != "" {
		b, err := bot.New(bot.Options{
			Token:      cfg.DiscordToken,
			APIBase:    cfg.DiscordAPIBase,
			Responder:  a.router,
			Logger:     a.logger,
			RateLimit:  cfg.UserRateLimit,
			RateWindow: cfg.UserRateWindow,
		})
		if err != nil {
			return err
		}
		a.bot = b
	}

	checks := []web.Check{
		{Name: "database", Fn: func(ctx context.Context) error { return a.db.pool.Ping(ctx) }},
		{Name: "migrations", Fn: func(ctx context.Context) error {
			_, pending, err := db.MigrationStatus(ctx, a.db.pool)
			if err == nil && pending > 0 {
				err = fmt.Errorf("%d pending", pending)
			}
			return err
		}},
	}
	if a.bot != nil {
		checks = append(checks, web.Check{Name: "discord", Fn: func(context.Context) error {
			if !a.bot.Ready() {
				return errors.New("not connected")
			}
			return nil
		}})
	}
	a.web = web.New(web.Options{
		Addr:   cfg.HTTPAddr,
		Checks: checks,
		Gauges: []web.Gauge{{
			Name: "yorozu_llm_queue_length", Help: "Turns waiting for an LLM slot.",
			Fn: func() float64 { return float64(a.llm.QueueLen()) },
		}},
		Logger: a.logger,
	})
	return nil
}

func (a *app) start(ctx context.Context) error {
	if err := a.web.Start(ctx); err != nil {
		return err
	}
	if a.bot != nil {
		if err := a.bot.Start(ctx); err != nil {
			return fmt.Errorf("connect to Discord: %w", err)
		}
	}
	return nil
}

// stop shuts the adapters down first, so replies in flight finish while the
// database is still there.
func (a *app) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if a.bot != nil {
		a.bot.Stop()
	}
	if err := a.web.Stop(ctx); err != nil {
		a.logger.Warn("http shutdown", "err", err)
	}
}

func migrate(ctx context.Context, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := config.Parse(getenv)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	d, err := openDatabase(ctx, cfg, stderr, logger)
	if err != nil {
		return err
	}
	defer d.close()
	if err := db.Migrate(ctx, d.pool); err != nil {
		return err
	}
	applied, _, err := db.MigrationStatus(ctx, d.pool)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "migrations applied: %d\n", applied)
	return nil
}

// database is the pool plus, without DATABASE_URL, the embedded server.
type database struct {
	pool     *pgxpool.Pool
	embedded *db.Embedded
	logger   *slog.Logger
}

func openDatabase(ctx context.Context, cfg *config.Config, stderr io.Writer, logger *slog.Logger) (*database, error) {
	d := &database{logger: logger}
	url := cfg.DatabaseURL
	if url == "" {
		logger.Info("DATABASE_URL is unset: starting embedded PostgreSQL", "data_dir", cfg.DataDir)
		e, err := db.StartEmbedded(ctx, cfg.DataDir, stderr)
		if err != nil {
			return nil, err
		}
		d.embedded, url = e, e.URL()
	}
	pool, err := db.Open(ctx, url)
	if err != nil {
		d.close()
		return nil, err
	}
	d.pool = pool
	return d, nil
}

func (d *database) close() {
	if d.pool != nil {
		d.pool.Close()
	}
	if d.embedded != nil {
		if err := d.embedded.Stop(); err != nil {
			d.logger.Warn("stop embedded postgres", "err", err)
		}
	}
}

// apiLogRecorder keeps every LLM call in api_logs.
type apiLogRecorder struct{ pool *pgxpool.Pool }

func (r apiLogRecorder) RecordCall(ctx context.Context, c llm.Call) error {
	return db.InsertAPILog(ctx, r.pool, db.APILogParams{
		Model:            c.Model,
		Request:          c.Request,
		Response:         c.Response,
		Error:            c.Err,
		Latency:          c.Latency,
		PromptTokens:     c.PromptTokens,
		CompletionTokens: c.CompletionTokens,
		CreatedAt:        c.At,
	})
}
