package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/yorozu-bot/yorozu/config"
	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/scheduler"
)

// shutdownTimeout bounds a graceful stop: replies and jobs in flight get
// this long to finish.
const shutdownTimeout = 20 * time.Second

func serve(ctx context.Context, getenv func(string) string, stdout, stderr io.Writer) error {
	started := time.Now()
	cfg, logger, err := setup(getenv, stderr)
	if err != nil {
		return err
	}
	logger.Info("starting yorozu", "version", versionString(), "config", cfg)
	d, err := openMigrated(ctx, cfg, stderr, logger)
	if err != nil {
		return err
	}
	defer d.close()

	a, err := build(ctx, cfg, d, logger)
	if err != nil {
		return err
	}
	if err := a.start(ctx); err != nil {
		a.stop()
		return err
	}
	fmt.Fprintf(stdout, "yorozu ready: http://%s (started in %s)\n", a.web.Addr(), time.Since(started).Round(time.Millisecond))
	logger.Info("ready", "http", a.web.Addr(), "discord", a.bot != nil, "startup", time.Since(started))

	select {
	case <-ctx.Done():
		logger.Info("shutting down")
		a.stop()
		return nil
	case err := <-a.fatal:
		logger.Error("stopping", "err", err)
		a.stop()
		return err
	}
}

// setup parses the configuration and makes the logger every command uses.
func setup(getenv func(string) string, stderr io.Writer) (*config.Config, *slog.Logger, error) {
	cfg, err := config.Parse(getenv)
	if err != nil {
		return nil, nil, err
	}
	return cfg, newLogger(cfg, stderr), nil
}

// openMigrated opens the database (starting the embedded one without
// DATABASE_URL) and applies yorozu's migrations, then River's, each under the
// same advisory lock, so several processes may start at once.
func openMigrated(ctx context.Context, cfg *config.Config, stderr io.Writer, logger *slog.Logger) (*database, error) {
	d, err := openDatabase(ctx, cfg, stderr, logger)
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx, d.pool); err != nil {
		d.close()
		return nil, err
	}
	if err := scheduler.Migrate(ctx, d.pool); err != nil {
		d.close()
		return nil, err
	}
	return d, nil
}

func migrate(ctx context.Context, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, logger, err := setup(getenv, stderr)
	if err != nil {
		return err
	}
	d, err := openMigrated(ctx, cfg, stderr, logger)
	if err != nil {
		return err
	}
	defer d.close()
	applied, _, err := db.MigrationStatus(ctx, d.pool)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "migrations applied: %d (plus the job queue's)\n", applied)
	return nil
}

// runJob runs one named job (weather, tips, …) once, now, without starting
// the bot or the job queue; its error is the command's.
func runJob(ctx context.Context, name string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, logger, err := setup(getenv, stderr)
	if err != nil {
		return err
	}
	d, err := openMigrated(ctx, cfg, stderr, logger)
	if err != nil {
		return err
	}
	defer d.close()
	a, err := build(ctx, cfg, d, logger)
	if err != nil {
		return err
	}
	defer a.closeTools()
	defer a.memory.Close() // before the database closes
	// The destination in force may come from the admin page's settings.
	switch {
	case name == "weather" && !a.weather.Settings().Dest.Enabled():
		return errors.New("job weather is off: set WEATHER_WEBHOOK_URL or WEATHER_CHANNEL_ID (or its destination on the admin page)")
	case name == "tips" && !a.tips.Settings().Dest.Enabled():
		return errors.New("job tips is off: set TIPS_WEBHOOK_URL or TIPS_CHANNEL_ID (or its destination on the admin page)")
	}
	if err := a.sched.RunNow(ctx, name); err != nil {
		return fmt.Errorf("job %s (known: %v): %w", name, a.sched.Jobs(), err)
	}
	fmt.Fprintf(stdout, "job %s done\n", name)
	return nil
}
