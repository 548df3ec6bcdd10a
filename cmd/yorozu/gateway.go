package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/yorozu-bot/yorozu/web"
)

// startDiscord connects to Discord, or stands by while another process
// holds this token's gateway (bot.Handover); either way this process still
// delivers reminders and posts over REST.
func (a *app) startDiscord(ctx context.Context) error {
	if err := a.handover.Start(ctx); err != nil {
		return err
	}
	a.retryOnHangup(ctx)
	return nil
}

// discordChecks are the /readyz checks of the Discord adapter: "discord"
// (connected and in a server; a standby is ready, it takes the gateway over
// when needed) and "commands" (slash commands registered; a refusal leaves
// the process ready). Both say what is wrong and how to fix it.
func (a *app) discordChecks() []web.Check {
	if a.bot == nil {
		return nil
	}
	return []web.Check{
		{Name: "discord", Fn: func(context.Context) error {
			if a.handover.Standby() {
				return nil
			}
			return a.bot.Status().GatewayErr()
		}},
		{Name: "commands", Fn: func(context.Context) error {
			if a.handover.Standby() {
				return nil
			}
			return web.Degraded(a.bot.Status().CommandsErr())
		}},
	}
}

// retryOnHangup makes the bot retry connecting at once on SIGHUP, so an
// operator who fixed a setting in the Developer Portal need not wait. The
// signal is caught from the moment it returns.
func (a *app) retryOnHangup(ctx context.Context) {
	onHangup(ctx, func() {
		a.logger.Info("SIGHUP: retrying Discord now")
		a.bot.RetryNow()
	})
}

// onHangup calls fn on every SIGHUP until ctx ends; the signal is caught
// from the moment it returns.
func onHangup(ctx context.Context, fn func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGHUP)
	go func() {
		defer signal.Stop(ch)
		for {
			select {
			case <-ctx.Done():
				return
			case <-ch:
				fn()
			}
		}
	}()
}

// fail ends serve with err (the first one wins).
func (a *app) fail(err error) {
	select {
	case a.fatal <- err:
	default:
	}
}
