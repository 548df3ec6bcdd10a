package main

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/yorozu-bot/yorozu/db"
	"github.com/yorozu-bot/yorozu/web"
)

// standbyPoll is how often a standby process tries to take the Discord
// gateway over; lockCheck is how often the holder makes sure it still holds
// it.
const (
	standbyPoll = 2 * time.Second
	lockCheck   = 5 * time.Second
)

// gatewayLockKey is the advisory lock that lets one process per bot token
// hold the Discord gateway: two connections would answer every mention twice.
func gatewayLockKey(token string) int64 {
	h := fnv.New64a()
	h.Write([]byte("yorozu discord gateway\x00" + token))
	return int64(h.Sum64())
}

// startDiscord connects to Discord if no other process holds this token's
// gateway; otherwise this process waits as a standby and takes over when the
// holder stops. Either way it still delivers reminders and posts over REST.
func (a *app) startDiscord(ctx context.Context) error {
	key := gatewayLockKey(a.cfg.DiscordToken)
	lock, err := db.TryLock(ctx, a.db.pool, key)
	switch {
	case errors.Is(err, db.ErrLocked):
		a.standby.Store(true)
		a.logger.Info("another yorozu holds the Discord gateway for this token; standing by to take over")
		go a.standBy(ctx, key)
		return nil
	case err != nil:
		return err
	}
	return a.lead(ctx, lock)
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
			if a.standby.Load() {
				return nil
			}
			return a.bot.Status().GatewayErr()
		}},
		{Name: "commands", Fn: func(context.Context) error {
			if a.standby.Load() {
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

// lead connects the bot while holding lock and watches the lock: a process
// that lost it (its database connection died) must stop answering, since
// another may now hold the gateway; it ends serve with an error so the
// supervisor restarts it as a standby.
func (a *app) lead(ctx context.Context, lock *db.Lock) error {
	a.gatewayLock.Store(lock)
	// Start returns after the first attempt; a Discord that is down or
	// refuses is retried in the background and reported by /readyz, while
	// HTTP and the jobs run.
	if err := a.bot.Start(ctx); err != nil {
		return fmt.Errorf("connect to Discord: %w", err)
	}
	a.retryOnHangup(ctx)
	a.standby.Store(false)
	go func() {
		t := time.NewTicker(lockCheck)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				cctx, cancel := context.WithTimeout(ctx, lockCheck)
				err := lock.Check(cctx)
				cancel()
				if err != nil && ctx.Err() == nil {
					a.fail(fmt.Errorf("lost the Discord gateway lock: %w", err))
					return
				}
			}
		}
	}()
	return nil
}

// standBy tries to take the gateway over until it does or ctx ends.
func (a *app) standBy(ctx context.Context, key int64) {
	t := time.NewTicker(standbyPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		lock, err := db.TryLock(ctx, a.db.pool, key)
		if errors.Is(err, db.ErrLocked) {
			continue
		}
		if err != nil {
			if ctx.Err() == nil {
				a.logger.Warn("standby: try the Discord gateway lock", "err", err)
			}
			continue
		}
		a.logger.Info("taking over the Discord gateway")
		if err := a.lead(ctx, lock); err != nil {
			a.fail(err)
		}
		return
	}
}

// fail ends serve with err (the first one wins).
func (a *app) fail(err error) {
	select {
	case a.fatal <- err:
	default:
	}
}
