package main

import (
	"context"
	"fmt"

	"riverqueue.com/riverui"

	webui "github.com/yorozu-bot/yorozu/web"
)

// webDeps gives the admin page the parts it works on. A part that cannot be
// built is logged and left out: its routes answer 503, the rest works.
func (a *app) webDeps() webui.Deps {
	deps := webui.Deps{Revisions: a.memory}
	jobs, err := riverui.NewHandler(&riverui.HandlerOpts{
		Endpoints: riverui.NewEndpoints(a.sched.Client(), nil),
		Logger:    a.logger.With("component", "riverui"),
		Prefix:    "/jobs",
	})
	if err != nil {
		a.logger.Error("job UI unavailable", "err", err)
	} else {
		a.jobsUI, deps.Jobs = jobs, jobs
	}
	return deps
}

// startWeb makes sure there is an admin password (printing a generated one
// once) and starts the HTTP server.
func (a *app) startWeb(ctx context.Context) error {
	generated, err := webui.EnsurePassword(ctx, a.db.pool, a.cfg.AdminPassword)
	if err != nil {
		return fmt.Errorf("admin password: %w", err)
	}
	if generated != "" {
		a.logger.Warn("admin page password generated; it is shown only this once: log in at /login, then change it with `yorozu admin set-password` (reads stdin) or set ADMIN_PASSWORD",
			"password", generated)
	}
	if a.jobsUI != nil {
		if err := a.jobsUI.Start(ctx); err != nil {
			a.logger.Error("job UI unavailable", "err", err)
		}
	}
	return a.web.Start(ctx)
}
