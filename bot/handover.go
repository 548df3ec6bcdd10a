package bot

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/yorozu-bot/yorozu/db"
)

// How often a standby tries to take the gateway over, and how often the
// holder makes sure it still holds it.
const (
	standbyPoll = 2 * time.Second
	lockCheck   = 5 * time.Second
	// Mention claims are kept claimsKept, pruned every claimsPruneEvery
	// lock checks.
	claimsKept       = 24 * time.Hour
	claimsPruneEvery = 720
)

// Handover lets one of the processes sharing a database hold a bot token's
// gateway (two connections would answer every mention twice) through a
// Postgres advisory lock: the first to take it connects, the others stand
// by and the first of them to take the lock once it is free connects. A
// standby still sends over REST (reminders, posts).
type Handover struct {
	bot  *Bot
	pool *pgxpool.Pool
	key  int64
	log  *slog.Logger
	// lost is called when taking the gateway over failed for good (the
	// bot could not start: ctx ended).
	lost func(error)

	lock    atomic.Pointer[db.Lock]
	standby atomic.Bool
	// away is set when this process left the gateway because its database
	// connection died: mentions it then missed were missed for that.
	away atomic.Bool
}

// NewHandover returns the handover of b's gateway among the processes
// using pool; lost learns that taking the gateway failed for good.
func NewHandover(b *Bot, pool *pgxpool.Pool, lost func(error)) *Handover {
	return &Handover{bot: b, pool: pool, key: lockKey(b.opts.Token), log: b.log, lost: lost}
}

// lockKey is the advisory lock of one bot token.
func lockKey(token string) int64 {
	h := fnv.New64a()
	h.Write([]byte("yorozu discord gateway\x00" + token))
	return int64(h.Sum64())
}

// Start connects the bot if no other process holds the gateway, else
// stands by in the background until ctx ends.
func (h *Handover) Start(ctx context.Context) error {
	lock, err := db.TryLock(ctx, h.pool, h.key)
	switch {
	case errors.Is(err, db.ErrLocked):
		h.standby.Store(true)
		h.log.Info("another yorozu holds the Discord gateway for this token; standing by to take over")
		go h.standBy(ctx, false)
		return nil
	case err != nil:
		return err
	}
	return h.lead(ctx, lock)
}

// Standby reports whether another process holds the gateway.
func (h *Handover) Standby() bool { return h.standby.Load() }

// Release gives the lock back, for a standby to take over at once.
func (h *Handover) Release(ctx context.Context) error {
	if lock := h.lock.Load(); lock != nil {
		return lock.Release(ctx)
	}
	return nil
}

// lead connects the bot while holding lock and watches the lock. Once
// connected, the bot catches up on the mentions sent since the gateway was
// last held, by this process or another.
func (h *Handover) lead(ctx context.Context, lock *db.Lock) error {
	h.lock.Store(lock)
	hctx, cancel := context.WithTimeout(ctx, storeTimeout)
	since, held, err := db.GatewaySeenAt(hctx, h.pool, h.key)
	if err == nil {
		err = db.TouchGateway(hctx, h.pool, h.key, time.Now())
	}
	cancel()
	if err != nil {
		h.log.Warn("gateway heartbeat: mentions sent before this start are not caught up", "err", err)
	}
	if held {
		// The last heartbeat may be up to lockCheck older than the loss.
		h.bot.CatchUpNext(since.Add(-lockCheck), h.away.Swap(false))
	}
	// Start returns after the first attempt; a Discord that is down or
	// refuses is retried in the background and reported by Status.
	if err := h.bot.Start(ctx); err != nil {
		return fmt.Errorf("connect to Discord: %w", err)
	}
	h.standby.Store(false)
	go h.watch(ctx, lock)
	return nil
}

// watch checks that this process still holds lock. When it does not (its
// database connection died: a restart, a failover), another process may
// take the gateway, so this one leaves it and stands by — to take it back
// as soon as the database answers and the lock is free.
func (h *Handover) watch(ctx context.Context, lock *db.Lock) {
	t := time.NewTicker(lockCheck)
	defer t.Stop()
	for n := 0; ; n++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		cctx, cancel := context.WithTimeout(ctx, lockCheck)
		err := lock.Check(cctx)
		if err == nil {
			h.heartbeat(cctx, n)
		}
		cancel()
		if err == nil || ctx.Err() != nil {
			continue
		}
		h.log.Error("lost the Discord gateway lock (database connection gone); leaving the gateway and standing by", "err", err)
		h.lock.Store(nil)
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		_ = lock.Release(rctx) // closes the dead connection; the server freed the lock with it
		cancel()
		h.standby.Store(true)
		h.away.Store(true)
		h.bot.Leave()
		h.standBy(ctx, true) // the loss was said: the database's absence need not be
		return
	}
}

// heartbeat records that this process holds the gateway, for the catch-up
// of the next holder, and now and then forgets the mention claims no
// catch-up can need any more.
func (h *Handover) heartbeat(ctx context.Context, n int) {
	now := time.Now()
	if err := db.TouchGateway(ctx, h.pool, h.key, now); err != nil {
		h.log.Debug("gateway heartbeat", "err", err)
	}
	if n%claimsPruneEvery == 0 {
		if _, err := db.PruneMentionClaims(ctx, h.pool, now.Add(-claimsKept)); err != nil {
			h.log.Debug("prune mention claims", "err", err)
		}
	}
}

// standBy tries to take the gateway over until it does or ctx ends;
// failing says the database is known to be away already.
func (h *Handover) standBy(ctx context.Context, failing bool) {
	t := time.NewTicker(standbyPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		lock, err := db.TryLock(ctx, h.pool, h.key)
		if errors.Is(err, db.ErrLocked) {
			continue
		}
		if err != nil {
			// Said once while the database is away, not every poll.
			if ctx.Err() == nil && !failing {
				h.log.Warn("standby: cannot try the Discord gateway lock; trying every 2 s", "err", err)
			} else if ctx.Err() == nil {
				h.log.Debug("standby: try the Discord gateway lock", "err", err)
			}
			failing = true
			continue
		}
		h.log.Info("taking over the Discord gateway")
		if err := h.lead(ctx, lock); err != nil {
			h.lost(err)
		}
		return
	}
}
